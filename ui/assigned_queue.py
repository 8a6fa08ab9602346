"""The review queue's first view, "Assigned to me": the open runs assigned to the person or to
one of their roles, and a form to assign any open run from the queue. It is the view the queue
opens on whenever something is assigned to the person; otherwise the queue opens on all runs."""

from __future__ import annotations

import streamlit as st

from engine.assignment import assigned_to_me
from engine.run_list import list_runs
from engine.run_state import RunStatus
from ui.governance import render_assignment
from ui.queue_view import render_card

MINE, ALL = "mine", "all"


def render_assigned_first(me: str) -> bool:
    """Draw the view switch; True when "Assigned to me" is shown (the page stops there)."""
    ids = assigned_to_me(me) if me else []
    options = [MINE, ALL] if me else [ALL]
    # The first view; it opens on its own when something waits there (an empty list first
    # would only hide the queue).
    view = st.segmented_control(
        "View", options, default=MINE if ids else ALL, key="q_view",
        label_visibility="collapsed",
        format_func=lambda v: f"Assigned to me ({len(ids)})" if v == MINE else "All runs")
    if view != MINE:
        return False
    if ids:
        runs = {r.id: r for r in list_runs(ids=ids, limit=len(ids))}
        for run_id in ids:
            if run_id in runs:
                render_card(runs[run_id])
    else:
        st.info("Nothing is assigned to you or your roles. Switch to **All runs**, or assign "
                "one below.", icon=":material/assignment_ind:")
    _assign_form()
    return True


def _assign_form() -> None:
    open_runs = list_runs(statuses=[s for s in RunStatus.ALL if s not in RunStatus.FINAL],
                          limit=200)
    if not open_runs:
        return
    with st.expander("Assign a run", icon=":material/assignment_ind:"):
        titles = {r.id: f"#{r.id} {r.title}" for r in open_runs}
        pick = st.selectbox("Run", list(titles), format_func=titles.__getitem__,
                            key="q_assign_run")
        if pick is not None:
            render_assignment(int(pick), key_prefix="queue")
