"""Offline (deterministic, no network) Drafter for protocols.

The Drafter composes an exercise from the template library in protocol_library.py, fitted
to the intent and audience. A first draft is not always perfect: a hash of the input picks
a weakness a real first draft might have (a colder tone, a missing crisis line, padded
steps...), so the loop has something to revise. Revisions parse the previous Markdown into
sections and answer the notes and human feedback on that text, so what a person wrote is
kept wherever it can be. The critics are in protocol_critics.py."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine.llm.offline.protocol import library as lib
from engine.pipelines.base import DraftTask

if TYPE_CHECKING:
    from engine.pipelines.protocol.models import ProtocolDraft

from engine.llm.offline.protocol.common import (  # package-internal helpers
    _BULLET,
    _CRISIS,
    _JUDGEMENTAL,
    _NUMBERED,
    _PROFESSIONAL,
    _QUOTED,
    LONG_STEP_WORDS,
    MAX_STEPS,
    MIN_STEPS,
    SHORT_STEP_WORDS,
    _cap,
    _Context,
    _context,
    _Doc,
    _end,
    _is_imperative,
    _match_case,
    _norm,
    _plain,
    _render,
    _safe_fragment,
    _screen,
    _sentences,
    _syllables,
    _tidy,
    _to_draft,
    _validating_count,
    _words,
    parse_protocol,
)

_VARIANTS = ("complete", "complete", "complete", "complete", "few_reflection", "no_crisis",
             "cold", "wordy", "cold_no_crisis", "thin")
"""How a first draft turns out, picked by a hash of the input: four in ten are complete;
the others miss something a critic will notice."""


def _title(ctx: _Context) -> str:
    base = ctx.template["title"]
    return base if ctx.label == "adults" else f"{base} for {ctx.label}"


def _purpose(ctx: _Context, warm: bool, profile_line: bool = True) -> str:
    t = ctx.template
    sentences = [ctx.fill(t["warm"])] if warm else []
    sentences += [ctx.fill(s) for s in t["purpose"]]
    if ctx.situation:
        sentences.append(f"It was written with this situation in mind: {ctx.situation}.")
    if profile_line:
        sentences.append(ctx.fill(ctx.profile["line"]))
    return " ".join(sentences)


def _template_steps(ctx: _Context, warm: bool = True) -> list[str]:
    return [ctx.fill(core + (" " + w if warm and w else "")) for core, w in
            ctx.template["steps"]]


def _crisis_line(ctx: _Context) -> str:
    for candidate in lib.CRISIS_LINES[ctx.region] + lib.CRISIS_LINES["us"]:
        extra = lib.CRISIS_EXTRA.get(ctx.profile["key"])
        line = candidate + (" " + ctx.fill(extra) if extra else "")
        if not _screen(line).flags:
            return line
    return lib.CRISIS_LINES[ctx.region][0]


def _safety_note(ctx: _Context, crisis: bool = True) -> str:
    parts = [ctx.fill(ctx.template["safety_extra"])]
    if crisis:
        parts.append(_crisis_line(ctx))
    parts.append(lib.PROFESSIONAL_LINE)
    return " ".join(parts)


def _first_draft(ctx: _Context) -> _Doc:
    variant = _VARIANTS[ctx.seed % len(_VARIANTS)]
    cold = variant in ("cold", "cold_no_crisis")
    doc = _Doc(title=_title(ctx), found={"title", "purpose", "steps", "reflection", "safety"})
    doc.purpose = _purpose(ctx, warm=not cold, profile_line=not cold)
    doc.steps = _template_steps(ctx, warm=not cold)
    reflection = [ctx.fill(q) for q in ctx.template["reflection"]]
    doc.reflection = reflection[:3]
    doc.safety = _safety_note(ctx, crisis=variant not in ("no_crisis", "cold_no_crisis"))
    if cold:
        for i in (1, 4):
            doc.steps[i] = ("Simply " if i == 1 else "Just ") + doc.steps[i][:1].lower() \
                + doc.steps[i][1:]
    elif variant == "wordy":
        for i in (0, 2, 4, 5):
            doc.steps[i] += " " + " ".join(lib.WORDY_CLAUSES)
        doc.purpose += " " + lib.WORDY_CLAUSES[1]
    elif variant == "thin":
        doc.steps = doc.steps[:3]
        doc.reflection = []
    elif variant == "few_reflection":
        doc.reflection = reflection[:1]
    return doc


# ======================================================================================
# The Drafter: revision
# ======================================================================================


@dataclass
class _Asks:
    """What the notes and the feedback ask for, read from their words."""

    remove: list[str] = field(default_factory=list)
    rephrase: list[str] = field(default_factory=list)
    crisis: bool = False
    professional: bool = False
    safety_note: bool = False
    purpose: bool = False
    more_steps: bool = False
    extra_step: bool = False
    fewer_steps: bool = False
    imperative: bool = False
    shorten_steps: bool = False
    shorten: bool = False
    lengthen: bool = False
    simplify: bool = False
    warm: bool = False
    warmer: bool = False
    """A person asked for a warmer tone: warm it visibly even if the critic is content."""
    second_person: bool = False
    judgemental: bool = False
    reflection: bool = False
    extra_question: bool = False
    title: str | None = None
    add_topics: list[str] = field(default_factory=list)
    remove_topics: list[str] = field(default_factory=list)


def _has(text: str, pattern: str) -> bool:
    return re.search(pattern, text, re.I) is not None


_ADD_TOPIC = re.compile(
    r"\b(?:add|include|put in|mention)\s+(?:an?|one|another|some)?\s*(?:extra\s+|new\s+)?"
    r"(?:step|section|part|line|bit|exercise|something)s?\s+(?:about|on|for|with|around)\s+"
    r"(?:a\s+|an\s+|the\s+|some\s+)?([^.,;!?\n]+)", re.I)
_ADD_SHORT = re.compile(r"\badd\s+(?:a\s+|an\s+|some\s+)?([a-z][a-z -]{2,30}?)\s+step\b", re.I)
_REMOVE_TOPIC = re.compile(
    r"\b(?:remove|drop|delete|take out|cut|leave out|get rid of)\s+(?:the\s+)?"
    r"(?:step|part|bit|line|sentence|section|mention)s?\s+(?:about|on|mentioning|with)\s+"
    r"(?:the\s+)?([^.,;!?\n]+)", re.I)
_NO_TOPIC = re.compile(r"\b(?:don't|do not|no need to)\s+mention\s+([^.,;!?\n]+)", re.I)
_NEW_TITLE = re.compile(
    r"(?:\b(?:change|rename)\s+(?:the\s+)?(?:title|it|this)\s+(?:to\s+)?|\bcall\s+it\s+)"
    r"[\"\u201c']?([^\"\u201d'\n]{3,60})[\"\u201d']?", re.I)


def _topics_to_add(text: str) -> list[str]:
    topics = [m.group(1) for m in _ADD_TOPIC.finditer(text)]
    topics += [m.group(1) for m in _ADD_SHORT.finditer(text)
               if not _has(m.group(1), r"\b(more|few|another|extra|new|one|second)\b")]
    return topics


def _read_request(text: str, asks: _Asks, *, from_human: bool) -> None:
    quotes = [a or b for a, b in _QUOTED.findall(text)]
    # What a note quotes is the draft's text, not part of the request.
    low = _QUOTED.sub(" ", text).lower().replace("\u2019", "'")
    judgement = _has(low, r"judge?ment|judgmental|wording|tone")
    if quotes and _has(low, r"\b(remove|delete|rewrite|unsafe|flag|cut|take out|drop)\b"):
        (asks.rephrase if judgement else asks.remove).extend(quotes)
    elif quotes and judgement:
        asks.rephrase.extend(quotes)
    if judgement and _has(low, r"judge?ment|judgmental"):
        asks.judgemental = True
    if _has(low, r"crisis|988|emergency|hotline|lifeline|samaritans"):
        asks.crisis = True
    if _has(low, r"professional help|clinician|therapist|\bgp\b|doctor"):
        asks.professional = True
    if _has(low, r"safety (note|section)") and _has(low, r"add|missing|no |include|need"):
        asks.safety_note = True
    if _has(low, r"\bpurpose\b") and _has(low, r"add|missing|no |include|short|need"):
        asks.purpose = True
    topics = _topics_to_add(text) if from_human else []
    topical = bool(topics)
    if _has(low, r"too many steps|fewer steps|trim|8 or fewer|eight or fewer"):
        asks.fewer_steps = True
    elif not topical and _has(low, r"\b(more|another|extra|one more) steps?\b"):
        asks.extra_step = True
    elif not topical and _has(low, r"\bsteps?\b") and _has(
            low, r"\b(add|missing|only|at least|too few|no steps|needs?)\b"):
        asks.more_steps = True
    if _has(low, r"action verb|imperative|actionable|concrete action"):
        asks.imperative = True
    if _has(low, r"\bsteps? \d+ is (long|wordy)|long steps?|shorten (the )?steps?|"
                 r"steps? (are|is) too long|wordy"):
        asks.shorten_steps = True
    if _has(low, r"\b(shorter|shorten|too long|more concise|less text|briefer|"
                 r"cut (it )?down|too wordy|long-winded)\b") and not _has(
            low, r"shorter sentences|\bsteps? \d+\b"):
        asks.shorten, asks.lengthen = True, False
    if _has(low, r"\b(longer|more detail|too short|expand|elaborate|fuller)\b"):
        asks.lengthen, asks.shorten = True, False
    if _has(low, r"reading level|readab|flesch|plain(er)? (words|language|english)|"
                 r"simpler|simple words|easier to read|jargon|shorter sentences|"
                 r"easier words"):
        asks.simplify = True
    if _has(low, r"validat|warm|empath|cold|compassion|kinder|gentler|softer|friendlier|"
                 r"harsh|tone"):
        asks.warm = True
        asks.warmer |= from_human
    if _has(low, r"second[- ]person|directly|'you'|\byou, your\b"):
        asks.second_person = True
    if _has(low, r"reflect|question") and _has(
            low, r"\b(add|more|only|missing|at least|another|no )"):
        asks.reflection = True
        asks.extra_question |= from_human
    if from_human:
        asks.add_topics += topics
        for m in list(_REMOVE_TOPIC.finditer(text)) + list(_NO_TOPIC.finditer(text)):
            asks.remove_topics.append(m.group(1))
        if m := _NEW_TITLE.search(text):
            asks.title = m.group(1)


def _read_asks(task: DraftTask) -> _Asks:
    asks = _Asks()
    for note in task.notes:
        if note.priority != "info" and note.target in ("drafter", "broadcast"):
            _read_request(note.text, asks, from_human=False)
    for comment in task.feedback:
        _read_request(comment, asks, from_human=True)
    return asks


# ---- edits ---------------------------------------------------------------------------


def _remove_text(doc: _Doc, target: str) -> bool:
    """Removes a sentence (or phrase) wherever it stands; True when found."""
    needle = " ".join(target.split())
    if not needle:
        return False
    found = False

    def cut(text: str) -> str:
        nonlocal found
        if needle in text:
            found = True
            return _tidy(text.replace(needle, " "))
        flat = " ".join(text.split())
        if needle in flat:
            found = True
            return _tidy(flat.replace(needle, " "))
        return text

    doc.purpose = cut(doc.purpose)
    doc.safety = cut(doc.safety)
    doc.steps = [s for s in (cut(s) for s in doc.steps) if _words(s)]
    doc.reflection = [q for q in (cut(q) for q in doc.reflection) if _words(q)]
    doc.lead = [p for p in (cut(p) for p in doc.lead) if _words(p)]
    doc.extras_before = [(h, cut(b)) for h, b in doc.extras_before]
    doc.extras_after = [(h, cut(b)) for h, b in doc.extras_after]
    if needle in doc.title:
        doc.title, found = "", True
    return found


def _map_text(doc: _Doc, fn) -> None:
    doc.purpose = fn(doc.purpose)
    doc.steps = [s for s in (fn(s) for s in doc.steps) if _words(s)]
    doc.reflection = [q for q in (fn(q) for q in doc.reflection) if _words(q)]
    doc.safety = fn(doc.safety)
    doc.lead = [p for p in (fn(p) for p in doc.lead) if _words(p)]
    doc.extras_before = [(h, fn(b)) for h, b in doc.extras_before]
    doc.extras_after = [(h, fn(b)) for h, b in doc.extras_after]


def _unjudge(text: str) -> str:
    # "Simply list..." becomes "List...": the verb moves up to start the sentence.
    text = re.sub(r"(^|[.!?:]\s+|\n)(?:just|simply)\s+([a-z])",
                  lambda m: m.group(1) + m.group(2).upper(), text, flags=re.I)
    for pattern, _, repl in _JUDGEMENTAL:
        text = pattern.sub(lambda m, r=repl: _match_case(m.group(0), r) if r else "", text)
    return _tidy(text)


def _rephrase(doc: _Doc, target: str) -> None:
    needle = " ".join(target.split())
    fixed = _unjudge(needle)

    def fn(text: str) -> str:
        flat = " ".join(text.split()) if "\n" not in text else text
        return flat.replace(needle, fixed) if needle in flat else text

    _map_text(doc, fn)


def _split_long(sentence: str, limit: int = 20) -> str:
    if len(_words(sentence)) <= limit:
        return sentence
    for sep in ("; ", ", and ", ", but ", ", so ", " and then ", ", then "):
        i = sentence.find(sep, len(sentence) // 4)
        if i > 0:
            head = _end(sentence[:i].rstrip(",;"))
            tail = sentence[i + len(sep):].strip()
            if len(_words(head)) >= 4 and len(_words(tail)) >= 4:
                return head + " " + _cap(_split_long(tail, limit))
    return sentence


def _simplify_text(text: str) -> str:
    """Plainer words and shorter sentences, line by line, so lists and headings stay."""
    out = []
    for line in text.split("\n"):
        if not line.strip() or line.lstrip().startswith("#"):
            out.append(line)
            continue
        prefix, body = re.match(r"^(\s*(?:[-*+]\s+|\d+[.)]\s+)?)(.*)$", line).groups()
        out.append(prefix + " ".join(_split_long(s) for s in _sentences(_plain(body))))
    return "\n".join(out)


def _hard(sentence: str) -> bool:
    words = _words(sentence)
    return len(words) >= 12 and sum(_syllables(w) for w in words) / len(words) > 1.9


def _drop_hard_sentences(text: str) -> str:
    """Cuts jargon-heavy sentences from a paragraph while two or more sentences remain."""
    paras = text.split("\n\n")
    sentences = _sentences(paras[0])
    while len(sentences) > 2 and any(_hard(s) for s in sentences):
        sentences.remove(next(s for s in reversed(sentences) if _hard(s)))
    return "\n\n".join([" ".join(sentences), *paras[1:]])


def _shorten_step(step: str, limit: int = SHORT_STEP_WORDS) -> str:
    sentences = _sentences(step)
    kept: list[str] = []
    for s in sentences[:2]:
        if kept and len(_words(" ".join(kept + [s]))) > limit:
            break
        kept.append(s)
    out = " ".join(kept)
    if len(_words(out)) > LONG_STEP_WORDS:
        words = out.split()
        cut = " ".join(words[:limit])
        if "," in cut:
            cut = cut.rsplit(",", 1)[0]
        out = _end(cut.rstrip(",;:"))
    return out


def _shorten_purpose(text: str, keep: int = 3) -> str:
    paras = text.split("\n\n")
    sentences = _sentences(paras[0])
    if len(sentences) <= keep:
        return text
    ranked = sorted(range(len(sentences)), key=lambda i: (
        0 if _validating_count(sentences[i]) else 1 if i == 0 else
        2 if " in mind: " in sentences[i] else 3, i))
    chosen = sorted(ranked[:keep])
    return "\n\n".join([" ".join(sentences[i] for i in chosen), *paras[1:]])


_STOP = frozenset("""about after again also before down each every from have into like more
once over some such than that their them then there these they this those through until
what when where which while with your yours yourself""".split())


def _content_words(text: str) -> set[str]:
    first = (_sentences(text) or [text])[0]
    return {w for w in _norm(first).split() if len(w) > 3 and w not in _STOP}


def _same_step(a: str, b: str) -> bool:
    """The same step, or one that does the same job (most of its key words shared)."""
    na, nb = _norm(_unjudge(a)).split(), _norm(_unjudge(b)).split()
    k = min(5, len(na), len(nb))
    if k >= 3 and na[:k] == nb[:k]:
        return True
    ca, cb = _content_words(a), _content_words(b)
    shared = len(ca & cb)
    return shared >= 2 and shared >= 0.5 * min(len(ca), len(cb))


def _top_up_steps(doc: _Doc, ctx: _Context, target: int) -> None:
    pool = _template_steps(ctx) + [ctx.fill(s) for s in ctx.template["extra_steps"]]
    for candidate in pool:
        if len(doc.steps) >= target:
            break
        if not any(_same_step(candidate, s) for s in doc.steps):
            doc.steps.append(candidate)


def _trim_steps(doc: _Doc, limit: int, protected: list[str]) -> None:
    while len(doc.steps) > limit:
        for i in range(len(doc.steps) - 2, -1, -1):
            if not any(_topic_in(t, doc.steps[i]) for t in protected):
                del doc.steps[i]
                break
        else:
            del doc.steps[-2]


def _topic_key(topic: str) -> str:
    words = [w for w in _norm(topic).split() if w not in
             ("a", "an", "the", "some", "my", "your", "their", "about", "how", "to")]
    return " ".join(words[:4])


def _topic_in(topic: str, text: str) -> bool:
    key = _topic_key(topic)
    if not key:
        return False
    stem = key.split()[0][:5] if len(key.split()) == 1 else key
    return stem in _norm(text)


def _topic_step(ctx: _Context, topic: str) -> str | None:
    low = topic.lower()
    for keys, step in lib.TOPIC_STEPS:
        if any(k in low for k in keys):
            return ctx.fill(step)
    safe = _safe_fragment(topic, max_words=8)
    if not safe:
        return None
    return (f"Spend a few minutes on {safe[:1].lower() + safe[1:]}, in whatever way feels "
            f"manageable for you.")


def _make_imperative(step: str) -> str:
    if _is_imperative(step):
        return step
    stripped = re.sub(
        r"^(you (could|can|might|should|may|will|need to|want to|are going to)|"
        r"try to|please|it is (helpful|important|useful|good) to|it helps to|"
        r"the (client|patient|person) (should|will|can)|they (should|will|can)|"
        r"we (will|can)|let's)\s+", "", step.strip(), flags=re.I)
    words = _words(stripped)
    if len(words) > 1 and words[0].lower() == "you" and words[1].lower() in lib.IMPERATIVE_VERBS:
        stripped = stripped.split(None, 1)[1]
    stripped = _cap(stripped)
    if _is_imperative(stripped):
        return stripped
    # A statement ("Worries are reviewed at worry time.") becomes something to make happen.
    return "Make sure " + stripped[:1].lower() + stripped[1:] if not re.match(
        r"(I|I'm|I've)\b", stripped) else "Try this: " + stripped


def _second_person(text: str) -> str:
    text = re.sub(r"\b(the |each |every )?(client|patient|participant|individual|user|"
                  r"person)s?\b", "you", text, flags=re.I)
    text = re.sub(r"\b(his or her|his/her|their)\b", "your", text, flags=re.I)
    for wrong, right in (("you is", "you are"), ("you has", "you have"),
                         ("you was", "you were"), ("you does", "you do")):
        text = re.sub(r"\b" + wrong + r"\b", right, text, flags=re.I)
    text = re.sub(r"\b(you|You) (should |will |can )?([a-z]+)\b",
                  lambda m: f"{m.group(1)} {m.group(2) or ''}{_base_verb(m.group(3))}", text)
    return re.sub(r"(^|[.!?]\s+)you\b", lambda m: m.group(1) + "You", text)


def _base_verb(word: str) -> str:
    """"learns" -> "learn", "reaches" -> "reach", "tries" -> "try" for known verbs."""
    for suffix, repl in (("ies", "y"), ("es", ""), ("s", "")):
        if word.endswith(suffix) and word[: -len(suffix)] + repl in lib.IMPERATIVE_VERBS:
            return word[: -len(suffix)] + repl
    return word


def _restructure_lead(doc: _Doc) -> None:
    """Sorts loose sentences (a draft flattened into paragraphs) back into sections, reading
    them in the order an exercise is written: purpose, steps, reflection, safety."""
    purpose: list[str] = []
    steps: list[str] = []
    reflection: list[str] = []
    safety: list[str] = []
    phase = "purpose"
    for para in doc.lead:
        units: list[tuple[str, bool]] = []
        for line in para.split("\n"):
            m = _NUMBERED.match(line) or _BULLET.match(line)
            units += [(m.group(m.re.groups), True)] if m else [(u, False) for u in
                                                                _sentences(line)]
        for unit, listed in units:
            if unit.rstrip().endswith("?"):
                reflection.append(unit)
                phase = "reflection" if phase != "safety" else phase
            elif listed:
                steps.append(unit)
                phase = "steps"
            elif _CRISIS.search(unit) or phase in ("reflection", "safety") or (
                    phase == "steps" and _PROFESSIONAL.search(unit)
                    and re.match(r"(if|this exercise|when)\b", unit, re.I)):
                safety.append(unit)
                phase = "safety"
            elif phase == "steps" and (_validating_count(unit) or not _is_imperative(unit)):
                steps[-1] = steps[-1] + " " + unit  # a step's second sentence
            elif _is_imperative(unit):
                steps.append(unit)
                phase = "steps"
            else:
                purpose.append(unit)
    while len(steps) > MAX_STEPS:
        i = min(range(len(steps) - 1), key=lambda k: len(steps[k]) + len(steps[k + 1]))
        steps[i:i + 2] = [steps[i] + " " + steps[i + 1]]
    doc.lead = []
    doc.purpose = " ".join([*purpose, doc.purpose]).strip()
    doc.steps += steps
    doc.reflection += reflection
    doc.safety = " ".join([doc.safety, *safety]).strip()


def _warm(doc: _Doc, ctx: _Context, visibly: bool = False) -> None:
    _map_text(doc, _unjudge)
    if not _validating_count(doc.purpose):
        doc.purpose = (ctx.fill(ctx.template["warm"]) + " " + doc.purpose).strip()
    for i, step in enumerate(doc.steps):
        for core, warm in ctx.template["steps"]:
            if warm and _same_step(ctx.fill(core), step) and not _validating_count(step) \
                    and ctx.fill(warm) not in step:
                doc.steps[i] = step + " " + ctx.fill(warm)
                break
    if _validating_count(doc.all_text()) < 4 and doc.steps:
        kind = "Be kind to yourself as you practise this."
        if kind not in doc.steps[-1]:
            doc.steps[-1] = _end(doc.steps[-1]) + " " + kind
    if visibly or _validating_count(doc.all_text()) < 4:
        closing = "Take your time; there is no right or wrong way to do this."
        if closing not in doc.purpose:
            doc.purpose = _end(doc.purpose) + " " + closing


def _self_screen(doc: _Doc, ctx: _Context) -> None:
    """Nothing the safety screen flags leaves the drafter, whoever wrote it first."""
    for _ in range(4):
        flags = _screen(_render(doc)).flags
        if not flags:
            return
        for flag in flags:
            if not _remove_text(doc, flag.text):
                # A flag spanning lines: drop whatever item holds its first words.
                head = " ".join(flag.text.split()[:6])
                doc.steps = [s for s in doc.steps if head not in s]
                doc.reflection = [q for q in doc.reflection if head not in q]
        _fill_empty(doc, ctx)


def _fill_empty(doc: _Doc, ctx: _Context) -> None:
    if not doc.title.strip():
        doc.title = _title(ctx)
    if not _words(doc.purpose):
        doc.purpose = _purpose(ctx, warm=True)
    if not doc.steps:
        doc.steps = _template_steps(ctx)
    if not doc.reflection:
        doc.reflection = [ctx.fill(q) for q in ctx.template["reflection"][:3]]
    if not _words(doc.safety):
        doc.safety = _safety_note(ctx)


def _revise(doc: _Doc, ctx: _Context, asks: _Asks) -> _Doc:
    for sentence in asks.remove:
        _remove_text(doc, sentence)
    for sentence in asks.rephrase:
        _rephrase(doc, sentence)
    if asks.judgemental:
        _map_text(doc, _unjudge)
    for topic in asks.remove_topics:
        if _topic_key(topic):
            doc.steps = [s for s in doc.steps if not _topic_in(topic, s)]
            doc.reflection = [q for q in doc.reflection if not _topic_in(topic, q)]
    if doc.lead and "steps" not in doc.found:
        _restructure_lead(doc)
    elif doc.lead:
        doc.purpose = "\n\n".join([*doc.lead, doc.purpose]).strip()
        doc.lead = []
    if asks.title and (title := _safe_fragment(asks.title, max_words=10)):
        doc.title = _cap(title)

    if asks.purpose and len(_words(doc.purpose)) < 12:
        doc.purpose = (doc.purpose + " " + _purpose(ctx, warm=True)).strip()
    if asks.second_person:
        _map_text(doc, _second_person)
    if asks.imperative:
        doc.steps = [_make_imperative(s) for s in doc.steps]
    if asks.shorten_steps or asks.shorten:
        doc.steps = [_shorten_step(s) if asks.shorten or len(_words(s)) > LONG_STEP_WORDS
                     else s for s in doc.steps]
    if asks.shorten:
        doc.purpose = _shorten_purpose(doc.purpose)
        protected = asks.add_topics
        _trim_steps(doc, max(MIN_STEPS + 1, min(len(doc.steps), 6)), protected)
        doc.reflection = doc.reflection[:3]
        safety = _sentences(doc.safety)
        if len(safety) > 3:
            keep = [s for s in safety if _CRISIS.search(s) or _PROFESSIONAL.search(s)]
            doc.safety = " ".join(keep[:3] or safety[:2])
    if asks.simplify:
        doc.purpose = _drop_hard_sentences(doc.purpose)
        _map_text(doc, _simplify_text)
        doc.title = _plain(doc.title)

    if (asks.more_steps or "steps" not in doc.found) and len(doc.steps) < MIN_STEPS:
        _top_up_steps(doc, ctx, len(ctx.template["steps"]))
    if asks.extra_step:
        # Feedback is cumulative, so "add a step" must not add one on every revision.
        _top_up_steps(doc, ctx, min(len(ctx.template["steps"]) + 1, MAX_STEPS))
    if asks.lengthen:
        _top_up_steps(doc, ctx, min(MAX_STEPS, max(len(doc.steps) + 1, 7)))
    if asks.fewer_steps:
        _trim_steps(doc, MAX_STEPS, asks.add_topics)
    for topic in asks.add_topics:
        if _topic_in(topic, " ".join(doc.steps)):
            continue
        step = _topic_step(ctx, topic)
        if step and not any(_same_step(step, s) for s in doc.steps):
            _trim_steps(doc, MAX_STEPS - 1, asks.add_topics)
            doc.steps.insert(max(0, len(doc.steps) - 1), step)

    questions = [ctx.fill(q) for q in ctx.template["reflection"]]
    wanted = 4 if asks.lengthen else 3 if asks.reflection else 0
    if asks.extra_question:
        wanted = 4
    for q in questions:
        if len(doc.reflection) >= wanted:
            break
        if not any(_norm(q) == _norm(r) for r in doc.reflection):
            doc.reflection.append(q)

    if asks.warm:
        _warm(doc, ctx, visibly=asks.warmer)
    if asks.safety_note and not _words(doc.safety):
        doc.safety = _safety_note(ctx)
    if (asks.crisis or asks.safety_note) and not _CRISIS.search(doc.safety):
        doc.safety = (_end(doc.safety) + " " + _crisis_line(ctx)).strip()
    if (asks.professional or asks.safety_note) and not _PROFESSIONAL.search(doc.safety):
        doc.safety = (_end(doc.safety) + " " + lib.PROFESSIONAL_LINE).strip()
    _fill_empty(doc, ctx)
    return doc


def draft_protocol(task: DraftTask) -> ProtocolDraft:
    ctx = _context(task.input)
    asks = _read_asks(task)
    if task.previous and task.previous.strip():
        doc = _revise(parse_protocol(task.previous), ctx, asks)
    else:
        doc = _first_draft(ctx)
        if task.notes or task.feedback:
            doc = _revise(parse_protocol(_render(doc)), ctx, asks)
    _self_screen(doc, ctx)
    return _to_draft(doc)


# ======================================================================================
# The critics
# ======================================================================================
