"""The onboarding chat's tables (issue 18 item 1, engine/intake/): the chat, its messages
and the extraction records.

Apart from db/models.py so that no module of table definitions grows past a screenful of
concerns; registered on SQLModel.metadata wherever db.models is (db/session.py,
db/migrate.py, db/migrations/env.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Index, UniqueConstraint
from sqlmodel import Field, SQLModel

from db.models import JSONType, utcnow

# -- intake (issue 18 item 1, engine/intake/): the onboarding chat that collects a business card
# and a campaign goal. Nothing becomes a Brand or a Run before the person confirms the card.


class Intake(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    status: str = Field(default="open", max_length=16)
    """open (collecting, or waiting for confirmation) | done (brand saved, campaign started)"""
    brand_id: int | None = Field(default=None, foreign_key="brand.id")
    """The existing brand picked, or the brand the confirmed card was saved as."""
    run_id: int | None = Field(default=None, foreign_key="run.id")
    """The campaign started from the confirmed card."""
    label: str = Field(default="", max_length=200)
    """The business's name so far, for lists of open intakes."""
    card: dict[str, Any] | None = Field(default=None, sa_type=JSONType)
    """The confirmed card (engine.intake.card.ConfirmedCard as JSON), once confirmed."""
    created_by: str = Field(default="", max_length=120)
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)

    __table_args__ = (Index("ix_intake_status_updated", "status", "updated_at"),)


class IntakeMessage(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    intake_id: int = Field(foreign_key="intake.id")  # uq_intakemessage_idx leads with it
    idx: int
    """The message's place in the conversation (0: the agent's greeting)."""
    role: str = Field(max_length=8)  # user | agent
    text: str
    asks: list[str] = Field(default_factory=list, sa_type=JSONType)
    """The fields an agent message asks for."""
    awaiting_confirmation: bool = False
    signal: dict[str, Any] | None = Field(default=None, sa_type=JSONType)
    """The completion signal an agent message carries."""
    at: datetime = Field(default_factory=utcnow)

    __table_args__ = (UniqueConstraint("intake_id", "idx", name="uq_intakemessage_idx"),)


class IntakeRecord(SQLModel, table=True):
    """An extraction record: a field's value, the message it came from and how it was read.
    The latest record of a field is the card's value; earlier ones stay as its history."""

    id: int | None = Field(default=None, primary_key=True)
    intake_id: int = Field(foreign_key="intake.id", index=True)
    message_idx: int
    field: str = Field(max_length=32)
    value: Any = Field(default=None, sa_type=JSONType)
    source: str = Field(max_length=24)  # user_input | inference | user_confirmation | brand_profile
    at: datetime = Field(default_factory=utcnow)
