"""Offline (deterministic, no network) Drafter for protocols.

A first draft is composed from the template library (compose.py). Revisions parse the
previous Markdown into sections and answer the notes and human feedback (asks.py) on that
text with edits (edits.py), so what a person wrote is kept wherever it can be. The critics
are in critics.py."""

from __future__ import annotations

from difflib import SequenceMatcher
from typing import TYPE_CHECKING

from engine.checks import crisis, step_count
from engine.checks.feedback_coverage import SHORTER
from engine.llm.offline.protocol import library as lib
from engine.pipelines.base import DraftTask

if TYPE_CHECKING:
    from engine.pipelines.protocol.models import ProtocolDraft

from engine.llm.offline.protocol.asks import _Asks, _read_asks
from engine.llm.offline.protocol.common import (  # package-internal helpers
    _CRISIS,
    _PROFESSIONAL,
    FEWER_STEPS,
    LONG_STEP_WORDS,
    MIN_STEPS,
    _cap,
    _Context,
    _end,
    _norm,
    _plain,
    _safe_fragment,
    _sentences,
    _topic_in,
    _topic_key,
    _words,
)
from engine.llm.offline.protocol.compose import _crisis_line, _first_draft, _purpose, _safety_note
from engine.llm.offline.protocol.doc import _Doc, _render, _to_draft, parse_protocol
from engine.llm.offline.protocol.edits import (
    _drop_hard_sentences,
    _fill_empty,
    _make_imperative,
    _map_text,
    _remove_text,
    _rephrase,
    _restructure_lead,
    _same_step,
    _second_person,
    _self_screen,
    _shorten_purpose,
    _shorten_step,
    _simplify_text,
    _top_up_steps,
    _topic_step,
    _trim_steps,
    _unjudge,
    _warm,
)
from engine.llm.offline.protocol.feedback import apply_feedback
from engine.llm.offline.protocol.intent import _context


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
        before = len(_words(doc.all_text()))
        doc.purpose = _shorten_purpose(doc.purpose)
        protected = asks.add_topics
        _trim_steps(doc, max(MIN_STEPS + 1, min(len(doc.steps), 6)), protected)
        doc.reflection = doc.reflection[:3]
        safety = _sentences(doc.safety)
        if len(safety) > 3:
            keep = [s for s in safety if _CRISIS.search(s) or _PROFESSIONAL.search(s)]
            doc.safety = " ".join(keep[:3] or safety[:2])
        if len(_words(doc.all_text())) > SHORTER * before:
            # Still about as long (the feedback check wants a visibly shorter text): each step
            # keeps its first sentence, the purpose two (one warm, one on what it is for), the
            # reflection two questions.
            doc.steps = [_sentences(st)[0] if _sentences(st) else st for st in doc.steps]
            doc.purpose = _shorten_purpose(doc.purpose, keep=2)
            doc.reflection = doc.reflection[:2]
    if asks.simplify:
        doc.purpose = _drop_hard_sentences(doc.purpose)
        _map_text(doc, _simplify_text)
        doc.title = _plain(doc.title)

    if (asks.more_steps or "steps" not in doc.found) and len(doc.steps) < MIN_STEPS:
        _top_up_steps(doc, ctx, len(ctx.template["steps"]))
    if asks.extra_step:
        # Feedback is cumulative, so "add a step" must not add one on every revision.
        _top_up_steps(doc, ctx, min(len(ctx.template["steps"]) + 1, ctx.most_steps))
    if asks.lengthen:
        _top_up_steps(doc, ctx, min(ctx.most_steps, max(len(doc.steps) + 1, 7)))
    if asks.fewer_steps:
        _trim_steps(doc, FEWER_STEPS if asks.fewer_asked else ctx.most_steps, asks.add_topics)
    if asks.step_limit:  # never under the minimum a protocol needs (the critic's floor)
        _trim_steps(doc, max(MIN_STEPS, asks.step_limit), asks.add_topics)
    for topic in asks.add_topics:
        if _topic_in(topic, " ".join(doc.steps)):
            continue
        step = _topic_step(ctx, topic)
        if step and not any(_same_step(step, s) for s in doc.steps):
            _trim_steps(doc, ctx.most_steps - 1, asks.add_topics)
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
    region = crisis.region(ctx.region)
    if (asks.crisis or asks.safety_note) and crisis.foreign_lines(doc.safety, region):
        # A line the reader cannot call (988 in a note for the UK) goes; the region's comes.
        doc.safety = " ".join(x for x in _sentences(doc.safety)
                              if not crisis.foreign_lines(x, region))
    if (asks.crisis or asks.safety_note) and not crisis.mentions_resource(doc.safety, region):
        doc.safety = (_end(doc.safety) + " " + _crisis_line(ctx)).strip()
    if (asks.professional or asks.safety_note) and not _PROFESSIONAL.search(doc.safety):
        doc.safety = (_end(doc.safety) + " " + lib.PROFESSIONAL_LINE).strip()
    _fill_empty(doc, ctx)
    _keep_count(doc, ctx, asks)
    return doc


def _keep_count(doc: _Doc, ctx: _Context, asks: _Asks) -> None:
    """The count the request asked for ("10 steps") holds across revisions, unless a person
    has since asked for a different one."""
    asked = step_count.asked_range(ctx.intent)
    if asked is None or asks.step_limit or asks.fewer_asked or asks.shorten:
        return
    if len(doc.steps) < asked[0]:
        _top_up_steps(doc, ctx, min(asked[0], step_count.MAX_ASKED))
    elif len(doc.steps) > asked[1]:
        _trim_steps(doc, asked[1], asks.add_topics)


def _added(step: str, had: set[str]) -> bool:
    """A step the feedback added (not one it only edited, e.g. by a replacement)."""
    return all(SequenceMatcher(a=step, b=h, autojunk=False).ratio() < 0.6 for h in had)


def draft_protocol(task: DraftTask) -> ProtocolDraft:
    ctx = _context(task.input)
    asks = _read_asks(task)
    if task.previous and task.previous.strip():
        doc = _revise(parse_protocol(task.previous), ctx, asks)
    else:
        doc = _first_draft(ctx)
        if task.notes or task.feedback:
            doc = _revise(parse_protocol(_render(doc)), ctx, asks)
    if task.feedback:
        had = set(doc.steps)
        apply_feedback(doc, ctx, task.feedback)
        if asks.step_limit:  # "add a letter step ... at most 5 steps": both, the new one kept
            limit = max(MIN_STEPS, asks.step_limit)
            while len(doc.steps) > limit and (old := [i for i, st in enumerate(doc.steps[:-1])
                                                      if not _added(st, had)]):
                del doc.steps[old[-1]]
    _self_screen(doc, ctx)
    return _to_draft(doc)
