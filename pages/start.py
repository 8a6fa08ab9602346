"""Start: a form for a new protocol or campaign; on success, go to the run's page."""

from __future__ import annotations

import importlib.util

import streamlit as st

from engine.run_list import list_runs
from ui import pii_notice
from ui.format import ago, status_badge
from ui.markdown import escape_inline
from ui.protocol_form import render_protocol_form
from ui.reviewer import reviewer

st.title("Start a draft")
st.caption("Agents draft, critics score, the supervisor loops; you review, edit and approve.")

KINDS = {"Protocol": "A CBT exercise for clients", "Campaign": "Brand messages for channels"}
kind = st.segmented_control("What are you drafting?", list(KINDS), default="Protocol",
                            key="start_kind") or "Protocol"
st.caption(KINDS[kind])

actor = reviewer()
run_id: int | None = None
if kind == "Protocol":
    run_id = render_protocol_form(actor)
elif importlib.util.find_spec("ui.campaign_form") is None:
    st.info("Campaigns are not available yet.", icon=":material/construction:")
else:
    from ui.campaign_form import render_campaign_form

    # -- intake (issue 18): the same campaign, planned in conversation instead of this form
    st.page_link("pages/intake.py", label="Or plan it in conversation with the onboarding agent",
                 icon=":material/forum:")
    run_id = render_campaign_form(actor)

if run_id and not pii_notice.hold(run_id):
    st.switch_page("pages/run.py", query_params={"run": str(run_id)})
pii_notice.show()

if actor:
    mine = list_runs(reviewer=actor, limit=5)
    if mine:
        st.subheader("Your recent runs", divider="gray")
        for r in mine:
            st.page_link("pages/run.py", query_params={"run": str(r.id)},
                         label=f"#{r.id} {escape_inline(r.title)}", icon=":material/article:")
            st.caption(f"{status_badge(r.status)} · {r.kind} · updated {ago(r.updated_at)}")
