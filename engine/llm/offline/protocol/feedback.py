"""Simple structured feedback a person gives on a protocol draft, applied by the offline
Drafter: "add a step about X" (an action becomes that step), "mention Y", "offer Z", "make
it specific to W", "make sure it mentions V" (already there: the purpose says where). A
comment the drafter has no rule for is not dropped silently: it is listed under "Open points"
in the revision, so the reviewer sees it was not applied."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, replace
from functools import lru_cache

from engine.checks import crisis
from engine.llm.offline.protocol import comment_edits as ce
from engine.llm.offline.protocol import library as lib
from engine.llm.offline.protocol.asks import _Asks, _read_request, _topics_to_add
from engine.llm.offline.protocol.common import (
    _CRISIS,
    MAX_STEPS,
    _Context,
    _end,
    _norm,
    _safe_fragment,
    _screen,
    _to_second_person,
    _topic_in,
    third_to_second,
)
from engine.llm.offline.protocol.doc import _Doc
from engine.llm.offline.protocol.setting_edits import Setting, apply_settings, read_settings

OPEN_POINTS = "Open points"
_NEGATED = re.compile(r"\b(?:don't|do not|no need to|never|stop)\s+$", re.I)
_MENTION = re.compile(
    r"\b(?:mention|include|talk about|refer to|touch on|bring up|"
    r"remind (?:them|the client) (?:of|about))"
    r"\s+(?!(?:an?|one|another|the)?\s*(?:step|section|part)s?\b)([^.;!?\n]{3,80})", re.I)
_OFFER = re.compile(
    r"\b(?:offer|provide|recommend|suggest|give (?:them|her|him|the client))\s+"
    r"(?!(?:an?|one|another)?\s*(?:step|section)s?\b)([^.;!?\n]{3,80})", re.I)
_SPECIFIC = re.compile(
    r"\b(?:make (?:it|this|the (?:exercise|steps))\s+(?:more\s+)?(?:specific|relevant|"
    r"tailored)\s+(?:to|for|about)|tailor (?:it|this)\s+(?:to|for)|adapt (?:it|this)\s+"
    r"(?:to|for)|focus (?:it|this)\s+on)\s+([^.;!?\n]{3,80})", re.I)
# "Make sure it mentions the crisis line": what must be in the draft. Already there, the
# revision points to where (a person asking has not seen it, so it is not visible enough);
# missing, it is mentioned like "mention X".
_MAKE_SURE = re.compile(
    r"\b(?:make sure|ensure|be sure|check)\s+(?:that\s+)?"
    r"(?:it|this|you|they|the (?:draft|exercise|protocol|handout|text|steps?|safety note|note))\s+"
    r"(?:mentions?|includes?|covers?|names?|says?|talks? about|has|have|gives?|lists?|"
    r"points? to|explains?|refers? to)\s+([^.;!?\n]{3,80})", re.I)
_VAGUE = {"the situation", "their situation", "your situation", "the client", "them", "it",
          "the person", "this person", "the case", "the intent", "the request"}


@dataclass
class Feedback:
    steps: list[str] = field(default_factory=list)
    """Actions to add as steps, already imperative."""
    mentions: list[str] = field(default_factory=list)
    offers: list[str] = field(default_factory=list)
    ensure: list[str] = field(default_factory=list)
    """What a "make sure it mentions X" comment wants in the draft."""
    specific: str | None = None
    edits: list[ce.Edit] = field(default_factory=list)
    """Replacements, clause steps, statements and quotes (comment_edits.py)."""
    settings: list[Setting] = field(default_factory=list)
    """A breathing pattern, the reader's name (setting_edits.py)."""
    unapplied: list[str] = field(default_factory=list)


def _phrases(pattern: re.Pattern[str], comment: str) -> list[str]:
    out = []
    for m in pattern.finditer(comment):
        if not _NEGATED.search(comment[:m.start()]):
            out.append(m.group(1).strip().rstrip(",").strip())
    return out


_ABBREVIATION = re.compile(r"\b(Mr|Ms|Mrs|Dr|St|Prof|e\.g|i\.e|etc)\.", re.I)
_SUPPORT = re.compile(r"\b(?:name|add|list|include)\s+(.{3,60}?),?\s+as\s+(?:someone|a person|"
                      r"a contact|the person|somebody)\b", re.I)


_SECOND_ASK = re.compile(r",?\s+(?:and|but|also|then|plus)\s+(?=(?:can|could|would|will)\s+you\b|"
                         r"(?:please|pls|also)\s+\w)", re.I)


def _sentences_of(comment: str) -> list[str]:
    """The sentences of one comment ("Ms. Ortiz" is no sentence end)."""
    guarded = _ABBREVIATION.sub(lambda m: m.group(1) + "\u2024", comment)
    # "Add X to the plan, and can you make it more playful?" asks two things: each is read
    # (and reported if not applied) on its own.
    guarded = _SECOND_ASK.sub(".\n", guarded)
    parts = [" ".join(p.split()).replace("\u2024", ".")
             for p in re.split(r"(?<=[.!?;])\s+|\n+", guarded) if len(p.strip()) > 2]
    # "Curfew is 10pm. Pls put that in." is one request: a bare pointer joins what it points at.
    out: list[str] = []
    for p in parts:
        if out and len(p.split()) <= 7 and ce.bare_pointer(p):
            out[-1] = f"{out[-1].rstrip('.!?; ')} - {p}"
        else:
            out.append(p)
    return out


def read_feedback(comments: list[str]) -> Feedback:
    fb = Feedback()
    for comment in comments:
        sentences = _sentences_of(comment)
        requests = [s for s in sentences if ce.is_request(s)]
        context = [s for s in sentences if s not in requests]
        # A comment that asks in statements only ("This reads too grown-up.") is one request.
        for sentence in requests or sentences:
            read = _read_sentence(fb, sentence, context)
            # A phrase the echo filter refused is reported even when another rule read part of
            # the sentence ("... so nobody on the bus notices" is not answered by "the bus").
            if _refused(sentence) or not read and not _asks_anything(sentence):
                fb.unapplied.append(sentence if requests or len(sentences) > 1 else
                                    " ".join(comment.split()))
    return fb


def _refused(sentence: str) -> bool:
    """Whether the sentence asks to mention or offer something the echo filter refuses."""
    return not all(map(_echoable, (*_phrases(_MENTION, sentence), *_phrases(_OFFER, sentence))))


def _read_sentence(fb: Feedback, comment: str, context: list[str]) -> bool:
    """Read what one sentence asks for into `fb`; whether it asked for anything here."""
    before = len(fb.steps) + len(fb.mentions) + len(fb.offers) + len(fb.ensure)
    if ensure := _phrases(_MAKE_SURE, comment):
        fb.ensure += ensure
        return True
    if settings := read_settings(comment, context):
        fb.settings += settings
        return True
    if edits := ce.read_edits(comment, context):
        fb.edits += edits
        return True
    for topic in _topics_to_add(comment):
        if step := ce.imperative(topic):
            fb.steps.append(step)
    removed = _removed_topics(comment)
    fb.steps = [s for s in fb.steps if not any(_topic_in(r, s) for r in removed)]
    # A phrase the echo filter refuses is not read: the sentence is then reported as not
    # applied instead of being dropped without a word.
    for phrase in filter(_echoable, _phrases(_MENTION, comment)):
        step = ce.imperative(phrase)
        fact = None if step else ce.fact_for(phrase, context)
        if fact:
            fb.edits.append(ce.Edit(comment, "sentence", fact))
        else:
            (fb.steps if step else fb.mentions).append(step or phrase)
    fb.offers += filter(_echoable, _phrases(_OFFER, comment))
    for m in _SUPPORT.finditer(comment):
        if who := _safe_fragment(third_to_second(m.group(1).strip(" ,")), max_words=8):
            fb.steps.append(_end(f"Add {who} to the people you can go to when things "
                                 "feel hard"))
    specific = _phrases(_SPECIFIC, comment)
    if specific:
        fb.specific = specific[-1]
    return bool(len(fb.steps) + len(fb.mentions) + len(fb.offers) + len(fb.ensure) > before
                or specific or fb.edits and fb.edits[-1].source == comment)


def _echoable(phrase: str) -> bool:
    return _safe_fragment(phrase, max_words=12) is not None


@lru_cache(maxsize=256)
def _asks_of(comment: str) -> _Asks:
    """What the drafter's other rules (asks.py) read in one sentence; read once, shared
    read-only by the two questions below."""
    asks = _Asks()
    _read_request(comment, asks, from_human=True)
    return asks


def _removed_topics(comment: str) -> list[str]:
    return _asks_of(comment).remove_topics


def _asks_anything(comment: str) -> bool:
    """Whether the drafter's other rules (asks.py) read any request in the comment."""
    return asdict(_asks_of(comment)) != asdict(_Asks())


def _sentence(template: str, phrase: str) -> str | None:
    safe = _safe_fragment(phrase, max_words=12)
    return template.format(_to_second_person(safe)) if safe else None


def _add_step(doc: _Doc, step: str, most: int = MAX_STEPS) -> None:
    if any(_norm(step.rstrip(".")) in _norm(s) for s in doc.steps):
        return
    if len(doc.steps) >= most:
        doc.steps.pop(-2)  # the step before the last: the last one closes the exercise
    doc.steps.insert(max(0, len(doc.steps) - 1), step)


def _add_to_purpose(doc: _Doc, sentence: str | None) -> None:
    if sentence and _norm(sentence) not in _norm(doc.purpose):
        doc.purpose = (_end(doc.purpose) + " " + sentence).strip()


def _make_specific(doc: _Doc, ctx: _Context, target: str) -> None:
    phrase = ctx.situation if target.lower() in _VAGUE else target
    safe = _safe_fragment(phrase or "", max_words=10)
    if not safe:
        return
    safe = third_to_second(_to_second_person(safe))
    situated = replace(ctx, feared=safe, event=safe)
    name = situated.situated
    if name in ("exposure", "rumination"):
        # The steps themselves are rebuilt around the situation.
        doc.steps = [situated.fill(core + (" " + warm if warm else ""))
                     for core, warm in lib.SITUATIONS[name]["steps"]]
    else:
        _add_step(doc, f"Think of a moment with {safe} that you want to use this for, and "
                       f"practise these steps with that moment in mind.")
    _add_to_purpose(doc, f"It is written with {safe} in mind.")


def _section_with(doc: _Doc, ctx: _Context, phrase: str) -> str | None:
    """The heading of the first section that already has `phrase` (a crisis line counts as
    any crisis resource the reader's region can use)."""
    sections = [("Steps", "\n".join(doc.steps)), ("Safety note", doc.safety),
                ("Reflection", "\n".join(doc.reflection)), *doc.extras_before,
                *doc.extras_after, ("Purpose", doc.purpose)]
    region = crisis.region(ctx.region)
    for heading, body in sections:
        if heading.lower() == OPEN_POINTS.lower() or not body:
            continue
        if _topic_in(phrase, body) or (_CRISIS.search(phrase)
                                       and crisis.mentions_resource(body, region)):
            return heading
    return None


def _ensure(doc: _Doc, ctx: _Context, phrase: str) -> None:
    keep = _sentence("Keep {} in mind as you work through the steps.", phrase)
    where = _section_with(doc, ctx, phrase)
    find = _sentence(f"You will find {{}} in the {where} section.", phrase) if where else None
    if any(x and _norm(x) in _norm(doc.purpose) for x in (keep, find)):
        return  # answered by an earlier revision: applying it again changes nothing
    if find:
        _add_to_purpose(doc, find)
    elif step := ce.imperative(phrase):
        _add_step(doc, step, ctx.most_steps)
    else:
        _add_to_purpose(doc, keep)


def _unapplied_line(comment: str) -> str:
    line = (f'- Not applied: "{comment}" (the offline drafter has no rule for this request; '
            "edit the draft or say it in other words).")
    if _screen(f"## {OPEN_POINTS}\n\n{line}").flags:
        # Quoted, it would put what the screen objects to into the draft itself.
        return ("- Not applied: a comment whose wording the safety screen flags (not quoted "
                "here); edit the draft by hand if it still applies.")
    return line


def _note_unapplied(doc: _Doc, comments: list[str]) -> None:
    lines = [_unapplied_line(c) for c in comments]
    for i, (heading, body) in enumerate(doc.extras_after):
        if heading.lower() == OPEN_POINTS.lower():
            new = [ln for ln in lines if ln not in body]
            doc.extras_after[i] = (heading, "\n".join([body, *new]).strip())
            return
    if lines:
        doc.extras_after.append((OPEN_POINTS, "\n".join(lines)))


def apply_feedback(doc: _Doc, ctx: _Context, comments: list[str]) -> None:
    """Every person's comment on the run, oldest first; applying one again changes nothing."""
    fb = read_feedback(comments)
    if fb.specific:
        _make_specific(doc, ctx, fb.specific)
    for step in fb.steps:
        _add_step(doc, step, ctx.most_steps)
    for phrase in fb.mentions:
        _add_to_purpose(doc, _sentence("Keep {} in mind as you work through the steps.", phrase))
    for phrase in fb.offers:
        _add_to_purpose(doc, _sentence("You can also use {} alongside this exercise.", phrase))
    for phrase in fb.ensure:
        _ensure(doc, ctx, phrase)
    failed = ce.apply(doc, fb.edits, _add_step) + apply_settings(doc, fb.settings)
    _note_unapplied(doc, fb.unapplied + failed)
