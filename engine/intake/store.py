"""The intake's rows: reading a conversation back, and writing a turn in one transaction."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from db.intake_tables import Intake
from db.intake_tables import IntakeMessage as MessageRow
from db.intake_tables import IntakeRecord as RecordRow
from db.models import utcnow
from engine.errors import NotFound, StaleRun
from engine.intake.agent import AgentTurn
from engine.intake.card import ExtractionRecord, IntakeMessage
from engine.intake.conversation import Conversation
from engine.pipelines.campaign.brands import load_brand


def load(session: Session, intake_id: int) -> tuple[Intake, Conversation]:
    row = session.get(Intake, intake_id)
    if row is None:
        raise NotFound(f"Intake {intake_id} does not exist.")
    msgs = session.exec(select(MessageRow).where(MessageRow.intake_id == intake_id)
                        .order_by(col(MessageRow.idx))).all()
    recs = session.exec(select(RecordRow).where(RecordRow.intake_id == intake_id)
                        .order_by(col(RecordRow.id))).all()
    conv = Conversation(
        messages=[IntakeMessage(index=m.idx, role=m.role, text=m.text, asks=list(m.asks),  # type: ignore[arg-type]
                                signal=m.signal, awaiting_confirmation=m.awaiting_confirmation,
                                at=m.at) for m in msgs],
        records=[ExtractionRecord(field=r.field, value=r.value, message_index=r.message_idx,
                                  source=r.source, at=r.at) for r in recs],  # type: ignore[arg-type]
        brand=load_brand(session, row.brand_id) if row.brand_id and row.status == "open"
        else None)
    return row, conv


def agent_row(intake_id: int, idx: int, turn: AgentTurn, at: datetime) -> MessageRow:
    return MessageRow(intake_id=intake_id, idx=idx, role="agent", text=turn.reply,
                      asks=list(turn.asks), awaiting_confirmation=turn.awaiting_confirmation,
                      signal=turn.signal.model_dump(mode="json") if turn.signal else None, at=at)


def record_rows(intake_id: int, records: list[ExtractionRecord]) -> list[RecordRow]:
    return [RecordRow(intake_id=intake_id, message_idx=r.message_index, field=r.field,
                      value=r.value, source=r.source, at=r.at) for r in records]


def save_turn(session: Session, row: Intake, *, index: int, text: str,
              records: list[ExtractionRecord], turn: AgentTurn, at: datetime,
              updates: dict[str, Any], after: list[AgentTurn] = ()) -> None:  # type: ignore[assignment]
    """The person's message, its records and the agent's reply (and any message after it),
    together; a second window that wrote the same turn first makes this one fail whole."""
    assert row.id is not None
    session.add(MessageRow(intake_id=row.id, idx=index, role="user", text=text, at=at))
    session.add_all(record_rows(row.id, records))
    session.add(agent_row(row.id, index + 1, turn, at))
    for i, extra in enumerate(after, start=index + 2):
        session.add(agent_row(row.id, i, extra, at))
    for key, value in updates.items():
        setattr(row, key, value)
    row.updated_at = utcnow()
    session.add(row)
    try:
        session.flush()
    except IntegrityError:
        raise StaleRun("This chat changed in another window since you opened it. Reload to "
                       "see the latest messages; your message was not saved.") from None
