"""Team: who has which role, who may approve what, and the trail of changes. Admins give and
take away roles and set each kind's approval policy here (through engine.identity and
engine.approval_policy, which check the admin again and record every change); everyone else
sees the same page read-only, and is told so."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from engine import identity
from engine.approval_policy import set_policy
from engine.errors import ServiceError
from engine.people import team_overview, what_roles_may_do
from engine.team_trail import recent_changes
from ui.markdown import escape_inline
from ui.reviewer import acting, reviewer

FLASH = "_team_flash"
ROLE_HELP = {"clinician": "protocols: start, edit, approve (per policy), reject",
             "marketer": "campaigns: the same", "ops": "costs, traces; halt, retry, budget, "
             "assign any run; never approve or edit", "admin": "everything, and this page"}

st.title("Team")
st.caption("People, their roles, and who may approve what. Every change is recorded below "
           "with who made it.")
flash = st.session_state.pop(FLASH, None)
if flash:
    st.success(flash, icon=":material/check_circle:")

me = reviewer()
team = team_overview()
may_manage = bool(me) and identity.can(me, "manage_roles")
if not team.configured:
    st.info("No roles are set up yet, so everyone may do everything. Give yourself the admin "
            "role first: from then on only admins change roles, and a person without a role "
            "can read but not act.", icon=":material/info:")
elif not me:
    st.warning("Enter your name under **Reviewer** in the sidebar. Only admins change roles; "
               "this page is read-only for you.", icon=":material/lock:")
elif not may_manage:
    mine = sorted(identity.roles_of(me))
    st.warning(f"Read-only: only an admin changes roles or policies (your roles: "
               f"{escape_inline(', '.join(mine)) if mine else 'none'}). Ask one of the admins "
               "listed below.", icon=":material/lock:")


def _act(label: str, fn, **kwargs) -> None:  # type: ignore[no-untyped-def]
    try:
        fn(**acting(), **kwargs)
    except ServiceError as exc:
        st.error(str(exc), icon=":material/error:")
        return
    st.session_state[FLASH] = label
    st.rerun()


# -- people --------------------------------------------------------------------------------

st.subheader("People", anchor=False)
if team.people:
    st.dataframe(pd.DataFrame([{
        "Person": p.person, "Roles": ", ".join(p.roles),
        "Given by": ", ".join(sorted({g for g in p.granted_by if g})) or "–",
        "Since (UTC)": p.since} for p in team.people]), hide_index=True, width="stretch",
        column_config={"Since (UTC)": st.column_config.DatetimeColumn(format="YYYY-MM-DD")})
else:
    st.caption("Nobody has a role yet.")

if may_manage:
    left, right = st.columns(2)
    with left.form("grant_role", clear_on_submit=True):
        st.markdown("**Give a role**")
        person = st.text_input("Person", max_chars=120, placeholder="Name as they sign in",
                               value="" if team.configured else me)
        role = st.selectbox("Role", identity.ROLES, format_func=lambda r: f"{r}: {ROLE_HELP[r]}",
                            index=identity.ROLES.index("admin") if not team.configured else 0)
        if st.form_submit_button("Give role", icon=":material/person_add:", type="primary"):
            _act(f"Gave {person.strip()} the {role} role.", identity.grant, person=person,
                 role=role)
    pairs = [(p.person, r) for p in team.people for r in p.roles]
    with right.form("revoke_role"):
        st.markdown("**Take a role away**")
        pick = st.selectbox("Person and role", pairs, index=None, placeholder="Choose",
                            format_func=lambda x: f"{x[0]}: {x[1]}")
        st.caption("The last admin stays while others have roles.")
        if st.form_submit_button("Take away", icon=":material/person_remove:") and pick:
            _act(f"Took the {pick[1]} role from {pick[0]}.", identity.revoke, person=pick[0],
                 role=pick[1])

# -- who may approve what ---------------------------------------------------------------------

st.subheader("Who approves", anchor=False)
cols = st.columns(len(team.policies))
for col, policy in zip(cols, team.policies, strict=True):
    with col.container(border=True):
        said = policy.describe().removeprefix(f"{policy.kind}: ")
        st.markdown(f"**{policy.kind.title()}s**: {escape_inline(said)}.")
        if not may_manage:
            continue
        with st.form(f"policy_{policy.kind}"):
            roles = st.multiselect("Approver roles", identity.ROLES, default=policy.roles,
                                   key=f"pol_roles_{policy.kind}")
            n = st.radio("Approvals needed", [1, 2], index=policy.approvals - 1,
                         horizontal=True, key=f"pol_n_{policy.kind}",
                         help="2: a second person approves the same version, neither the first "
                              "approver nor its author.")
            if st.form_submit_button("Save policy", icon=":material/save:"):
                _act(f"Saved the {policy.kind} approval policy.", set_policy,
                     kind=policy.kind, roles=roles, approvals=int(n))

with st.expander("What each role may do"):
    st.dataframe(pd.DataFrame(what_roles_may_do(team.policies)), hide_index=True,
                 width="stretch")

# -- the trail --------------------------------------------------------------------------------

st.subheader("Changes", anchor=False)
changes = recent_changes(limit=50)
if changes:
    st.dataframe(pd.DataFrame([{
        "When (UTC)": c.at, "By": c.actor + ("" if c.verified else " (unverified)"),
        "Change": {"grant": "gave", "revoke": "took away", "policy": "set policy"}[c.action]
        if c.action in ("grant", "revoke", "policy") else c.action,
        "Person": c.person or "", "Role": c.role or "", "Detail": c.detail}
        for c in changes]), hide_index=True, width="stretch",
        column_config={"When (UTC)": st.column_config.DatetimeColumn(
            format="YYYY-MM-DD HH:mm")})
else:
    st.caption("No changes recorded yet.")
