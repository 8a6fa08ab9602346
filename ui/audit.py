"""The audit trail of human acts and the supervisor's steps, as tables."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
import streamlit as st

from engine.views import RunDetail
from ui.format import ACTION, NODE

ROOT = Path(__file__).resolve().parent.parent


def render_audit(detail: RunDetail) -> None:
    if not detail.actions:
        st.caption("No human acts yet.")
        return
    version = {d.id: d.version for d in detail.drafts}
    frame = pd.DataFrame([{
        "When": a.at,
        "Who": a.actor + ("" if a.verified else " (unverified)"),
        "Act": ACTION.get(a.action, a.action),
        "Version": f"v{version[a.draft_id]}" if a.draft_id in version else "",
        "Comment": a.comment or "",
    } for a in reversed(detail.actions)])
    st.dataframe(frame, hide_index=True, width="stretch", column_config={
        "When": st.column_config.DatetimeColumn(format="D MMM YYYY, HH:mm:ss"),
        "Comment": st.column_config.TextColumn(width="large"),
    })
    st.caption("Names marked (unverified) were typed in the sidebar; names from a sign-in are "
               "verified.")


def render_steps(detail: RunDetail) -> None:
    if not detail.steps:
        st.caption("No steps yet.")
        return
    now = datetime.now(UTC)

    def secs(s) -> float:  # type: ignore[no-untyped-def]
        end = s.finished_at or now
        start = s.started_at
        if start.tzinfo is None:
            start = start.replace(tzinfo=UTC)
        if end.tzinfo is None:
            end = end.replace(tzinfo=UTC)
        return round((end - start).total_seconds(), 2)

    frame = pd.DataFrame([{
        "#": s.seq, "Step": NODE.get(s.node, s.node), "Stage": s.stage,
        "Iteration": s.iteration, "Status": s.status, "Started": s.started_at,
        "Seconds": secs(s), "Outcome": s.error or s.detail or "",
    } for s in reversed(detail.steps)])
    st.dataframe(frame, hide_index=True, width="stretch", column_config={
        "Started": st.column_config.DatetimeColumn(format="HH:mm:ss"),
        "Outcome": st.column_config.TextColumn(width="large"),
    })
    if (ROOT / "pages" / "traces.py").is_file():
        st.page_link("pages/traces.py", label="Open the full trace (calls, prompts, responses)",
                     icon=":material/timeline:", query_params={"run": str(detail.id)})
