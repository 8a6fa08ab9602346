"""The offline Drafter's first draft: an exercise composed from the template library
(library.py), fitted to the intent and audience. A first draft is not always perfect: a hash
of the input picks a weakness a real first draft might have (a colder tone, a missing crisis
line, padded steps...), so the loop has something to revise."""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING

from engine.checks import crisis, step_count
from engine.checks.terms import terms, word_set
from engine.llm.offline.protocol import library as lib

if TYPE_CHECKING:
    pass

from engine.llm.offline.protocol.common import (  # package-internal helpers
    _Context,
    _screen,
)
from engine.llm.offline.protocol.doc import _Doc

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
    # The handout speaks to the client: its own situation in second person ("elevators", "the
    # thought 'your boss hates you'"), never the clinician's description of them pasted in
    # ("BA plan for depressed retiree who ...").
    if about := (ctx.feared if ctx.situated == "exposure" else None) or ctx.focus or ctx.event:
        sentences.append(f"It is built around your own situation: {about}.")
    if profile_line:
        sentences.append(ctx.fill(ctx.profile["line"]))
    return " ".join(sentences)


# Words of time and work most requests and steps share: no sign a step is about the request.
_EVERYDAY = frozenset(("hour", "day", "week", "time", "minut", "work", "worker", "night",
                       "morn", "morning", "even", "evening", "year", "month", "today", "keep"))


@cache
def _own_terms(exercise: str) -> frozenset[str]:
    """A technique's own words ("sleep", "thought record"): they say nothing about the request.
    Read once per technique, not on every draft."""
    tpl = lib.TEMPLATES[exercise]
    return frozenset(terms(" ".join([tpl["title"], *tpl.get("names", []),
                                     *tpl.get("keywords", {})])))


def _counted(ctx: _Context, steps: list[str]) -> list[str]:
    """The steps grown or cut to the count the request asks for ("10 steps"): a ladder gains
    rungs in order of difficulty, each after the template step it follows; other techniques
    their extra steps before the closing one. Cut from the step before the last (the last
    closes the exercise)."""
    want = step_count.target(ctx.intent, len(steps))
    more = [(k, ctx.fill(t)) for k, t in ctx.template.get("rungs", [])]
    # An extra step about what the request itself says ("naps in the afternoon": the step on
    # naps) comes first, and one is added even when no count was asked for.
    asked = terms(ctx.intent, word_set("generic", "protocol")) - _own_terms(ctx.exercise) \
        - _EVERYDAY
    extras = [ctx.fill(t) for t in ctx.template.get("extra_steps", [])]
    relevant = [t for t in extras if terms(t) & asked]
    if relevant and step_count.asked_range(ctx.intent) is None:
        want = min(ctx.most_steps, want + 1)
    more += [(len(steps) - 2, t) for t in relevant + [t for t in extras if t not in relevant]]
    chosen = more[:max(0, want - len(steps))]
    out: list[str] = []
    for i, step in enumerate(steps):
        out.append(step)
        out += [t for k, t in chosen if k == i]
    # A short ladder keeps its rungs up to facing it alone: the template says what goes first.
    for i in ctx.template.get("trim_first", []):
        if len(out) > max(want, 1) and steps[i] in out:
            out.remove(steps[i])
    while len(out) > max(want, 1) and len(out) > 1:
        del out[-2]
    return out


def _minimised(step: str, word: str) -> str:
    """A cold first draft's "Simply"/"Just" before the step's verb, after any lead-in ("Next,
    just spend ...", never "Just next, spend ...")."""
    lead = re.match(r"(?:(?:Next|Then),|[A-Z][a-z ]{2,20}:)\s+", step)
    at = lead.end() if lead else 0
    said = word.lower() if at else word
    return f"{step[:at]}{said} {step[at].lower()}{step[at + 1:]}"


def _template_steps(ctx: _Context, warm: bool = True) -> list[str]:
    steps = [ctx.fill(core + (" " + w if warm and w else "")) for core, w in
             ctx.template["steps"]]
    frame = {None: "", "urges": "urges_"}.get(ctx.situated)
    if ctx.focus and frame is not None and len(steps) >= 2:
        # No steps built on this situation (or, for urges, on what sets them off): start
        # from it and come back to it.
        # A technique may have frames of its own (behavioural activation: what the person
        # used to enjoy).
        frames = lib.FOCUS_FRAMES.get(ctx.exercise) or lib.FOCUS_FRAMES
        first = ctx.fill(frames[frame + "first"])
        steps[0] = first + steps[0][:1].lower() + steps[0][1:]
        steps[-1] = steps[-1] + ctx.fill(frames[frame + "last"])
    return steps


def _crisis_line(ctx: _Context) -> str:
    """The reader's region's crisis line (never another region's: 988 means nothing in the
    UK), with the audience's extra line (the region's own for veterans)."""
    region = crisis.region(ctx.region)
    extra = (region.veterans if ctx.profile["key"] == "veterans"
             else lib.CRISIS_EXTRA.get(ctx.profile["key"]))
    for candidate in region.note:
        line = candidate + (" " + ctx.fill(extra) if extra else "")
        if not _screen(line).flags:
            return line
    return region.note[0]


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
    doc.steps = _counted(ctx, _template_steps(ctx, warm=not cold))
    if short := ctx.feared_short:  # the place said in the first steps, not in every one
        doc.steps[2:] = [s.replace(ctx.feared or "", short) for s in doc.steps[2:]]
    reflection = [ctx.fill(q) for q in ctx.template["reflection"]]
    doc.reflection = reflection[:3]
    doc.safety = _safety_note(ctx, crisis=variant not in ("no_crisis", "cold_no_crisis"))
    if cold:
        for i, word in ((1, "Simply"), (4, "Just")):
            if i < len(doc.steps):  # a request may ask for fewer steps
                doc.steps[i] = _minimised(doc.steps[i], word)
    elif variant == "wordy":
        for i in (0, 2, 4, 5):
            if i < len(doc.steps):
                doc.steps[i] += " " + " ".join(lib.WORDY_CLAUSES)
        doc.purpose += " " + lib.WORDY_CLAUSES[1]
    elif variant == "thin":  # short, but its last step still comes back to the request
        doc.steps = doc.steps[:2] + doc.steps[-1:]
        doc.reflection = []
    elif variant == "few_reflection":
        doc.reflection = reflection[:1]
    return doc
