"""Feedback coverage and no-change revisions: is each comment visibly answered by the
revision, and is the revision a revision at all?

Each comment (a person's, a critic's critical note, a check's "rewrite or remove") is judged
against the version it was made about, so an answer given two versions ago still counts:
- a comment that quotes text to remove is answered when that text is gone;
- a comment that wants something removed is answered when the lines it points at are gone;
- otherwise the changed lines (with their section's heading) must hold the numbers and names
  the comment asks for and at least half of its content terms, and must not merely paste the
  comment's own words back in ("That the cream is fragrance-free.");
- a comment with no content terms ("too generic, redo it") or about how the text sounds
  ("make the opening warmer") is answered by any real change;
- a comment asking for the whole text to be shorter ("too long, shorten it", "fewer steps")
  is answered by a text at most 90% as long.
A comment the revision lists, whole or in part, under "Open points" is not answered, whatever
else changed. A revision whose words and numbers are (nearly) those of its parent is no
progress. Pure: the texts and the comments are arguments."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel

from engine.checks.campaign_feedback import campaign_verdict
from engine.checks.comment_asks import is_request, points_back
from engine.checks.findings import Finding, finding
from engine.checks.terms import (
    data,
    has_phrase,
    list_items,
    normalise,
    numbers,
    section,
    sections,
    terms,
    word_set,
)
from engine.loop.decide import unchanged as no_change  # the one definition (the loop's)
from engine.pipelines.campaign.requests import sentences_of

CHECK = "feedback_coverage"
CANNOT_VERIFY = "cannot_verify"
"""A comment whose answer the text cannot show (a translation): neither answered nor missed;
the reviewer is told to judge it (a flag, no score cap)."""
MIN_SHARE = 0.5
SHORTER = 0.9
"""A comment asking for a shorter text is answered by one at most this share of the words."""
_QUOTED = re.compile(r"[\"\u201c]([^\"\u201d]{8,})[\"\u201d]"
                     r"|(?:(?<=\s)|^)['\u2018]([^'\u2019\n]{3,80}?)['\u2019](?=[\s;:,.!?)]|$)")
_Q, _QE = "['\"\u2018\u201c]", "['\"\u2019\u201d]"
# "Replace 'a supermarket' with 'Tesco on Kingsway'", "use 'failing my baby' instead of 'bad
# mother'": answered when the new words are in and the old ones are (mostly) gone.
_REPLACE = (re.compile(rf"\b(?:replace|swap|change)\s+(?:(?:the\s+)?(?:words?|phrase|term)\s+|"
                       rf"every\s+|all\s+)?{_Q}(?P<old>.+?){_QE}\s+(?:with|for|to|by|"
                       rf"into)\s+{_Q}(?P<new>.+?){_QE}(?=[\s.,;:!?)-]|$)", re.I),
            # "use 'A' instead of 'B'", "call the place 'A' instead of 'B'", "say 'A' ..."
            re.compile(rf"\b(?:use|call\s+(?:it|him|her|them|the\s+\w+)|say|write|put)\s+"
                       rf"{_Q}(?P<new>.+?){_QE}\s+instead\s+of\s+{_Q}(?P<old>.+?){_QE}"
                       r"(?=[\s.,;:!?)-]|$)", re.I))
# "add 988 ..., or emergency services on 911": numbers offered as alternatives, one will do.
_ALTERNATIVES = re.compile(r"\d[^.;]*?\bor\b[^.;]*?\d")
# "Step 3 is too long": a comment about one part is judged by what changed there.
_POINTS_AT_PART = re.compile(r"\b(?:step|line|sentence|question|message)\s*#?\d|\bthe (?:first|"
                             r"last|second|third|opening|closing) (?:step|line|sentence|"
                             r"paragraph|question)", re.I)
_LIST_MARK = re.compile(r"^\s*(?:\d+[.)]|[-*+])\s+")
# A capitalised word that does not open a sentence ("Good start. Please add..." names no one).
_NAME = re.compile(r"(?<![.!?]\s)(?<![.!?]\s\s)\b[A-Z][a-z]+\b")


class Comment(BaseModel):
    text: str
    before: str | None = None
    """The version the comment was made about (None: the revision's parent)."""
    source: Literal["human", "critic", "checks"] = "human"


def _lines(text: str) -> list[tuple[str, str]]:
    """(section heading, line) for each non-empty line, list numbers stripped."""
    out = []
    for s in sections(text):
        for line in s.body.splitlines():
            line = _LIST_MARK.sub("", line).strip()
            if line:
                out.append((s.heading, line))
    return out


UNANSWERED_SECTIONS = ("open points",)
"""Where a drafter lists what it did not settle: a comment quoted there is reported, not
answered (it stays "not addressed" until the text itself answers it)."""


def changed_text(before: str, after: str) -> str:
    """The lines of `after` that `before` does not have, each with its section's heading
    (none from the sections that list what is still open)."""
    old = {normalise(line) for _, line in _lines(before)}
    return "\n".join(f"{head}: {line}" for head, line in _lines(after)
                     if normalise(line) not in old
                     and not head.lower().startswith(UNANSWERED_SECTIONS))


def _wants_removal(comment: str) -> bool:
    first = set(re.findall(r"[a-z]+", comment.lower())[:4])
    return bool(first & set(data()["removal"].split())) or has_phrase(
        comment, data()["removal_phrases"])


def _names(comment: str) -> set[str]:
    """Capitalised words inside the comment (not opening it or a sentence): people, places,
    services."""
    return {m.group() for m in _NAME.finditer(comment)
            if m.start() > 0 and m.group().lower() not in word_set("stopwords")}


def _pasted(comment: str, added: str) -> bool:
    """The changed text is the comment's own words with the instruction left off."""
    verb = re.match(r"\s*\w+\s+", comment)
    tail = normalise(comment[verb.end():] if verb else comment)
    lines = [normalise(line.split(":", 1)[-1]) for line in added.splitlines()]
    return bool(tail) and any(line == tail for line in lines)


def _target_clause(comment: str) -> str:
    """What a removal comment points at: its first clause ("remove the step about X, it is
    not about Y" points at X; the rest is the reason)."""
    return re.split(r"[,;:()]|\s(?:because|since|as|it|it's|this|that's)\s", comment,
                    maxsplit=1)[0]


def _removed(target: str, before: str, after: str) -> bool:
    """The lines of `before` that match the target best (at least half its terms) are gone."""
    wanted = terms(target, word_set("generic", "feedback"))
    if not wanted:
        return not no_change(before, after)
    share = {line: len(wanted & terms(line)) / len(wanted) for _, line in _lines(before)}
    best = max(share.values(), default=0.0)
    if best < MIN_SHARE:
        return not no_change(before, after)  # nothing recognisable to remove: any change
    kept = {normalise(line) for _, line in _lines(after)}
    return all(normalise(line) not in kept for line, v in share.items() if v == best)


def replacements(comment: str) -> list[tuple[str, str]]:
    """The (old, new) words of each "replace 'A' with 'B'" in a comment: what the check
    verifies and the offline drafter applies (one reading for both)."""
    return [(m.group("old").strip(), m.group("new")) for p in _REPLACE
            for m in p.finditer(comment)]


def _replaced(old: str, new: str, before: str, after: str) -> bool:
    core = re.sub(r"^(?:an?|the)\s+", "", normalise(old))
    was, now = normalise(before).count(core), normalise(after).count(core)
    return normalise(new) in normalise(after) and (now < was or now == 0)


def _left_open(comment: str, after: str) -> bool:
    """The draft itself lists the comment, or a sentence of it, as not done ("Open points":
    'Not applied: "Could you also translate it into Hebrew?"'): whatever else changed, that
    part is not answered."""
    listed = normalise(" ".join(s.body for s in sections(after)
                                if s.heading.lower().startswith(UNANSWERED_SECTIONS)))
    if not listed:
        return False
    parts = [normalise(p) for p in re.split(r"(?<=[.!?])\s+", comment)]
    if any(len(p.split()) >= 3 and p in listed for p in parts):
        return True
    # A clause of a sentence quoted as not applied ('..., and can you make it more playful?'):
    # that part is still open, whatever else the sentence asked for was done.
    said = normalise(comment)
    quoted = re.findall(r'"([^"\n]{8,})"', " ".join(s.body for s in sections(after)
                                                   if s.heading.lower().startswith(
                                                       UNANSWERED_SECTIONS)))
    return any(len(q.split()) >= 3 and normalise(q) in said for q in quoted)


# "..., she's under 18", "... because it opens at 9": why the comment asks, not what.
_REASON = re.compile(r"[,;]\s*(?:(?:she|he|they|it|this|that)(?:'s|\u2019s|\s+[a-z]+)|because|"
                     r"since|as)\b[^.;!?]*", re.I)


def _asking_part(comment: str) -> str:
    """The sentences of a comment that ask for something, without the clauses that say why
    (a number there is context, not a number the draft must carry)."""
    asking = [s for s in sentences_of(comment) if is_request(s)] or [comment]
    return " ".join(_REASON.sub("", s) for s in asking)


def _quotes_to_place(comment: str) -> list[str]:
    """Words a comment asks to be put in ("quote her phrase 'if only I'd braked sooner'", use
    the wording "..."): at least two words, and not ones it asks to avoid ("not just 'out of
    reach'", "instead of 'bad mother'")."""
    if not re.search(r"\b(?:quote|phrase|words?|wording|exact|use|say|write|put|include|insert)\b",
                     comment, re.I):
        return []
    out = []
    for m in _QUOTED.finditer(comment):
        said = m.group(1) or m.group(2)
        before = comment[max(0, m.start() - 20):m.start()].lower()
        if len(said.split()) >= 2 and not re.search(
                r"\b(?:not|instead of|rather than|never|don't|than|avoid|remove|drop|replace)\b"
                r"[^.;]*$", before):
            out.append(said)
    return out


def _steps_of(text: str) -> list[str]:
    return list_items(section(text, "steps")) or list_items(text)


def answered(comment: str, before: str, after: str) -> bool:
    """Whether `after` visibly answers `comment` made about `before`."""
    if normalise(before) == normalise(after) or _left_open(comment, after):
        return False
    if has_phrase(comment, data()["fewer_steps"]) and not _POINTS_AT_PART.search(comment):
        return len(_steps_of(after)) < len(_steps_of(before))
    if has_phrase(comment, data()["shortening"]) and not _POINTS_AT_PART.search(comment):
        return len(normalise(after).split()) <= SHORTER * len(normalise(before).split())
    swaps = replacements(comment)
    if swaps:
        return all(_replaced(old, new, before, after) for old, new in swaps)
    removal = _wants_removal(comment)
    quoted = [a or b for a, b in _QUOTED.findall(comment)]
    if quoted and (removal or "rewrite" in comment.lower()):
        return all(normalise(q) not in normalise(after) for q in quoted)
    wanted = terms(comment, word_set("generic", "feedback"))
    if asked := terms(_asking_part(comment), word_set("generic", "feedback")):
        wanted = asked  # "..., he's sleeping in a bright room" says why, not what
    if removal:
        return _removed(_target_clause(comment), before, after)
    added = changed_text(before, after)
    if not added:
        return False
    new_numbers = numbers(_asking_part(comment)) - numbers(before)
    if not new_numbers <= numbers(after) and not (_ALTERNATIVES.search(comment)
                                                  and new_numbers & numbers(after)):
        return False  # every number it asks for, or one of those it offers as alternatives
    new_names = {n for n in _names(comment) if n.lower() not in before.lower()}
    if any(n.lower() not in after.lower() for n in new_names):
        return False
    if _pasted(comment, added):
        return False
    asked_quotes = _quotes_to_place(comment)
    if asked_quotes and any(normalise(q) in normalise(added) for q in asked_quotes):
        return True  # "quote her phrase 'if only I'd braked sooner'": the words are in place
    if new_numbers and new_numbers <= numbers(added):
        return True  # "pay the first creator 650 USD": the amount it asks for is now in place
    if not wanted or wanted & word_set("generic", "style"):
        return not no_change(before, after)  # how it sounds: any real rewrite answers it
    lines_only = terms("\n".join(line.split(": ", 1)[-1] for line in added.splitlines()))
    # The section's heading helps place a change ("Reflection") but cannot answer on its own.
    return bool(wanted & lines_only) and len(wanted & terms(added)) / len(wanted) >= MIN_SHARE


def feedback_findings(kind: str, text: str, previous: str | None,
                      comments: list[Comment]) -> list[Finding]:
    """A "not addressed" finding per comment the revision does not answer."""
    out = []
    for c in comments:
        before = c.before if c.before is not None else previous
        if before is None:
            continue
        verdict = _verdict(kind, c.text, before, text)
        if verdict == "not_addressed":
            out.append(finding(
                CHECK, kind, "not_addressed", c.text,
                f"Not addressed yet: {c.text!r}. Change the draft so it visibly answers this "
                "(what it names, with its numbers and names), or say in the draft why not."))
        elif verdict == "cannot_verify":
            out.append(finding(
                CHECK, kind, CANNOT_VERIFY, c.text,
                f"Cannot verify from the text: {c.text!r} (how it sounds, a translation, a "
                "currency conversion). A person who can judge it must read the draft."))
    return out


def _verdict(kind: str, comment: str, before: str, after: str) -> str:
    """"answered", "not_addressed" or "cannot_verify" for one comment."""
    if before.strip() == after.strip() or _left_open(comment, after):
        return "not_addressed"
    # Campaign outreach: what the messages themselves can show is read off them (a change
    # of punctuation alone answers "drop the exclamation marks").
    verdict = _campaign_asks(comment, before, after) if kind == "campaign" else None
    if verdict is not None:
        return verdict
    return "answered" if answered(comment, before, after) else "not_addressed"


def _campaign_asks(comment: str, before: str, after: str) -> str | None:
    """Each ask of a campaign comment judged on its own ("Raise Lior's fee to $650. Move Maya
    to Instagram DM. Add a line about the free tasting."): the worst verdict stands, so an ask
    after the first that was left out is not hidden by one that was answered. A comment of one
    ask: the messages' own reading (campaign_verdict), else None."""
    said = sentences_of(comment)
    # "The bean is a Yirgacheffe. Put that in the messages.": one ask, the sentence before.
    said = [said[k - 1] if k and points_back(x) else x for k, x in enumerate(said)]
    asks = list(dict.fromkeys(x for k, x in enumerate(said) if is_request(x) or (
        k + 1 < len(said) and said[k + 1] == x) or campaign_verdict(x, before, after) is not None))
    if len(asks) < 2 and not (asks and any(points_back(x) for x in sentences_of(comment))):
        return campaign_verdict(comment, before, after)
    verdicts = {campaign_verdict(x, before, after)
                or ("answered" if answered(x, before, after) else "not_addressed") for x in asks}
    return next(v for v in ("not_addressed", "cannot_verify", "answered") if v in verdicts)


def no_change_findings(kind: str, text: str, previous: str | None) -> list[Finding]:
    if previous is None or not no_change(previous, text):
        return []
    return [finding("no_change", kind, "no_change", "this version repeats the previous one",
                    "This revision is (nearly) identical to the previous version: it is not "
                    "progress. Make the changes the notes and comments ask for.")]


__all__ = ["Comment", "answered", "replacements", "changed_text", "feedback_findings", "no_change",
           "no_change_findings"]
