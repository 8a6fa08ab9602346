"""Who may approve a kind of run, and how many must: an approval policy per kind, as data.

The defaults live here (protocols: a clinician approves; campaigns: a marketer); an admin may
store another policy per kind in the Setting table (`python -m engine policy set`). With
`approvals: 2` the two-person rule holds: the run is approved only when a second person
approves the same version, and that person is neither the first approver nor the author of
the version. While no role is configured anywhere (a fresh install) the roles are not checked,
like every other act (engine/identity.py); the number of approvers always is."""

from __future__ import annotations

import json
from collections.abc import Iterable

from pydantic import BaseModel, Field, ValidationError, field_validator
from sqlalchemy.engine import Connection
from sqlmodel import Session, col, select

from db.models import HumanAction, Setting, utcnow
from db.session import connection_of, session_scope
from engine.errors import InvalidInput, PermissionDenied
from engine.identity import ROLES, person_key, require, roles_configured, roles_of
from engine.team_trail import record_change

__all__ = ["ApprovalPolicy", "DEFAULT_POLICIES", "get_policy", "set_policy", "ApprovalState",
           "approval_state", "approvals_since_review", "check_approver",
           "current_state", "waiting_line"]

_KEY = "approval_policy:"


class ApprovalPolicy(BaseModel):
    kind: str
    roles: list[str] = Field(min_length=1)
    """The roles whose members may approve this kind of run."""
    approvals: int = Field(default=1, ge=1, le=2)
    """2 = the two-person rule: a second approver, neither the first nor the version's author."""

    @field_validator("roles")
    @classmethod
    def _known(cls, v: list[str]) -> list[str]:
        unknown = [r for r in v if r not in ROLES]
        if unknown:
            raise ValueError(f"unknown role(s) {', '.join(unknown)}; roles are {', '.join(ROLES)}")
        return sorted(set(v), key=ROLES.index)

    def describe(self) -> str:
        who = " or ".join(self.roles)
        if self.approvals == 1:
            return f"{self.kind}: one {who} approves"
        return (f"{self.kind}: two people approve ({who}); the second is neither the first "
                "approver nor the version's author")


DEFAULT_POLICIES = {
    "protocol": ApprovalPolicy(kind="protocol", roles=["clinician"], approvals=1),
    "campaign": ApprovalPolicy(kind="campaign", roles=["marketer"], approvals=1),
}


def get_policy(kind: str, session: Session | Connection | None = None) -> ApprovalPolicy:
    """The stored policy for `kind`, else the default (a kind without one: its owner role)."""
    if session is None:
        with session_scope() as s:
            return get_policy(kind, s)
    row = connection_of(session).execute(
        select(Setting.value).where(Setting.key == _KEY + kind)).first()
    if row is not None:
        try:
            return ApprovalPolicy.model_validate({**json.loads(row[0]), "kind": kind})
        except (ValueError, ValidationError):
            pass  # a hand-edited row that no longer parses: the default still binds
    return DEFAULT_POLICIES.get(kind) or ApprovalPolicy(kind=kind, roles=["admin"])


def set_policy(*, actor: str, kind: str, roles: Iterable[str], approvals: int,
               verified: bool = False) -> ApprovalPolicy:
    """Store a kind's policy; only an admin may (anyone while no role is set yet). Recorded in
    the trail of role changes (engine/team_trail.py)."""
    try:
        policy = ApprovalPolicy(kind=kind, roles=list(roles), approvals=approvals)
    except ValidationError as exc:
        msg = "; ".join(e["msg"].removeprefix("Value error, ") for e in exc.errors())
        raise InvalidInput(f"Invalid approval policy: {msg}.", {"policy": msg}) from None
    with session_scope() as s:
        require(actor, "manage_roles", session=s)
        row = s.get(Setting, _KEY + kind) or Setting(key=_KEY + kind)
        row.value = policy.model_dump_json(exclude={"kind"})
        row.updated_by = person_key(actor)
        row.updated_at = utcnow()
        s.add(row)
        record_change(s, actor=person_key(actor), verified=verified, action="policy",
                      detail=policy.describe())
    return policy


class ApprovalState(BaseModel):
    """Where a version stands against its policy: shown as "1 of 2 approvals"."""

    policy: ApprovalPolicy
    approvers: list[str]
    """Who approved this version so far, in order."""
    verified: list[bool]

    @property
    def count(self) -> int:
        return len(self.approvers)

    @property
    def met(self) -> bool:
        return self.count >= self.policy.approvals

    def label(self) -> str:
        return f"{self.count} of {self.policy.approvals} approvals"


def approval_state(policy: ApprovalPolicy, acts: Iterable[tuple[str, str, bool]]
                   ) -> ApprovalState:
    """From a version's acts (actor, action, verified), oldest first: the approvals that count
    (each person once)."""
    names: list[str] = []
    verified: list[bool] = []
    for actor, action, ver in acts:
        if action.startswith("approve") and person_key(actor) not in map(person_key, names):
            names.append(actor)
            verified.append(ver)
    return ApprovalState(policy=policy, approvers=names, verified=verified)


# Acts that change who works on a run or what it may spend, not the version under review.
_KEEPS_APPROVALS = frozenset({"assign", "budget"})


def approvals_since_review(s: Session, run_id: int, draft_id: int | None
                           ) -> list[tuple[str, str, bool]]:
    """The approvals of `draft_id` since the run last came back for review, as (actor, action,
    verified): any other act (an edit, a revision, a retry...) starts the count again."""
    acts = s.exec(select(HumanAction).where(HumanAction.run_id == run_id)
                  .order_by(col(HumanAction.id))).all()
    out: list[tuple[str, str, bool]] = []
    for a in acts:
        if a.action.startswith("approve"):
            if a.draft_id == draft_id:
                out.append((a.actor, a.action, a.verified))
        elif a.action not in _KEEPS_APPROVALS:
            out = []
    return out


def check_approver(s: Session, policy: ApprovalPolicy, state: ApprovalState, *, actor: str,
                   author: str, author_kind: str) -> None:
    """Refuse an approval the policy does not allow (a wrong role, the same person twice, the
    version's author as second approver)."""
    me = person_key(actor)
    if me in map(person_key, state.approvers):
        raise InvalidInput(
            f"You already approved this version; the {policy.kind} policy needs "
            f"{policy.approvals} different people ({state.label()}).", {"actor": "same person"})
    if state.count >= 1 and author_kind == "human" and person_key(author) == me:
        raise InvalidInput(
            f"You wrote this version, so you cannot be its second approver; another "
            f"{' or '.join(policy.roles)} must approve it.", {"actor": "author"})
    # An admin may do everything (engine/identity.py), approving included.
    may = {*policy.roles, "admin"}
    if roles_configured(s) and not may & roles_of(actor, session=s):
        mine = sorted(roles_of(actor, session=s))
        has = f"your roles: {', '.join(mine)}" if mine else "you have no role yet"
        needs = " or ".join(r for r in ROLES if r in may)
        raise PermissionDenied(
            f"{actor} may not approve {policy.kind} runs ({has}; the approval policy needs "
            f"{needs}). Ask an admin (Team page).")


def current_state(run_id: int, draft_id: int | None, kind: str) -> ApprovalState:
    """Where a version of a run stands against its kind's policy now."""
    with session_scope() as s:
        return approval_state(get_policy(kind, s), approvals_since_review(s, run_id, draft_id))


def waiting_line(run_id: int, draft_id: int | None) -> str:
    """What a partly approved run waits for, in a sentence."""
    with session_scope() as s:
        from db.models import Run

        run = s.get(Run, run_id)
        kind = run.kind if run else ""
    state = current_state(run_id, draft_id, kind)
    who = " or ".join(state.policy.roles)
    return (f"{state.label()}: waiting for a second approver ({who}) who is neither "
            f"{', '.join(state.approvers)} nor the version's author.")
