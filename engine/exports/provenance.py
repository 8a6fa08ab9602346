"""Who approved an exported version and how: every approver with verified/unverified (a login
or an MCP token, versus a typed name), the approval policy and whether it was met, and every
override of an open flag with its reason. Exports (Markdown, PDF) print this; an export of a
version that is not approved says DRAFT instead."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel

from db.session import session_scope
from engine.approval_policy import approval_state, approvals_since_review, get_policy
from engine.views import ActionView, DraftView, RunDetail

__all__ = ["Approver", "Provenance", "provenance", "override_acts", "DRAFT_MARK", "OVERRIDE_MARK"]

DRAFT_MARK = "DRAFT - NOT APPROVED"
OVERRIDE_MARK = "APPROVED WITH OVERRIDE"


class Approver(BaseModel):
    name: str
    verified: bool
    at: datetime
    override_reason: str | None

    def label(self) -> str:
        return f"{self.name} ({'verified' if self.verified else 'unverified'})"


class Provenance(BaseModel):
    run_id: int
    version: int
    status: str
    approved: bool
    """True only for the run's approved version of an approved (or stage-approved) run."""
    approvers: list[Approver]
    policy: str
    approvals_needed: int
    overridden_flags: list[str] = []
    """The open blocking flags of the version that an approver overrode, as "category:
    sentence" (empty unless someone approved it over them)."""

    @property
    def overrides(self) -> list[Approver]:
        return [a for a in self.approvers if a.override_reason]

    @property
    def overridden(self) -> bool:
        """Approved over an open flag: exports and pages say so wherever they say approved."""
        return self.approved and bool(self.overrides)

    def mark(self) -> str:
        """What an approved version's footer starts with: an override is never a plain
        "Approved" ("" for a version that is not approved: it carries DRAFT_MARK instead)."""
        if not self.approved:
            return ""
        if not self.overridden:
            return "Approved"
        n = len(self.overridden_flags) or len(self.overrides)
        return f"{OVERRIDE_MARK} ({n} open flag{'s' if n != 1 else ''})"

    @property
    def policy_met(self) -> bool:
        return self.approved and len(self.approvers) >= self.approvals_needed

    def who(self) -> str:
        return ", ".join(a.label() for a in self.approvers)

    def lines(self) -> list[str]:
        """The provenance as plain sentences, one per line (Markdown list items, PDF lines)."""
        if not self.approved:
            out = [f"{DRAFT_MARK}: version {self.version} of Draftroom run {self.run_id} "
                   f"(status {self.status.replace('_', ' ')}); do not use it as final."]
            if self.approvers:
                out.append(f"Approvals so far ({len(self.approvers)} of "
                           f"{self.approvals_needed}): {self.who()}; policy: {self.policy}")
            return out
        out = []
        if self.overridden:  # first, so nobody reads "Approved by" without seeing it
            n = len(self.overridden_flags)
            what = f"{n} open flags" if n > 1 else "an open flag"
            out.append(f"{OVERRIDE_MARK}: this version was approved over {what} the "
                       "checks raised")
            out += [f"Overridden flag: {f}" for f in self.overridden_flags]
        out += [f"Approved by {a.label()} on {a.at:%Y-%m-%d %H:%M} UTC" for a in self.approvers]
        met = "met" if self.policy_met else "NOT met"
        out.append(f"Approval policy {met}: {self.policy} ({len(self.approvers)} of "
                   f"{self.approvals_needed} approvals)")
        out += [f"Override of an open flag by {a.name}: {a.override_reason}"
                for a in self.overrides]
        out.append(f"Version {self.version}, Draftroom run {self.run_id}")
        return out


def provenance(detail: RunDetail, draft: DraftView, *, approved: bool | None = None
               ) -> Provenance:
    """The provenance of `draft` (the version being exported) in `detail`'s run; `approved`
    for a stage of a multi-stage run (default: it is the run's approved version)."""
    if approved is None:
        approved = draft.id == detail.approved_draft_id
    with session_scope() as s:
        policy = get_policy(detail.kind, s)
        acts = approvals_since_review(s, detail.id, draft.id)
    state = approval_state(policy, acts)
    by_actor = {}
    for a in detail.actions:  # the act rows give the time and the override reason
        if a.action.startswith("approve") and a.draft_id == draft.id:
            by_actor[a.actor] = a
    approvers = [Approver(name=n, verified=v, at=by_actor[n].at,
                          override_reason=by_actor[n].comment
                          if by_actor[n].action.endswith("_override") else None)
                 for n, v in zip(state.approvers, state.verified, strict=True) if n in by_actor]
    overridden = ([f"{f.category.replace('_', ' ')}: “{f.text}”" for f in draft.flags
                   if f.blocking] if any(a.override_reason for a in approvers) else [])
    return Provenance(run_id=detail.id, version=draft.version, status=detail.status,
                      approved=approved, approvers=approvers, policy=policy.describe(),
                      approvals_needed=policy.approvals, overridden_flags=overridden)


def override_acts(detail: RunDetail) -> list[ActionView]:
    """The approvals given over an open flag that count: on a version that was then approved
    (a stage's or the run's), not one sent back afterwards. Empty for a clean approval."""
    approved = {a.draft_id for a in detail.actions if a.action in ("approve", "approve_override")}
    return [a for a in detail.actions
            if a.action.endswith("_override") and a.draft_id in approved]
