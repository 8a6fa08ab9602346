"""The offline Drafter's edits to a parsed protocol draft: remove, rephrase, simplify,
shorten, add topic steps, warm up, make imperative. Each keeps what a person wrote wherever
it can."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from engine import markdown as md
from engine.llm.offline.protocol import library as lib

if TYPE_CHECKING:
    pass

from engine.llm.offline.protocol.comment_edits import imperative
from engine.llm.offline.protocol.common import (  # package-internal helpers
    _CRISIS,
    _JUDGEMENTAL,
    _PROFESSIONAL,
    LONG_STEP_WORDS,
    MAX_STEPS,
    SHORT_STEP_WORDS,
    _cap,
    _Context,
    _end,
    _is_imperative,
    _match_case,
    _norm,
    _plain,
    _safe_fragment,
    _screen,
    _sentences,
    _syllables,
    _tidy,
    _topic_in,
    _validating_count,
    _words,
)
from engine.llm.offline.protocol.compose import _purpose, _safety_note, _template_steps, _title
from engine.llm.offline.protocol.doc import _Doc, _render


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
    text = re.sub(r"\b((?:Next|Then),\s+)(?:just|simply)\s+", r"\1", text, flags=re.I)
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


_WHAT_FOR = re.compile(r"\bthis (?:exercise|plan|worksheet|routine|schedule)\b.*\b(?:helps?|is "
                       r"for|lets you|shows you)\b", re.I)
_OWN_SITUATION = re.compile(r" in mind: |built around your own situation", re.I)


def _shorten_purpose(text: str, keep: int = 3) -> str:
    paras = text.split("\n\n")
    sentences = _sentences(paras[0])
    if len(sentences) <= keep:
        return text
    # Kept first: one validating sentence, then what the exercise is for, then the opening
    # one and any other validating sentence.
    warm = [i for i, x in enumerate(sentences) if _validating_count(x)]
    ranked = sorted(range(len(sentences)), key=lambda i: (
        0 if warm and i == warm[0] else 1 if _WHAT_FOR.search(sentences[i]) else
        2 if i in warm or i == 0 else 3 if _OWN_SITUATION.search(sentences[i]) else 4, i))
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
    pool += [ctx.fill(s) for _, s in ctx.template.get("rungs", [])]
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


def _topic_step(ctx: _Context, topic: str) -> str | None:
    if step := imperative(topic):  # "add a step about riding one floor": that action
        return step
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
            m = md.NUMBERED.match(line) or md.BULLET.match(line)
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
