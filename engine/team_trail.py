"""The trail of changes to who may do what: each role given or taken away and each approval
policy set is a RoleChange row, written in the same transaction as the change itself (so a
change is never without its record), and read newest first by the Team page."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict
from sqlmodel import Session, col, select

from db.models import RoleChange
from db.session import session_scope

__all__ = ["RoleChangeOut", "record_change", "recent_changes"]


class RoleChangeOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    at: datetime
    actor: str
    verified: bool
    action: str
    """grant | revoke | policy"""
    person: str | None
    role: str | None
    detail: str


def record_change(session: Session, *, actor: str, action: str, verified: bool = False,
                  person: str | None = None, role: str | None = None,
                  detail: str = "") -> None:
    """Add the change's row to the caller's transaction."""
    session.add(RoleChange(actor=actor, verified=verified, action=action, person=person,
                           role=role, detail=detail))


def recent_changes(limit: int = 50) -> list[RoleChangeOut]:
    """The latest changes, newest first (one indexed query)."""
    with session_scope() as s:
        rows = s.exec(select(RoleChange).order_by(col(RoleChange.at).desc(),
                                                  col(RoleChange.id).desc()).limit(limit))
        return [RoleChangeOut.model_validate(r) for r in rows]
