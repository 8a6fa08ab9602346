"""The Team page's read model: who has which role (and who gave it), each kind's approval
policy, what each role may do, and the trail of changes. Writes go through the existing
services (engine.identity.grant / revoke, engine.approval_policy.set_policy), which check
that the actor is an admin and record each change (engine/team_trail.py)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel
from sqlmodel import col, select

from db.models import Role
from db.session import session_scope
from engine.approval_policy import ApprovalPolicy, get_policy
from engine.identity import (
    CONTENT_ACTS,
    KIND_ROLE,
    OPERATIONAL_ACTS,
    ROLES,
    VIEWS,
    allowed,
    roles_configured,
)

__all__ = ["PersonRoles", "TeamOverview", "team_overview", "what_roles_may_do"]


class PersonRoles(BaseModel):
    person: str
    roles: list[str]
    """In ROLES order."""
    granted_by: list[str]
    """Who gave each role, in the same order."""
    since: datetime
    """When the person got their first role."""


class TeamOverview(BaseModel):
    configured: bool
    """False while nobody has a role: everyone may do everything, so the first admin can be
    named (engine/identity.py)."""
    people: list[PersonRoles]
    policies: list[ApprovalPolicy]
    """One per kind of run."""


def team_overview() -> TeamOverview:
    with session_scope() as s:
        rows = s.exec(select(Role).order_by(col(Role.person), col(Role.created_at))).all()
        by_person: dict[str, list[Role]] = {}
        for r in rows:
            by_person.setdefault(r.person, []).append(r)
        people = []
        for person, mine in by_person.items():
            mine.sort(key=lambda r: ROLES.index(r.role) if r.role in ROLES else len(ROLES))
            people.append(PersonRoles(person=person, roles=[r.role for r in mine],
                                      granted_by=[r.granted_by for r in mine],
                                      since=min(r.created_at for r in mine)))
        policies = [get_policy(kind, s) for kind in KIND_ROLE]
        return TeamOverview(configured=roles_configured(s), people=people, policies=policies)


def what_roles_may_do(policies: list[ApprovalPolicy]) -> list[dict[str, str]]:
    """One row per act with, per role, "yes", "no" or the kinds it may do it on: the rule in
    engine.identity.allowed spelled out, and for approving the kinds' `policies` (which is
    what the approval gate checks, engine.approval_policy.check_approver)."""
    acts = sorted(CONTENT_ACTS) + sorted(OPERATIONAL_ACTS) + sorted(VIEWS) + ["manage_roles"]
    approvers = {p.kind: {*p.roles, "admin"} for p in policies}
    rows = []
    for act in acts:
        row = {"act": act.replace("_", " ")}
        for role in ROLES:
            if act == "approve":
                kinds = [k for k in KIND_ROLE if role in approvers.get(k, {"admin"})]
                row[role] = ("all runs" if len(kinds) == len(KIND_ROLE)
                             else ", ".join(f"{k}s" for k in kinds) or "no")
            elif act in CONTENT_ACTS or act in OPERATIONAL_ACTS:
                kinds = [k for k in KIND_ROLE if allowed({role}, act, k)]
                row[role] = ("all runs" if len(kinds) == len(KIND_ROLE)
                             else ", ".join(f"{k}s" for k in kinds) or "no")
            else:
                row[role] = "yes" if allowed({role}, act) else "no"
        rows.append(row)
    return rows
