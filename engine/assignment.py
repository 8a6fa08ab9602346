"""Assigning a run to a person or a role, and the runs assigned to someone.

An assignment is a human act like any other: recorded (and sealed) in the run's audit trail
with who it went from and to, so a reassignment is visible. Who may assign: whoever may keep
runs of that kind moving (the kind's owner role, ops, admin; everyone while no role is set)."""

from __future__ import annotations

from sqlalchemy import or_
from sqlmodel import col, select

from db.models import Run
from db.session import session_scope
from engine.errors import InvalidInput
from engine.identity import ROLES, person_key, require, roles_configured, roles_of
from engine.run_state import RunStatus
from engine.service import _acting_on, _actor, _record
from engine.signin import require_verified

__all__ = ["ROLE_PREFIX", "assign", "assignee_label", "assigned_to_me", "parse_assignee"]

ROLE_PREFIX = "role:"


def parse_assignee(text: str) -> str | None:
    """"role:clinician" or a role's bare name -> "role:clinician"; a person's name -> its key;
    "" -> None (unassigned)."""
    raw = " ".join((text or "").split())
    if not raw:
        return None
    bare = raw.removeprefix(ROLE_PREFIX).strip().lower()
    if raw.lower().startswith(ROLE_PREFIX) or bare in ROLES:
        if bare not in ROLES:
            raise InvalidInput(f"Unknown role {bare!r}; roles are {', '.join(ROLES)}.",
                               {"assignee": "unknown role"})
        return ROLE_PREFIX + bare
    key = person_key(raw)
    if len(key) > 120:
        raise InvalidInput("A name must be at most 120 characters.",
                           {"assignee": "too long"})
    return key


def assignee_label(value: str | None) -> str:
    if not value:
        return "nobody"
    if value.startswith(ROLE_PREFIX):
        return f"any {value.removeprefix(ROLE_PREFIX)}"
    return value


def assign(*, run_id: int, actor: str, assignee: str, verified: bool = False,
           expected_version: int | None = None) -> str | None:
    """Assign (or, with "", unassign) a run; returns the stored assignee."""
    who = _actor(actor)
    require_verified(who, verified)
    target = parse_assignee(assignee)
    with _acting_on(run_id, expected_version, RunStatus.ALL, "assign") as (s, run):
        require(who, "assign", run.kind, session=s)
        if (target and not target.startswith(ROLE_PREFIX) and roles_configured(s)
                and not roles_of(target, session=s)):
            raise InvalidInput(f"{target} has no role here, so they could not act on the run. "
                               "Give them a role first, or assign a role.",
                               {"assignee": "has no role"})
        if target == run.assigned_to:
            raise InvalidInput(f"Run {run_id} is already assigned to "
                               f"{assignee_label(target)}.", {"assignee": "unchanged"})
        comment = f"{assignee_label(run.assigned_to)} -> {assignee_label(target)}"
        _record(s, run, who, "assign", draft_id=None, comment=comment, verified=verified)
        run.assigned_to = target
        return target


def assigned_to_me(name: str, *, open_only: bool = True) -> list[int]:
    """Run ids assigned to this person or to one of their roles, most recently updated first."""
    key = person_key(name)
    if not key:
        return []
    with session_scope() as s:
        mine = [ROLE_PREFIX + r for r in roles_of(key, session=s)]
        q = select(Run.id).where(or_(Run.assigned_to == key, col(Run.assigned_to).in_(mine)))
        if open_only:
            q = q.where(col(Run.status).notin_(RunStatus.FINAL))
        return [int(i) for i in s.exec(q.order_by(col(Run.updated_at).desc()))]
