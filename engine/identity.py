"""Who may do what: roles per person, from the Role table.

clinician: protocols (start, edit, send back, approve, reject, halt, retry, budget, assign);
           who approves, and how many, is the approval policy's (engine/approval_policy.py).
marketer:  the same for campaigns.
ops:       costs and traces; may halt a run, retry a failed step, change a budget and assign
           a run to a reviewer, never approve, edit or reject.
admin:     everything, including naming roles.
While the Role table is empty (a fresh install) everyone may do everything, so the first admin
can be named; once any role exists, a person without one may only read."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, func
from sqlalchemy.engine import Connection
from sqlmodel import Session, select

from db.models import Role
from db.prepared import Prepared
from db.session import connection_of, session_scope
from engine.errors import InvalidInput, InvalidState, PermissionDenied
from engine.team_trail import record_change
from engine.text import clean_text

ROLES = ("clinician", "marketer", "ops", "admin")
KIND_ROLE = {"protocol": "clinician", "campaign": "marketer"}
"""The role that owns each kind of run."""
CONTENT_ACTS = frozenset({"start", "edit", "revise", "approve", "reject", "prompts"})
"""Acts on the content of a run: only the kind's owner (and admin)."""
OPERATIONAL_ACTS = frozenset({"halt", "retry", "budget", "assign"})
"""Acts that keep runs healthy: the kind's owner, ops and admin."""
VIEWS = {"view_costs": {"ops"}, "view_traces": {"ops", "clinician", "marketer"}}
ACTIONS = CONTENT_ACTS | OPERATIONAL_ACTS | set(VIEWS) | {"manage_roles"}

__all__ = ["ROLES", "ACTIONS", "Identity", "who", "allowed", "can", "require", "roles_of",
           "roles_configured", "grant", "revoke", "list_roles", "person_key"]


@dataclass(frozen=True)
class Identity:
    name: str
    verified: bool
    """True only when the name came from a login (OIDC), never from a typed name."""


def who(login: Mapping[str, Any] | None, typed: str = "") -> Identity:
    """The actor of an act: the login's name when someone is logged in (Streamlit's st.user,
    as a dict), else the name typed in the sidebar, unverified."""
    if login and login.get("is_logged_in"):
        name = clean_text(str(login.get("name") or login.get("email") or "")).strip()
        if name:
            return Identity(name, True)
    return Identity(clean_text(typed or ""), False)


def person_key(name: str) -> str:
    """Names match whatever their case and spacing: "Dr.  Lee" is "dr. lee"."""
    return " ".join(clean_text(name or "").split()).casefold()


def allowed(roles: set[str] | frozenset[str], action: str, kind: str | None = None) -> bool:
    """The rule itself, without the database (bootstrap is the caller's business)."""
    if action not in ACTIONS:
        raise ValueError(f"unknown action {action!r}; known: {sorted(ACTIONS)}")
    if "admin" in roles:
        return True
    if action in VIEWS:
        return bool(roles & VIEWS[action])
    owner = KIND_ROLE.get(kind or "")
    if action in CONTENT_ACTS:
        return owner is not None and owner in roles
    if action in OPERATIONAL_ACTS:
        return "ops" in roles or (owner is not None and owner in roles)
    return False  # manage_roles


# Built once and run on the session's connection (db.prepared): every act asks, and building
# and running an ORM query cost more than starting a run does otherwise.
_ANY_ROLE = Prepared(select(Role.id).limit(1))
_ROLES_OF = Prepared(select(Role.role).where(Role.person == bindparam("b_person")))


def roles_configured(session: Session | Connection) -> bool:
    return bool(_ANY_ROLE.rows(connection_of(session)))


def roles_of(name: str, *, session: Session | Connection | None = None) -> frozenset[str]:
    if session is None:
        with session_scope() as s:
            return roles_of(name, session=s)
    rows = _ROLES_OF.rows(connection_of(session), {"b_person": person_key(name)})
    return frozenset(r for (r,) in rows)


def can(actor: str, action: str, kind: str | None = None, *,
        session: Session | Connection | None = None) -> bool:
    """May `actor` do `action` on a run of `kind`? Everyone may while no role is set."""
    if session is None:
        with session_scope() as s:
            return can(actor, action, kind, session=s)
    if not roles_configured(session):
        return True
    return allowed(roles_of(actor, session=session), action, kind)


def require(actor: str, action: str, kind: str | None = None, *,
            session: Session | Connection | None = None) -> None:
    """Raise PermissionDenied, with what the person would need, unless they may act."""
    if can(actor, action, kind, session=session):
        return
    mine = sorted(roles_of(actor, session=session))
    needed = [r for r in ROLES if allowed({r}, action, kind)]
    what = f"{action.replace('_', ' ')} {kind + ' runs' if kind else ''}".strip()
    has = f"your roles: {', '.join(mine)}" if mine else "you have no role yet"
    raise PermissionDenied(
        f"{actor} may not {what} ({has}; needs {' or '.join(needed)}). "
        "Ask an admin (Team page).")


def list_roles() -> list[tuple[str, str, str]]:
    """(person, role, granted by), by person."""
    with session_scope() as s:
        rows = s.exec(select(Role).order_by(Role.person, Role.role)).all()
        return [(r.person, r.role, r.granted_by) for r in rows]


def _check(role: str, person: str) -> str:
    if role not in ROLES:
        raise InvalidInput(f"Unknown role {role!r}; roles are {', '.join(ROLES)}.",
                           {"role": "unknown"})
    key = person_key(person)
    if not key:
        raise InvalidInput("Say whose role this is.", {"person": "is required"})
    if len(key) > 120:
        raise InvalidInput("A name must be at most 120 characters.",
                           {"person": "must be at most 120 characters"})
    return key


def grant(*, actor: str, person: str, role: str, verified: bool = False) -> None:
    """Give `person` a role; only an admin may (anyone while no role is set yet). Recorded in
    the trail of role changes (engine/team_trail.py) with who gave it."""
    key = _check(role, person)
    with session_scope() as s:
        require(actor, "manage_roles", session=s)
        if role not in roles_of(key, session=s):
            s.add(Role(person=key, role=role, granted_by=person_key(actor)))
            record_change(s, actor=person_key(actor), verified=verified, action="grant",
                          person=key, role=role)


def revoke(*, actor: str, person: str, role: str, verified: bool = False) -> None:
    """Take a role away; the last admin stays while other people still have roles."""
    key = _check(role, person)
    with session_scope() as s:
        require(actor, "manage_roles", session=s)
        row = s.exec(select(Role).where(Role.person == key, Role.role == role)).first()
        if row is None:
            return
        admins = s.exec(select(func.count()).select_from(Role).where(Role.role == "admin")).one()
        others = s.exec(select(func.count()).select_from(Role).where(Role.person != key)).one()
        if role == "admin" and admins == 1 and others:
            raise InvalidState("This is the last admin: name another admin first, or nobody "
                               "could manage roles any more.")
        s.delete(row)
        record_change(s, actor=person_key(actor), verified=verified, action="revoke",
                      person=key, role=role)
