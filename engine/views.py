"""Read models for pages, the CLI and exports: plain pydantic objects, no live sessions."""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, computed_field
from sqlmodel import Session, col, select

from db.models import Draft, Flag, HumanAction, LLMCall, Note, Run, Score, Step
from db.session import session_scope
from engine.errors import NotFound
from engine.loop.decide import max_iterations_for, thresholds_for
from engine.pipelines.base import PRIORITY_ORDER, StageSpec
from engine.pipelines.registry import get_pipeline

M = TypeVar("M", bound=BaseModel)


class FlagView(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    check: str
    category: str
    text: str
    start: int
    end: int
    blocking: bool


class NoteView(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    draft_id: int | None
    author: str
    target: str
    priority: str
    text: str
    created_at: datetime


class DraftBase(BaseModel):
    """A version as every reader shows it: who wrote what, and how the critics scored it."""

    model_config = ConfigDict(from_attributes=True)

    version: int
    author: str
    author_kind: str
    content: str
    scores: dict[str, float]


class DraftView(DraftBase):
    id: int
    stage: str
    parent_id: int | None
    iteration: int
    created_at: datetime
    flags: list[FlagView]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def not_addressed(self) -> list[str]:
        """The comments and critical notes this version does not answer (feedback coverage)."""
        return [f.text for f in self.flags if f.category == "not_addressed"]


class ActionView(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    actor: str
    verified: bool
    action: str
    draft_id: int | None
    comment: str | None
    at: datetime


class StepView(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    seq: int
    node: str
    stage: str
    iteration: int
    status: str
    started_at: datetime
    finished_at: datetime | None
    detail: str | None
    error: str | None
    draft_id: int | None = None


# -- the run's field families: each reader (pages, CLI, MCP, traces, exports) takes the family
# that holds what it shows and adds only its own fields, so a run field is declared once.


class RunRef(BaseModel):
    """What names a run wherever it is listed or picked."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    kind: str
    title: str
    status: str
    """queued | running | awaiting_review | approved | rejected | failed"""


class RunHead(RunRef):
    """Where the run stands in its pipeline."""

    stage: str
    iteration: int
    halt_reason: str | None


class RunGate(RunHead):
    """What the approval gate looks at: the current version's scores against the thresholds,
    its open blocking flags, and what the run has cost."""

    scores: dict[str, float]
    """The current version's scores."""
    thresholds: dict[str, float]
    """What this run's scores are compared with: the stage's, overridden per run."""
    open_flags: int
    cost_usd: float


class RunSummary(RunGate):
    created_by: str
    created_at: datetime
    updated_at: datetime
    version: int
    last_reviewer: str | None = None
    overridden: bool = False
    """Approved (a stage or the run) over an open flag: lists show it apart from a clean one."""


class RunDetail(RunSummary):
    input: dict[str, Any]
    params: dict[str, Any]
    next_node: str | None
    error: str | None
    budget_usd: float | None
    current_draft_id: int | None
    best_draft_id: int | None
    approved_draft_id: int | None
    parent_run_id: int | None
    parent_draft_id: int | None
    lease_owner: str | None = None
    lease_expires: datetime | None = None
    max_iterations: int
    stages: list[str]
    drafts: list[DraftView]
    notes: list[NoteView]
    actions: list[ActionView]
    steps: list[StepView]
    calls: int
    tokens: int
    unknown: list[str] = []
    """What this code does not define (a kind, stage, agent, score name or step node written
    by another version, or by hand), said in words; the run is shown as it is."""

    def draft(self, draft_id: int | None) -> DraftView | None:
        return next((d for d in self.drafts if d.id == draft_id), None)

    @property
    def current(self) -> DraftView | None:
        return self.draft(self.current_draft_id) or (self.drafts[-1] if self.drafts else None)


class _RowWith:
    """A table row seen with a few more attributes, so a read model takes the row's columns
    by name (model_validate(from_attributes=True)) and the computed fields from `extra`."""

    __slots__ = ("_row", "_extra")

    def __init__(self, row: object, extra: dict[str, Any]) -> None:
        self._row = row
        self._extra = extra

    def __getattr__(self, name: str) -> Any:
        extra = self._extra
        return extra[name] if name in extra else getattr(self._row, name)


def from_row(model: type[M], row: object, **extra: Any) -> M:
    """`model` filled from `row`'s attributes, with `extra` for what the row does not hold."""
    return model.model_validate(_RowWith(row, extra), from_attributes=True)


def _stage_spec(r: Run) -> StageSpec | None:
    """The run's stage as this code defines it; None for a kind or stage it does not know
    (data written by another version), which readers show as such instead of failing."""
    try:
        return get_pipeline(r.kind).stage(r.stage)
    except (KeyError, ValueError):
        return None


def _thresholds(r: Run) -> dict[str, float]:
    spec = _stage_spec(r)
    return thresholds_for(spec, r.params) if spec is not None else {}


def summarize(r: Run, scores: dict[str, float], flags: int, last: str | None,
              overridden: bool = False) -> RunSummary:
    return from_row(RunSummary, r, scores=scores, thresholds=_thresholds(r), open_flags=flags,
                    last_reviewer=last, overridden=overridden)


def run_version(run_id: int) -> int | None:
    """The run's current version, for cheap "did anything change?" polling."""
    with session_scope() as s:
        row = s.exec(select(Run.version).where(Run.id == run_id)).first()
        return int(row) if row is not None else None


def run_row(s: Session, run_id: int) -> Run:
    """The run's row, or NotFound with a message a person can read."""
    r = s.get(Run, run_id)
    if r is None:
        raise NotFound(f"Run {run_id} does not exist.")
    return r


def get_run(run_id: int) -> RunDetail:
    with session_scope() as s:
        r = run_row(s, run_id)
        drafts = list(s.exec(select(Draft).where(Draft.run_id == run_id).order_by(Draft.version)))
        ids = [d.id for d in drafts]
        scores: dict[int, dict[str, float]] = {}
        flags: dict[int, list[FlagView]] = {}
        if ids:
            for sc in s.exec(select(Score).where(col(Score.draft_id).in_(ids))):
                scores.setdefault(sc.draft_id, {})[sc.name] = sc.value
            for f in s.exec(select(Flag).where(col(Flag.draft_id).in_(ids)).order_by(Flag.start)):
                flags.setdefault(f.draft_id, []).append(FlagView.model_validate(f))
        notes = [NoteView.model_validate(n) for n in
                 s.exec(select(Note).where(Note.run_id == run_id).order_by(Note.created_at))]
        notes.sort(key=lambda n: (-(n.draft_id or 0), PRIORITY_ORDER.get(n.priority, 9)))
        actions = [ActionView.model_validate(a) for a in s.exec(
            select(HumanAction).where(HumanAction.run_id == run_id).order_by(HumanAction.at))]
        steps = [StepView.model_validate(st) for st in
                 s.exec(select(Step).where(Step.run_id == run_id).order_by(Step.seq))]
        calls = list(s.exec(select(LLMCall.prompt_tokens, LLMCall.completion_tokens)
                            .where(LLMCall.run_id == run_id)))
        cur = r.current_draft_id
        return from_row(
            RunDetail, r,
            scores=scores.get(cur or -1, {}),
            thresholds=_thresholds(r),
            open_flags=sum(f.blocking for f in flags.get(cur or -1, [])),
            last_reviewer=actions[-1].actor if actions else None,
            max_iterations=_max_iterations(r),
            stages=_stage_names(r),
            drafts=[from_row(DraftView, d, scores=scores.get(d.id or 0, {}),
                             flags=flags.get(d.id or 0, [])) for d in drafts],
            notes=notes, actions=actions, steps=steps,
            calls=len(calls), tokens=sum(p + c for p, c in calls),
            unknown=_unknown(r, drafts, scores, steps),
        )


def _max_iterations(r: Run) -> int:
    spec = _stage_spec(r)
    if spec is not None:
        return max_iterations_for(spec, r.params)
    return int(r.params.get("max_iterations") or r.iteration)


def _stage_names(r: Run) -> list[str]:
    try:
        return [st.name for st in get_pipeline(r.kind).stages]
    except (KeyError, ValueError):
        return []


LOOP_NODES = ("draft", "review", "decide", "advance")


def _unknown(r: Run, drafts: list[Draft], scores: dict[int, dict[str, float]],
             steps: list[StepView]) -> list[str]:
    """What in this run the pipelines of this code do not define, one sentence each."""
    try:
        pipeline = get_pipeline(r.kind)
    except ValueError:
        return [f"kind: {r.kind} (no pipeline of this name, so no stages, thresholds or "
                "agents to compare the run with)"]
    stages = {st.name: st for st in pipeline.stages}
    agents = {a.name for st in pipeline.stages for a in (st.drafter, *st.critics)}
    names = {n for st in pipeline.stages for n in st.thresholds}
    out: list[str] = []

    def unknown(what: str, found: set[str], known: set[str] | dict[str, object]) -> None:
        odd = sorted(found - set(known))
        if odd:
            out.append(f"{what}: {', '.join(odd)}")

    unknown("stage", {r.stage} | {d.stage for d in drafts}, stages)
    unknown("agent", {d.author for d in drafts if d.author_kind == "agent"}, agents)
    unknown("score", {n for by in scores.values() for n in by}, names)
    unknown("step node", {st.node for st in steps}, set(LOOP_NODES))
    return out
