"""Who is acting: a name kept for the browser session (st.session_state), set in the sidebar
and passed as the actor of every human act. Not a login: the audit trail marks it unverified."""

from __future__ import annotations

import streamlit as st

KEY = "reviewer"
WIDGET_KEY = "reviewer_input"
MISSING_HINT = "Enter your name under **Reviewer** in the sidebar to act on runs."


def reviewer() -> str:
    return str(st.session_state.get(KEY) or "").strip()


def sync_from_widget() -> None:
    """on_change of the sidebar field: keep the name under a key Streamlit never cleans up
    (widget state is dropped when a page switch re-creates the widget)."""
    st.session_state[KEY] = str(st.session_state.get(WIDGET_KEY) or "").strip()


def prepare_widget() -> None:
    """Before drawing the sidebar field: show the name kept for this session."""
    st.session_state[WIDGET_KEY] = reviewer()
