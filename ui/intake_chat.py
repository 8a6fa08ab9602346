"""The chat of the "New campaign" page: how to start one (a new business, or an existing
brand), the open chats to resume, the messages, and the input that sends the next one."""

from __future__ import annotations

from typing import Any

import streamlit as st

from engine.errors import ServiceError
from engine.intake import service
from engine.intake.service import IntakeView
from engine.llm.base import LLMError
from engine.pipelines.campaign.brands import list_brands
from ui.format import ago
from ui.markdown import escape, escape_inline

PARAM = "intake"
ERROR = "intake_error"


def current_id() -> int | None:
    raw = st.query_params.get(PARAM)
    return int(raw) if raw and str(raw).isdigit() else None


def open_chat(intake_id: int) -> None:
    st.query_params[PARAM] = str(intake_id)
    st.rerun()


def render_start(actor: str) -> None:
    """Start a chat for a new business or an existing brand."""
    brands = {b.id: b.name for b in list_brands()}
    with st.container(border=True):
        who = st.radio("Who is the campaign for?", ["A new business", "An existing brand"],
                       horizontal=True, key="intake_for")
        brand_id = None
        if who == "An existing brand":
            brand_id = st.selectbox("Brand", list(brands), format_func=lambda i: brands[i],
                                    key="intake_brand")
        if st.button("Start the chat", type="primary", icon=":material/forum:",
                     disabled=not actor, key="intake_start"):
            try:
                view = service.start_intake(actor=actor, brand_id=brand_id)
            except ServiceError as exc:
                st.error(str(exc))
                return
            open_chat(view.id)


def render_open_chats(limit: int = 10, *, folded: bool = False) -> None:
    """Chats to resume; `folded`: in a closed expander (the review queue's)."""
    chats = service.list_open(limit)
    if not chats:
        return
    where = st.expander(f"Campaign chats to resume ({len(chats)})", icon=":material/forum:") \
        if folded else st.container()
    with where:
        if not folded:
            st.subheader("Open chats", anchor=False, divider="gray")
        st.caption("Chats that stopped before the card was confirmed; nothing was saved from "
                   "them yet. Pick one up where it stopped.")
        _chat_links(chats)


def _chat_links(chats: list[service.IntakeSummary]) -> None:
    for c in chats:
        st.page_link("pages/intake.py", query_params={PARAM: str(c.id)},
                     label=f"#{c.id} {escape_inline(c.label)} · {c.missing} to go",
                     icon=":material/forum:")
        st.caption(f"{escape_inline(c.created_by)} · {ago(c.updated_at)}")


def render_messages(view: IntakeView) -> None:
    for m in view.messages:
        with st.chat_message("assistant" if m.role == "agent" else "user"):
            # The agent's card is Markdown it wrote; a person's words are shown as typed.
            st.markdown(m.text if m.role == "agent" else escape(m.text))


def _send(view_id: int, actor: str) -> None:
    text: Any = st.session_state.get(f"intake_input_{view_id}")
    if not text:
        return
    try:
        service.send_message(intake_id=view_id, text=str(text), actor=actor)
    except (ServiceError, LLMError) as exc:
        st.session_state[ERROR] = f"Not sent: {exc}"


def render_input(view: IntakeView, actor: str) -> None:
    if st.session_state.get(ERROR):
        st.error(st.session_state.pop(ERROR), icon=":material/error:")
    done = view.status != "open"
    placeholder = ("This chat is finished." if done else
                   "Enter your name under Reviewer first." if not actor else
                   "Tell the agent about the business or the campaign")
    st.chat_input(placeholder, key=f"intake_input_{view.id}", disabled=done or not actor,
                  on_submit=_send, args=(view.id, actor), max_chars=4000)
