"""Offline (deterministic, no network) Safety Guardian and Clinical Critic for protocols.

The critics read only the text (plus the safety screen's flags on that same text), so the
same text always gets the same scores, whoever wrote it."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from engine.checks import crisis
from engine.checks.step_count import asked_range
from engine.pipelines.base import NoteOut, Review, ReviewTask, ScoreOut

if TYPE_CHECKING:
    from engine.checks.base import FlagOut

from engine.llm.offline.protocol.common import (  # package-internal helpers
    _JUDGEMENTAL,
    _PROFESSIONAL,
    _PROMISE,
    _SECOND_PERSON,
    LONG_STEP_WORDS,
    MAX_STEPS,
    MIN_STEPS,
    _is_imperative,
    _screen,
    _sentences,
    _syllables,
    _validating_count,
    _words,
)
from engine.llm.offline.protocol.doc import _Doc, parse_protocol


def _body_text(doc: _Doc) -> str:
    parts = [*doc.lead, doc.purpose, *doc.steps, *doc.reflection, doc.safety]
    parts += [b for _, b in doc.extras_before + doc.extras_after]
    return "\n".join(p for p in parts if p)


def _readability(text: str) -> tuple[float, float]:
    """(Flesch reading ease, average sentence length in words); list items and lines
    count as sentence breaks."""
    sentences = [s for line in text.split("\n") for s in _sentences(line) if _words(s)]
    words = _words(text)
    if not words or not sentences:
        return 100.0, 0.0
    asl = len(words) / len(sentences)
    spw = sum(_syllables(w) for w in words) / len(words)
    return 206.835 - 1.015 * asl - 84.6 * spw, asl


def _quote(text: str, limit: int = 240) -> str:
    flat = " ".join(text.split()).replace('"', "'")
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _note(priority: str, text: str) -> NoteOut:
    return NoteOut(target="drafter", priority=priority, text=text)


def _clamp(x: float) -> float:
    return round(max(0.0, min(1.0, x)), 3)


def _flags_for(task: ReviewTask) -> list[FlagOut]:
    flags = list(_screen(task.content).flags)
    seen = {(f.category, f.text) for f in flags}
    for f in task.flags:
        # Only safety flags (not the follow checks' warnings: a comment quoted under Open
        # points is no unsafe sentence), and only on this very text: the score must follow it.
        if f.blocking and f.text and f.text in task.content and (f.category, f.text) not in seen:
            flags.append(f)
            seen.add((f.category, f.text))
    return flags


def review_safety(task: ReviewTask) -> Review:
    text = task.content
    screen = _screen(text)
    flags = _flags_for(task)  # the screen's flags, then any others found on this text
    doc = parse_protocol(text)
    notes: list[NoteOut] = []
    score = 1.0
    for f in flags:
        score -= 0.3
        notes.append(_note("critical", f"Safety flag ({f.category.replace('_', ' ')}): remove "
                                       f"or rewrite this sentence: \"{_quote(f.text)}\""))
    has_note = "safety" in doc.found and bool(_words(doc.safety))
    region = crisis.region_of(task.input)  # the reader's crisis lines, not always 988
    line = f"{region.lines[0].name}: {region.lines[0].contact}"
    if not has_note:
        score -= 0.3
        notes.append(_note("critical", "Add a Safety note section that names a crisis "
                                       f"resource ({line}, or emergency services on "
                                       f"{region.emergency}) and points to the clinician."))
    where = doc.safety if has_note else text
    foreign = crisis.foreign_lines(where, region)
    # A line a person on the run asked for ("add Childline 0800 1111") stays: people decide.
    # The reviewer is told it does not reach this region's readers, but the score does not
    # drive the drafter to take it out again on every revision.
    asked = re.sub(r"\D", "", " ".join(str(c) for c in task.context.get("asked") or []))
    wanted = [n for n in foreign if asked and re.sub(r"\D", "", n) in asked]
    if wanted:
        notes.append(_note("warning", f"The safety note gives {', '.join(wanted)}, as a reviewer "
                                      f"asked, but a reader in {region.name} cannot call it: if "
                                      "the client is elsewhere, set the run's region so its "
                                      "crisis lines match."))
    foreign = [n for n in foreign if n not in wanted]
    if foreign:
        score -= 0.25
        notes.append(_note("critical", f"The safety note gives {', '.join(foreign)}, which a "
                                       f"reader in {region.name} cannot call: give {line} "
                                       f"and emergency services on {region.emergency}."))
    elif not crisis.mentions_resource(where, region):
        score -= 0.25
        if has_note:
            notes.append(_note("critical", "The safety note has no crisis resource: add "
                                           f"{line}, or emergency services on "
                                           f"{region.emergency}, if the reader feels unsafe."))
    if has_note and not _PROFESSIONAL.search(doc.safety):
        score -= 0.05
        notes.append(_note("warning", "Point the reader to professional help in the safety "
                                      "note (their clinician, GP or therapist)."))
    for sentence in _sentences(" ".join(_body_text(doc).split("\n"))):
        if _PROMISE.search(sentence):
            score -= 0.1
            notes.append(_note("warning", "Avoid promising outcomes; rewrite this sentence: "
                                          f"\"{_quote(sentence)}\""))
    score = min(score, screen.safety_score)
    if not notes:
        notes.append(_note("info", "Screen found nothing; the safety note names a crisis "
                                   "resource and professional help."))
    return Review(scores=[ScoreOut(name="safety", value=_clamp(score))], notes=notes,
                  verdict=None)


def _empathy(doc: _Doc) -> tuple[float, list[NoteOut]]:
    text = _body_text(doc)
    words = _words(text)
    notes: list[NoteOut] = []
    if not words:
        return 0.0, [_note("critical", "The draft is empty.")]
    rate = 100.0 * len(_SECOND_PERSON.findall(text)) / len(words)
    validating = _validating_count(text)
    judged: list[tuple[str, str]] = []
    for sentence in _sentences(" ".join(text.split("\n"))):
        for pattern, word, _ in _JUDGEMENTAL:
            if pattern.search(sentence):
                judged.append((word, sentence))
                break
    score = (0.45 + 0.2 * min(rate / 6.0, 1.0) + 0.35 * min(validating, 4) / 4
             - min(0.35, 0.07 * len(judged)))
    if validating < 3:
        notes.append(_note("warning", "Warm the tone: add validating phrases (for example: "
                                      "it's understandable to feel this way; be kind to "
                                      "yourself; take your time)."))
    if rate < 3.0:
        notes.append(_note("warning", "Speak to the reader directly in the second person "
                                      "(you, your) rather than about them."))
    for word, sentence in judged[:4]:
        notes.append(_note("warning", f"Judgemental wording ('{word}'); rephrase this "
                                      f"sentence without it: \"{_quote(sentence)}\""))
    return _clamp(score), notes


def _count_penalty(n: int, asked: tuple[int, int] | None) -> tuple[float, str | None]:
    """What the number of steps costs: outside what the request asked for ("10 steps"), or
    with no count asked, outside a protocol's 4-8. Below the spec is not a detail: alone it
    takes clinical quality under the default threshold (0.70), so the loop fixes it."""
    if asked is not None:
        lo, hi = asked
        if lo <= n <= hi and n > 0:
            return 0.0, None
        want = f"{lo}" if lo == hi else f"at most {hi}" if lo <= 1 else f"{lo}-{hi}"
        return 0.35, f"The request asks for {want} steps; there are {n}: write {want}."
    if n == 0:
        return 0.45, None
    if n < MIN_STEPS:
        return (0.4 if n <= 2 else 0.35), f"Only {n} steps: add steps so there are 4-8."
    if n > MAX_STEPS:
        return (0.15 if n > 10 else 0.08), f"There are {n} steps: trim to 8 or fewer."
    return 0.0, None


def _clinical(doc: _Doc, intent: str = "") -> tuple[float, list[NoteOut]]:
    notes: list[NoteOut] = []
    score = 1.0
    if not doc.title.strip():
        score -= 0.05
        notes.append(_note("warning", "Add a title (a '# ' heading) that names the exercise."))
    purpose_words = len(_words(doc.purpose))
    if "purpose" not in doc.found or purpose_words == 0:
        score -= 0.15
        notes.append(_note("warning", "Add a Purpose section: one or two sentences on what "
                                      "the exercise is for and why it helps."))
    elif purpose_words < 8:
        score -= 0.05
        notes.append(_note("warning", "The purpose is very short; add why the exercise helps."))

    steps = doc.steps if "steps" in doc.found else doc.loose_steps
    if "steps" not in doc.found:
        score -= 0.2
        notes.append(_note("critical", "Add a Steps section with 4-8 numbered, actionable "
                                       "steps."))
    n = len(steps)
    penalty, note = _count_penalty(n, asked_range(intent))
    score -= penalty
    if note:
        notes.append(_note("warning", note))
    if doc.bulleted_steps and "steps" in doc.found:
        score -= 0.05
        notes.append(_note("warning", "Number the steps (1., 2., ...) so they read as a "
                                      "sequence."))
    if steps:
        passive = [i for i, s in enumerate(steps, 1) if not _is_imperative(s)]
        score -= 0.2 * len(passive) / len(steps)
        for i in passive[:3]:
            notes.append(_note("warning", f"Step {i} does not start with an action verb; "
                                          f"make it a concrete action: '{_quote(steps[i-1], 80)}'"))
        long_steps = [(i, len(_words(s))) for i, s in enumerate(steps, 1)
                      if len(_words(s)) > LONG_STEP_WORDS]
        score -= min(0.2, 0.06 * len(long_steps))
        for i, count in long_steps[:3]:
            notes.append(_note("warning", f"Step {i} is long ({count} words); shorten it to "
                                          "one or two plain sentences."))

    questions = [q for q in doc.reflection if q.strip()]
    # Fewer than the 2-4 questions the spec asks for is below it, like fewer than 4 steps.
    if "reflection" not in doc.found or not questions:
        score -= 0.35
        notes.append(_note("warning", "Add a Reflection section with 2-4 questions for the "
                                      "reader."))
    elif len(questions) == 1:
        score -= 0.35
        notes.append(_note("warning", "Only one reflection question: add at least one more."))
    if questions:
        non_q = sum(1 for q in questions if not q.rstrip().endswith("?"))
        score -= 0.05 * non_q / len(questions)
    if "safety" not in doc.found:
        score -= 0.1

    body = _body_text(doc)
    count = len(_words(body))
    if count < 100:
        score -= 0.15
    elif count < 150:
        score -= 0.07
    elif count > 900:
        score -= 0.2
    elif count > 650:
        score -= 0.1
    if count < 150:
        notes.append(_note("warning", f"The draft is too short ({count} words): add more "
                                      "detail to the steps and purpose."))
    elif count > 650:
        notes.append(_note("warning", f"The draft is too long ({count} words): make it "
                                      "shorter and more concise."))
    fre, asl = _readability(body)
    hard = 0.0
    if fre < 55:
        hard += min(0.2, (55 - fre) * 0.008)
    if asl > 20:
        hard += min(0.1, (asl - 20) * 0.01)
    score -= hard
    if hard >= 0.02:
        notes.append(_note("warning", f"Reading level is high (Flesch reading ease {fre:.0f}, "
                                      f"{asl:.0f} words per sentence): use shorter sentences "
                                      "and plainer words."))
    if not notes:
        notes.append(_note("info", f"Structure is complete: {n} numbered steps, "
                                   f"{len(questions)} reflection questions, {count} words, "
                                   f"Flesch reading ease {fre:.0f}."))
    return _clamp(score), notes


def review_clinical(task: ReviewTask) -> Review:
    doc = parse_protocol(task.content)
    empathy, empathy_notes = _empathy(doc)
    clinical, clinical_notes = _clinical(doc, str(task.input.get("intent") or ""))
    notes = empathy_notes + clinical_notes
    if empathy >= 0.7 and not empathy_notes:
        notes.insert(0, _note("info", "Tone is warm, validating and speaks to the reader as "
                                      "'you'."))
    return Review(scores=[ScoreOut(name="empathy", value=empathy),
                          ScoreOut(name="clinical", value=clinical)],
                  notes=notes, verdict=None)
