"""The Run page's governance panel: who the run is assigned to (and reassigning it), where the
version stands against the approval policy ("1 of 2 approvals"), and whether the audit trail
verifies. Drawn in its own component so the page keeps one line for it."""

from __future__ import annotations

import streamlit as st

from db.session import session_scope
from engine.approval_policy import current_state
from engine.assignment import ROLE_PREFIX, assign, assignee_label
from engine.audit_chain import verify_run
from engine.errors import ServiceError
from engine.identity import ROLES
from engine.run_state import RunStatus
from engine.views import DraftView, RunDetail
from ui.markdown import escape_inline
from ui.reviewer import acting

__all__ = ["render_governance", "render_chain_status", "assigned_to"]


def assigned_to(run_id: int) -> str | None:
    from db.models import Run

    with session_scope() as s:
        run = s.get(Run, run_id)
        return run.assigned_to if run else None


def render_approvals(detail: RunDetail, draft: DraftView | None) -> None:
    if draft is None or detail.status not in (RunStatus.REVIEW, RunStatus.APPROVED):
        return
    shown = draft if detail.status == RunStatus.REVIEW else detail.draft(detail.approved_draft_id)
    if shown is None:
        return
    state = current_state(detail.id, shown.id, detail.kind)
    who = ", ".join(f"{escape_inline(n)} ({'verified' if v else 'unverified'})"
                    for n, v in zip(state.approvers, state.verified, strict=True))
    icon = ":material/task_alt:" if state.met else ":material/how_to_reg:"
    line = f"{icon} **{state.label()}** for v{shown.version}" + (f": {who}" if who else "")
    st.markdown(line)
    st.caption(f"Policy: {escape_inline(state.policy.describe())}.")


def render_chain_status(run_id: int) -> None:
    with session_scope() as s:
        broken = verify_run(s, run_id)
    if broken is None:
        st.caption(":green[:material/verified: Audit trail verified]: every act's hash and "
                   "link holds.")
    else:
        where = f"act {broken.position}" if broken.act_id is not None else "its last act"
        st.error(f"Audit trail broken at {where}: {broken.why}.", icon=":material/gpp_bad:")


def _assign(run_id: int, key: str) -> None:
    choice = str(st.session_state.get(key) or "")
    try:
        target = assign(run_id=run_id, assignee=choice, **acting())  # type: ignore[arg-type]
    except ServiceError as exc:
        st.session_state[f"{key}_error"] = str(exc)
    else:
        st.session_state.pop(f"{key}_error", None)
        st.toast(f"Assigned to {assignee_label(target)}.", icon=":material/assignment_ind:")


def render_assignment(run_id: int, key_prefix: str = "run") -> None:
    """The assignee and a small form to (re)assign: a role, a name, or nobody."""
    now = assigned_to(run_id)
    st.markdown(f":material/assignment_ind: Assigned to **{escape_inline(assignee_label(now))}**")
    key = f"{key_prefix}_assign_{run_id}"
    with st.form(f"{key}_form", border=False):
        left, right = st.columns([2, 1], vertical_alignment="bottom")
        left.selectbox("Assignee", ["", *(ROLE_PREFIX + r for r in ROLES)], key=key,
                       accept_new_options=True, format_func=lambda v: assignee_label(v or None),
                       help="A role (anyone with it), or type a person's name.")
        right.form_submit_button("Assign", on_click=_assign, args=(run_id, key),
                                 icon=":material/assignment_ind:")
    if err := st.session_state.get(f"{key}_error"):
        st.error(err, icon=":material/error:")


def render_governance(detail: RunDetail, draft: DraftView | None) -> None:
    render_approvals(detail, draft)
    if detail.status not in RunStatus.FINAL:
        render_assignment(detail.id)
    render_chain_status(detail.id)
