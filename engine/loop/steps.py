"""The loop's step types: what a step opens with (StepPlan), what a review hands to its commit
(ReviewOutcome, ScoreOut), what the loop tells its listeners (StepEvent)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from engine.checks.base import FlagOut
from engine.loop.sql import RunRow
from engine.pipelines.base import DraftTask, NoteOut
from engine.prompts import ResolvedPrompt


class LeaseLost(Exception):
    """Another worker owns the run now; this one must stop touching it."""


@dataclass(frozen=True)
class StepEvent:
    run_id: int
    seq: int
    node: str
    status: str  # started | done | error | halted
    iteration: int
    stage: str
    detail: str = ""


@dataclass
class StepPlan:
    """A step as the transaction that opened it left it: everything its node needs, so the
    node itself opens no session."""

    run_id: int
    step_id: int
    seq: int
    node: str
    kind: str
    stage: str
    input: dict[str, Any]
    params: dict[str, Any]
    iteration: int
    budget_usd: float | None
    current_draft_id: int | None
    review_mode: str
    task: DraftTask | None = None
    """draft: what the drafter is given."""
    content: str | None = None
    """review: the draft to review."""
    context: dict[str, Any] = field(default_factory=dict)
    """review: what the checks and critics need from the database (Pipeline.review_context)."""
    prompts: dict[str, ResolvedPrompt] = field(default_factory=dict)
    run: RunRow | None = None
    """The run's row as this step's opening saved it: the step's commit writes it back under
    the version check, so it need not read it again unless someone changed it since."""
    calls: list[dict[str, Any]] = field(default_factory=list)
    """Model calls' rows to write with the step's outputs (see CallContext.pending)."""
    follow: Any = None
    """review: what the checks that follow the text need (engine.follow_context.FollowInput),
    read in the transaction that opened the step."""
    new_draft: bool = False
    """review: the draft was written in the transaction that opened this step, so it has no
    scores or flags to replace (unless the run changed since, which the commit checks)."""


class ScoreOut(NamedTuple):
    """One binding score of a review: the critic's value bound by the checks' cap."""

    name: str
    value: float
    llm: float | None
    """What the critic said, before the checks bound it (None: only the checks scored it)."""
    cap: float | None
    """What the deterministic checks allow (None: they do not score this name)."""
    source: str
    """The critic that gave it, or "checks"."""


class AuthoredNote(NamedTuple):
    author: str
    note: NoteOut


@dataclass
class ReviewOutcome:
    scores: list[ScoreOut]
    flags: list[FlagOut]
    notes: list[AuthoredNote]
    verdicts: list[str] = field(default_factory=list)
    """The critics' PASS/REVISE verdicts, where their rubric has one."""


@dataclass
class StepOut:
    """What a node's commit sets on its step row besides status and time."""

    draft_id: int | None = None
    version: int | None = None
    """draft: the version number the new draft got."""
    parent_id: int | None = None
    """draft: the version it revises (None for a first version)."""


class HeldTexts(NamedTuple):
    """A version's text and its parent's (None: it has no parent), as a step read or wrote
    them: versions never change, so the same transaction chain need not read them again."""

    draft_id: int | None
    text: str
    previous: str | None


class HeldDraft(NamedTuple):
    """A version the committing step wrote, as the next step's checks need it (see
    engine.follow_context.DraftFacts): what reading the row back would return."""

    draft_id: int
    version: int
    stage: str
    parent_id: int | None
    previous: str | None


__all__ = [
    "AuthoredNote",
    "HeldDraft",
    "HeldTexts",
    "LeaseLost",
    "ReviewOutcome",
    "ScoreOut",
    "StepEvent",
    "StepOut",
    "StepPlan",
]
