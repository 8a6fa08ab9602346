"""The Memory panel's read model: a run's shared namespace, each agent's private one, the
run's author's own (user) namespaces, and what every model call of the run was given from
memory, each entry with where it came from."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel
from sqlmodel import col, select

from db.models import LLMCall, Run
from db.session import session_scope
from engine.errors import NotFound
from engine.memory.access import CONTEXT_KEY
from engine.memory.store import AGENT_PREFIX, SHARED, Namespace, Scope, load_all

MAX_CALLS = 300
"""Calls listed with what they were given (a campaign makes tens)."""


class GivenView(BaseModel):
    """What one model call's agent was given from memory (recorded with the call)."""

    call_id: int
    agent: str
    stage: str
    started_at: datetime
    reader: str
    """The team member whose memory it was (the lead, for the Evaluator's calls)."""
    namespaces: list[str]
    keys: list[str]
    """"shared.business_card", "private.attempts", ..."""
    sources: dict[str, str]
    values: dict[str, Any]
    """"shared.business_card" -> the value as the call was given it."""


class MemoryPanel(BaseModel):
    run_id: int
    person: str
    shared: Namespace | None
    agents: dict[str, Namespace]
    """agent name -> its private namespace."""
    other: dict[str, Namespace]
    user: dict[str, Namespace]
    """The run author's own namespaces (Scope.user), e.g. "profile"."""
    given: list[GivenView]


def _given(row: Any) -> GivenView | None:
    mem = ((row.request or {}).get("context") or {}).get(CONTEXT_KEY)
    if not isinstance(mem, dict):
        return None
    values = {f"shared.{k}": v for k, v in (mem.get("shared") or {}).items()}
    values |= {f"private.{k}": v for k, v in (mem.get("private") or {}).items()}
    keys = list(values)
    return GivenView(call_id=row.id, agent=row.agent, stage=row.stage,
                     started_at=row.started_at, reader=str(mem.get("agent", "")),
                     namespaces=list(mem.get("namespaces") or []), keys=keys,
                     sources=dict(mem.get("sources") or {}), values=values)


def load_memory(run_id: int) -> MemoryPanel:
    with session_scope() as s:
        run = s.get(Run, run_id)
        if run is None:
            raise NotFound(f"Run {run_id} does not exist.")
        c = s.connection()
        spaces = load_all(c, Scope.run(run_id))
        person = run.created_by or ""
        user = load_all(c, Scope.user(person)) if person.strip() else {}
        rows = s.exec(select(LLMCall).where(LLMCall.run_id == run_id)
                      .order_by(col(LLMCall.id)).limit(MAX_CALLS)).all()
        given = [g for g in (_given(r) for r in rows) if g is not None]
    return MemoryPanel(
        run_id=run_id, person=person, shared=spaces.pop(SHARED, None),
        agents={n[len(AGENT_PREFIX):]: ns for n, ns in spaces.items()
                if n.startswith(AGENT_PREFIX)},
        other={n: ns for n, ns in spaces.items() if not n.startswith(AGENT_PREFIX)},
        user=user, given=given)


__all__ = ["GivenView", "MemoryPanel", "load_memory"]
