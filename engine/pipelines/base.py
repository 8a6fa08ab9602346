"""The shapes a pipeline is made of: agent specs, stages, and the I/O of drafters and critics."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field

from engine.checks.base import CheckResult, FlagOut

Priority = Literal["info", "warning", "critical"]
PRIORITY_ORDER = {"critical": 0, "warning": 1, "info": 2}


class NoteOut(BaseModel):
    target: str
    """The agent the note is for ("drafter") or "broadcast"."""
    priority: Priority
    text: str


class ScoreOut(BaseModel):
    name: str
    value: float
    """In [0, 1]; clamped on the way in, whatever the model said."""


class Review(BaseModel):
    """What every critic returns."""

    scores: list[ScoreOut]
    notes: list[NoteOut]
    verdict: Literal["PASS", "REVISE"] | None
    """The critic's own verdict, where its rubric has one (the campaign Evaluator)."""


class DraftTask(BaseModel):
    """What a drafter is given: the run's input, the last draft, the notes for it."""

    kind: str
    stage: str
    input: dict[str, Any]
    iteration: int
    previous: str | None = None
    notes: list[NoteOut] = Field(default_factory=list)
    feedback: list[str] = Field(default_factory=list)
    """Every comment a person has made on this run, oldest first."""
    context: dict[str, Any] = Field(default_factory=dict)
    """Stage context, e.g. approved outputs of earlier campaign stages."""


class ReviewTask(BaseModel):
    """What a critic is given: the draft and what the deterministic checks found."""

    kind: str
    stage: str
    input: dict[str, Any]
    content: str
    flags: list[FlagOut] = Field(default_factory=list)
    context: dict[str, Any] = Field(default_factory=dict)


@dataclass(frozen=True)
class AgentSpec:
    name: str
    role: str
    system_prompt: str
    output_type: type[BaseModel]
    render_user: Callable[[Any], str]
    """Renders the task into the user message for a real model."""
    offline: Callable[[Any], BaseModel]
    """The deterministic offline implementation of this agent."""


@dataclass(frozen=True)
class StageSpec:
    name: str
    drafter: AgentSpec
    to_text: Callable[[Any, dict[str, Any]], str]
    """(drafter's structured output, the draft task's context) -> the draft's text (Markdown).
    Pure: what it needs from the database is in the context."""
    critics: tuple[AgentSpec, ...]
    checks: Callable[[str, dict[str, Any], dict[str, Any]], CheckResult]
    """The deterministic floor: (draft text, run input, review context) -> caps and flags.
    Pure: what it needs from the database is in the context (Pipeline.review_context)."""
    thresholds: dict[str, float]
    max_iterations: int
    require_pass_verdict: bool = False


@dataclass(frozen=True)
class Pipeline:
    kind: str
    input_model: type[BaseModel]
    stages: tuple[StageSpec, ...]
    title: Callable[[Any], str]
    default_params: dict[str, Any] = field(default_factory=dict)
    flags_name: str = "safety"
    """What its deterministic checks' flags are called to a person ("compliance" flags)."""
    stage_context: Callable[[Any, int, str], dict[str, Any]] | None = None
    """(session, run id, stage) -> context for the drafter, e.g. earlier approved stages."""
    review_context: Callable[[Any, dict[str, Any], str], dict[str, Any]] | None = None
    """(session, run input, stage) -> what the checks and critics need from the database
    (e.g. the brand profile), resolved when a review step opens or a person acts."""
    exports: Mapping[str, Callable[[Any], str | bytes]] = field(default_factory=dict)
    """Format -> exporter of the run's read model (engine/exports/hooks.py); JSON is common."""
    # -- team (issue 18) ---------------------------------------------------------------------
    team: Any = None
    """engine.team.models.TeamSpec: who hands stages down, evaluates and drafts (campaigns);
    None: the pipeline keeps its own shape (protocols)."""
    hooks: Any = None
    """engine.team.record.TeamHooks or None: on_open(tx, plan) when a step opens and
    on_commit(tx, plan, run, step, result, decision) in its commit's transaction."""
    check_input: Callable[[Any, Any], None] | None = None
    """(validated input, session or None) -> None, raising InvalidInput for what the input
    model cannot check alone because it needs the database (a brand id that names no brand);
    the session is the caller's transaction when the run is started inside one."""

    def context_for_review(self, session: Any, run_input: dict[str, Any],
                           stage: str) -> dict[str, Any]:
        return self.review_context(session, run_input, stage) if self.review_context else {}

    def stage(self, name: str) -> StageSpec:
        for s in self.stages:
            if s.name == name:
                return s
        raise KeyError(f"pipeline {self.kind!r} has no stage {name!r}")

    def next_stage(self, name: str) -> StageSpec | None:
        names = [s.name for s in self.stages]
        i = names.index(name)
        return self.stages[i + 1] if i + 1 < len(self.stages) else None
