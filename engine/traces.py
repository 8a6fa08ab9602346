"""The trace of one run as read models: its steps with their LLM calls nested, the calls'
details, and the runs to pick from. Its exports are engine/exports/trace_events.py (JSONL and
the run summary) and engine/exports/otlp.py (OpenTelemetry spans)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel, ConfigDict
from sqlmodel import col, select

from db.models import LLMCall, Run, Step
from db.session import session_scope
from engine.errors import NotFound
from engine.views import RunHead, RunRef, StepView, from_row, run_row


class CallSpan(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    step_id: int | None
    agent: str
    backend: str
    model: str
    stage: str
    prompt_version: int | None
    prompt_tokens: int
    cached_tokens: int
    completion_tokens: int
    cost_usd: float | None
    """None: the model has no price (unpriced), never $0."""
    latency_ms: float
    status: str
    error: str | None
    attempts: int
    started_at: datetime

    @property
    def finished_at(self) -> datetime:
        return self.started_at + timedelta(milliseconds=self.latency_ms)

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class CallDetail(CallSpan):
    request: dict[str, Any]
    response: dict[str, Any]


class StepSpan(StepView):
    """A step with the model calls made inside it."""

    calls: list[CallSpan]

    @property
    def end(self) -> datetime:
        ends = [self.started_at] + [c.finished_at for c in self.calls]
        return self.finished_at or max(ends)


class RunTrace(RunHead):
    created_at: datetime
    updated_at: datetime
    budget_usd: float | None
    steps: list[StepSpan]
    loose_calls: list[CallSpan]
    """Calls recorded without a step (none today; kept so none is ever hidden)."""

    @property
    def calls(self) -> list[CallSpan]:
        return [c for s in self.steps for c in s.calls] + self.loose_calls

    @property
    def cost_usd(self) -> float:
        return sum(c.cost_usd or 0.0 for c in self.calls)

    @property
    def unpriced_calls(self) -> int:
        return sum(1 for c in self.calls if c.cost_usd is None and c.status == "ok")

    @property
    def started_at(self) -> datetime:
        return self.created_at

    @property
    def finished_at(self) -> datetime:
        ends = [self.created_at] + [s.end for s in self.steps] + [c.finished_at for c in self.calls]
        return max(ends)


class RunChoice(RunRef):
    created_at: datetime


# The columns a span shows, read without the request and response bodies (call_detail has them).
_CALL_COLS = tuple(getattr(LLMCall, name) for name in CallSpan.model_fields)
_CHOICE_COLS = tuple(getattr(Run, name) for name in RunChoice.model_fields)


def recent_runs(*, limit: int = 300, include: int | None = None) -> list[RunChoice]:
    """Newest runs first, for a picker; `include` (a run opened from a link) comes first
    when it is older than those."""
    with session_scope() as s:
        rows = list(s.exec(select(*_CHOICE_COLS).order_by(col(Run.id).desc()).limit(limit)).all())
        if include is not None and include not in {r.id for r in rows}:
            rows = list(s.exec(select(*_CHOICE_COLS).where(Run.id == include)).all()) + rows
    return [RunChoice.model_validate(r) for r in rows]


def load_trace(run_id: int) -> RunTrace:
    """Steps and calls without the request and response bodies (call_detail has those)."""
    with session_scope() as s:
        run = run_row(s, run_id)
        steps = s.exec(select(Step).where(Step.run_id == run_id).order_by(Step.seq)).all()
        by_step: dict[int | None, list[CallSpan]] = {}
        for row in s.exec(select(*_CALL_COLS).where(LLMCall.run_id == run_id)
                          .order_by(LLMCall.started_at, LLMCall.id)):
            call = CallSpan.model_validate(row)
            by_step.setdefault(call.step_id, []).append(call)
        spans = [from_row(StepSpan, st, calls=by_step.pop(st.id, [])) for st in steps]
        loose = [c for cs in by_step.values() for c in cs]
        return from_row(RunTrace, run, steps=spans, loose_calls=loose)


def call_detail(call_id: int) -> CallDetail:
    with session_scope() as s:
        c = s.get(LLMCall, call_id)
        if c is None:
            raise NotFound(f"Call {call_id} does not exist.")
        return CallDetail.model_validate(c)
