"""New campaign: an onboarding agent collects the business card and the campaign goal in a
chat, the card filling in beside it; the campaign starts when the person confirms the card."""

from __future__ import annotations

import streamlit as st

from engine.errors import NotFound
from engine.intake import service
from ui.intake_card import render_card
from ui.intake_chat import (
    PARAM,
    current_id,
    render_input,
    render_messages,
    render_open_chats,
    render_start,
)
from ui.reviewer import MISSING_HINT, reviewer

st.title("New campaign")
actor = reviewer()
intake_id = current_id()
if intake_id is None:
    st.caption("Plan a campaign in conversation: say what you know in any order, the agent "
               "asks for the rest, and nothing is saved until you confirm the card.")
    if not actor:
        st.caption(MISSING_HINT)
    render_start(actor)
    render_open_chats()
    st.stop()

try:
    view = service.get_intake(intake_id)
except NotFound as exc:
    st.error(str(exc))
    st.query_params.pop(PARAM, None)
    st.stop()

chat, card = st.columns([3, 2], gap="large")
with chat:
    # A scrolling box keeps the card beside the latest messages however long the chat gets.
    with st.container(height=560, border=False):
        render_messages(view)
    render_input(view, actor)
    if view.run_id:
        st.success(f"Campaign started: run {view.run_id}.", icon=":material/campaign:")
        st.page_link("pages/run.py", query_params={"run": str(view.run_id)},
                     label="Open the campaign", icon=":material/article:")
with card:
    render_card(view)
    if st.button("Start another chat", icon=":material/add:", key="intake_new"):
        st.query_params.pop(PARAM, None)
        st.rerun()
