"""Read models for pages, the CLI and exports: plain pydantic objects, no live sessions."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel
from sqlalchemy import case, or_
from sqlmodel import col, select

from db.models import Draft, Flag, HumanAction, LLMCall, Note, Run, Score, Step
from db.session import session_scope
from engine.errors import NotFound
from engine.loop.decide import max_iterations_for, thresholds_for
from engine.pipelines.base import PRIORITY_ORDER
from engine.pipelines.registry import get_pipeline
from engine.run_state import RunStatus


class FlagView(BaseModel):
    check: str
    category: str
    text: str
    start: int
    end: int
    blocking: bool


class NoteView(BaseModel):
    id: int
    draft_id: int | None
    author: str
    target: str
    priority: str
    text: str
    created_at: datetime


class DraftView(BaseModel):
    id: int
    version: int
    stage: str
    author: str
    author_kind: str
    content: str
    parent_id: int | None
    iteration: int
    created_at: datetime
    scores: dict[str, float]
    flags: list[FlagView]


class ActionView(BaseModel):
    actor: str
    verified: bool
    action: str
    draft_id: int | None
    comment: str | None
    at: datetime


class StepView(BaseModel):
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


class RunSummary(BaseModel):
    id: int
    kind: str
    title: str
    status: str
    stage: str
    iteration: int
    halt_reason: str | None
    created_by: str
    created_at: datetime
    updated_at: datetime
    cost_usd: float
    version: int
    scores: dict[str, float]
    thresholds: dict[str, float]
    """What this run's scores are compared with: the stage's, overridden per run."""
    open_flags: int
    last_reviewer: str | None = None


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

    def draft(self, draft_id: int | None) -> DraftView | None:
        return next((d for d in self.drafts if d.id == draft_id), None)

    @property
    def current(self) -> DraftView | None:
        return self.draft(self.current_draft_id) or (self.drafts[-1] if self.drafts else None)


STATUS_ORDER = {
    RunStatus.REVIEW: 0,
    RunStatus.FAILED: 1,
    RunStatus.RUNNING: 2,
    RunStatus.QUEUED: 3,
    RunStatus.APPROVED: 4,
    RunStatus.REJECTED: 5,
}


def list_runs(
    *,
    kind: str | None = None,
    statuses: list[str] | None = None,
    reviewer: str | None = None,
    search: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    limit: int = 200,
) -> list[RunSummary]:
    """Runs awaiting review first, then failed, running, queued, finished; newest first."""
    order = case(STATUS_ORDER, value=Run.status, else_=9)
    q = select(Run)
    if kind:
        q = q.where(Run.kind == kind)
    if statuses:
        q = q.where(col(Run.status).in_(statuses))
    if search:
        q = q.where(col(Run.title).ilike(f"%{search.strip()}%"))
    if since:
        q = q.where(Run.created_at >= since)
    if until:
        q = q.where(Run.created_at <= until)
    if reviewer:
        acted = select(HumanAction.run_id).where(HumanAction.actor == reviewer)
        q = q.where(or_(Run.created_by == reviewer, col(Run.id).in_(acted)))
    q = q.order_by(order, col(Run.updated_at).desc()).limit(limit)
    with session_scope() as s:
        runs = list(s.exec(q).all())
        draft_ids = [r.current_draft_id for r in runs if r.current_draft_id]
        scores: dict[int, dict[str, float]] = {}
        flags: dict[int, int] = {}
        if draft_ids:
            for sc in s.exec(select(Score).where(col(Score.draft_id).in_(draft_ids))):
                scores.setdefault(sc.draft_id, {})[sc.name] = sc.value
            for f in s.exec(
                select(Flag).where(col(Flag.draft_id).in_(draft_ids), col(Flag.blocking).is_(True))
            ):
                flags[f.draft_id] = flags.get(f.draft_id, 0) + 1
        last: dict[int, str] = {}
        ids = [r.id for r in runs]
        if ids:
            for a in s.exec(
                select(HumanAction).where(col(HumanAction.run_id).in_(ids)).order_by(HumanAction.at)
            ):
                last[a.run_id] = a.actor
        return [
            _summary(
                r,
                scores.get(r.current_draft_id or -1, {}),
                flags.get(r.current_draft_id or -1, 0),
                last.get(r.id or 0),
            )
            for r in runs
        ]


def _thresholds(r: Run) -> dict[str, float]:
    try:
        return thresholds_for(get_pipeline(r.kind).stage(r.stage), r.params)
    except (KeyError, ValueError):  # a kind or stage this code no longer knows
        return {}


def _summary(r: Run, scores: dict[str, float], flags: int, last: str | None) -> RunSummary:
    return RunSummary(
        id=r.id or 0,
        kind=r.kind,
        title=r.title,
        status=r.status,
        stage=r.stage,
        iteration=r.iteration,
        halt_reason=r.halt_reason,
        created_by=r.created_by,
        created_at=r.created_at,
        updated_at=r.updated_at,
        cost_usd=r.cost_usd,
        version=r.version,
        scores=scores,
        thresholds=_thresholds(r),
        open_flags=flags,
        last_reviewer=last,
    )


def run_version(run_id: int) -> int | None:
    """The run's current version, for cheap "did anything change?" polling."""
    with session_scope() as s:
        row = s.exec(select(Run.version).where(Run.id == run_id)).first()
        return int(row) if row is not None else None


def get_run(run_id: int) -> RunDetail:
    with session_scope() as s:
        r = s.get(Run, run_id)
        if r is None:
            raise NotFound(f"Run {run_id} does not exist.")
        drafts = list(s.exec(select(Draft).where(Draft.run_id == run_id).order_by(Draft.version)))
        ids = [d.id for d in drafts]
        scores: dict[int, dict[str, float]] = {}
        flags: dict[int, list[FlagView]] = {}
        if ids:
            for sc in s.exec(select(Score).where(col(Score.draft_id).in_(ids))):
                scores.setdefault(sc.draft_id, {})[sc.name] = sc.value
            for f in s.exec(select(Flag).where(col(Flag.draft_id).in_(ids)).order_by(Flag.start)):
                flags.setdefault(f.draft_id, []).append(
                    FlagView.model_validate(f, from_attributes=True)
                )
        notes = [
            NoteView.model_validate(n, from_attributes=True)
            for n in s.exec(select(Note).where(Note.run_id == run_id).order_by(Note.created_at))
        ]
        notes.sort(key=lambda n: (-(n.draft_id or 0), PRIORITY_ORDER.get(n.priority, 9)))
        actions = [
            ActionView.model_validate(a, from_attributes=True)
            for a in s.exec(
                select(HumanAction).where(HumanAction.run_id == run_id).order_by(HumanAction.at)
            )
        ]
        steps = [
            StepView.model_validate(st, from_attributes=True)
            for st in s.exec(select(Step).where(Step.run_id == run_id).order_by(Step.seq))
        ]
        calls = list(
            s.exec(
                select(LLMCall.prompt_tokens, LLMCall.completion_tokens).where(
                    LLMCall.run_id == run_id
                )
            )
        )
        pipeline = get_pipeline(r.kind)
        stage = pipeline.stage(r.stage)
        cur = r.current_draft_id
        return RunDetail(
            **_summary(
                r,
                scores.get(cur or -1, {}),
                sum(f.blocking for f in flags.get(cur or -1, [])),
                actions[-1].actor if actions else None,
            ).model_dump(),
            input=r.input,
            params=r.params,
            next_node=r.next_node,
            error=r.error,
            budget_usd=r.budget_usd,
            current_draft_id=cur,
            best_draft_id=r.best_draft_id,
            approved_draft_id=r.approved_draft_id,
            parent_run_id=r.parent_run_id,
            parent_draft_id=r.parent_draft_id,
            lease_owner=r.lease_owner,
            lease_expires=r.lease_expires,
            max_iterations=max_iterations_for(stage, r.params),
            stages=[st.name for st in pipeline.stages],
            drafts=[
                DraftView(
                    id=d.id or 0,
                    version=d.version,
                    stage=d.stage,
                    author=d.author,
                    author_kind=d.author_kind,
                    content=d.content,
                    parent_id=d.parent_id,
                    iteration=d.iteration,
                    created_at=d.created_at,
                    scores=scores.get(d.id or 0, {}),
                    flags=flags.get(d.id or 0, []),
                )
                for d in drafts
            ],
            notes=notes,
            actions=actions,
            steps=steps,
            calls=len(calls),
            tokens=sum(p + c for p, c in calls),
        )
