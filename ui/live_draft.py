"""The Run page's view of the drafter's answer while it streams in (issue 16): drawn by the
run's fast polling fragment (ui/run_progress.py), replaced by the committed version when the
step ends. Two elements (the box and one Markdown), since each is a message the browser handles
several times a second."""

from __future__ import annotations

import streamlit as st

from engine.live_draft import LiveView


def render_live_view(live: LiveView) -> None:
    if not live.text:
        return
    if live.agent == "critics":
        head = ("**Critics scoring** · each critic's scores as it finishes · live, not saved: "
                "they are kept when the step ends")
    else:
        head = (f"**{live.agent.replace('_', ' ').capitalize()} is writing** · "
                f"{live.chars:,} characters so far · live, not saved: the version appears "
                "when the step ends")
    with st.container(border=True, key="live_draft"):
        st.markdown(f":small[:gray[:material/stream: {head}]]\n\n{live.text}")
