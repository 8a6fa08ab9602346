"""The Run page's view of the drafter's answer while it streams in (issue 16): drawn inside the
run's polling fragment (ui/run_progress.py), replaced by the committed version when the step
ends."""

from __future__ import annotations

import streamlit as st

from engine.live_draft import LiveView, live_draft


def render_live_draft(run_id: int) -> None:
    live = live_draft(run_id)
    if live is not None:
        render_live_view(live)


def render_live_view(live: LiveView) -> None:
    if not live.text:
        return
    with st.container(border=True, key="live_draft"):
        if live.agent == "critics":
            st.caption(":material/stream: **Critics scoring** · each critic's scores as it "
                       "finishes · live, not saved: they are kept when the step ends")
        else:
            st.caption(f":material/stream: **{live.agent.replace('_', ' ').capitalize()} is "
                       f"writing** · {live.chars:,} characters so far · live, not saved: the "
                       "version appears when the step ends")
        st.markdown(live.text)
