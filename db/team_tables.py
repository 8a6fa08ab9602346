"""The campaign team's tables (issue 18): its messages, and memory in namespaces.

Apart from db/models.py so that no module of table definitions grows past a screenful of
concerns; registered on SQLModel.metadata wherever db.models is (db/session.py,
db/migrate.py, db/migrations/env.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Index, UniqueConstraint
from sqlmodel import Field, SQLModel

from db.models import JSONType, utcnow

# -- team (issue 18): the campaign team's messages, and memory in namespaces ----------------


class TeamMessage(SQLModel, table=True):
    """One message between the members of a run's team (engine/team/): the orchestrator hands
    a stage to the lead, the lead delegates to a worker and evaluates its result. Written in
    the transaction that commits the step it belongs to, so a kill loses or doubles none."""

    id: int | None = Field(default=None, primary_key=True)
    run_id: int = Field(foreign_key="run.id")  # ix_teammessage_run leads with it
    step_id: int | None = Field(default=None, foreign_key="step.id")
    kind: str = Field(max_length=16)  # task | result | evaluation | feedback
    sender: str = Field(max_length=64)
    recipient: str = Field(max_length=64)
    stage: str = Field(max_length=32)
    iteration: int = 0
    payload: dict[str, Any] = Field(default_factory=dict, sa_type=JSONType)
    """engine.team.models: the kind's pydantic payload, validated again when read."""
    artifact: str | None = Field(default=None, max_length=80)
    """A result's artifact key, e.g. "outreach_writer v2" (the draft is draft_id)."""
    draft_id: int | None = Field(default=None, foreign_key="draft.id")
    at: datetime = Field(default_factory=utcnow)

    __table_args__ = (Index("ix_teammessage_run", "run_id", "id"),)


class MemoryNamespace(SQLModel, table=True):
    """One namespace of memory (engine/memory/): per user ("user:<person>") or per run
    ("run:<id>"); a run's "shared" namespace every agent of it reads, "agent:<name>" only that
    agent. `sources` says where each key's value came from."""

    id: int | None = Field(default=None, primary_key=True)
    scope_key: str = Field(max_length=160)  # uq_memory_scope_namespace leads with it
    run_id: int | None = Field(default=None, foreign_key="run.id")
    person: str | None = Field(default=None, max_length=130)
    namespace: str = Field(max_length=100)
    data: dict[str, Any] = Field(default_factory=dict, sa_type=JSONType)
    sources: dict[str, Any] = Field(default_factory=dict, sa_type=JSONType)
    """key -> {"source": where the value came from, "at": when it was written}."""
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)

    __table_args__ = (UniqueConstraint("scope_key", "namespace", name="uq_memory_scope_namespace"),)
