"""When a drafter's input is longer than the model's context window: trim it, one step at a
time, keeping what the revision most needs (the intent, the last draft, the critical notes,
the latest human comment) and dropping what is oldest or least pressing first.

A small local model (8k tokens) overflows on a campaign's later stages or a long revision
history; failing the run there, with nothing a person can do but retry, helped nobody. Each
trim is said in the call's recorded request, so the trace shows what the model did not see.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.pipelines.base import DraftTask

PREVIOUS_KEEP = 6000
"""Characters of the previous draft kept at the last step (its opening, whole sections)."""

_Step = tuple[str, Callable[[DraftTask], DraftTask | None]]


def _drop_notes(priority: str) -> Callable[[DraftTask], DraftTask | None]:
    def trim(t: DraftTask) -> DraftTask | None:
        kept = [n for n in t.notes if n.priority != priority]
        return t.model_copy(update={"notes": kept}) if len(kept) < len(t.notes) else None
    return trim


def _latest_feedback(t: DraftTask) -> DraftTask | None:
    if len(t.feedback) <= 1:
        return None
    return t.model_copy(update={"feedback": t.feedback[-1:]})


def _no_context(t: DraftTask) -> DraftTask | None:
    return t.model_copy(update={"context": {}}) if t.context else None


def _few_critical(t: DraftTask) -> DraftTask | None:
    return t.model_copy(update={"notes": t.notes[:3]}) if len(t.notes) > 3 else None


def _cut_previous(t: DraftTask) -> DraftTask | None:
    if t.previous is None or len(t.previous) <= PREVIOUS_KEEP:
        return None
    cut = t.previous[:PREVIOUS_KEEP].rsplit("\n\n", 1)[0]
    return t.model_copy(update={"previous": cut + "\n\n[... the rest of the draft is cut]"})


STEPS: tuple[_Step, ...] = (
    ("info notes", _drop_notes("info")),
    ("warning notes", _drop_notes("warning")),
    ("older human comments (the latest kept)", _latest_feedback),
    ("earlier stages' context", _no_context),
    ("critical notes beyond the first three", _few_critical),
    (f"the previous draft beyond its first {PREVIOUS_KEEP} characters", _cut_previous),
)


def trim_step(task: object) -> tuple[DraftTask, str] | None:
    """The task one step smaller and what was dropped, or None when nothing is left to trim
    (or the task is not a drafter's)."""
    if not isinstance(task, DraftTask):
        return None
    for what, step in STEPS:
        smaller = step(task)
        if smaller is not None:
            return smaller, what
    return None
