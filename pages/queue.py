"""Review queue: runs awaiting a person first, then working, then finished; filters; a click
on a run opens it."""

from __future__ import annotations

import streamlit as st

from engine.views import list_runs
from ui.assigned_queue import render_assigned_first
from ui.queue_view import SECTIONS, render_card, render_counts, render_filters
from ui.reviewer import reviewer

PAGE = 20

st.title("Review queue")
if render_assigned_first(reviewer()):  # "Assigned to me" is the first view
    st.stop()

everything = list_runs(limit=1000)
people = sorted({r.created_by for r in everything} | {r.last_reviewer for r in everything
                                                       if r.last_reviewer})
render_counts(everything)
f = render_filters(people, reviewer())
runs = list_runs(kind=f.kind, statuses=f.statuses or None, reviewer=f.reviewer, search=f.search,
                 since=f.since, until=f.until, limit=1000)

if not everything:
    st.info("No runs yet. Start one and it appears here.", icon=":material/inbox:")
    st.page_link("pages/start.py", label="Start a draft", icon=":material/add_circle:")
    st.stop()
if not runs:
    st.info("No run matches these filters.", icon=":material/filter_alt_off:")
    st.stop()

shown = st.session_state.setdefault("q_shown", PAGE)
left = shown
for title, statuses, icon in SECTIONS:
    group = [r for r in runs if r.status in statuses]
    if not group or left <= 0:
        continue
    st.subheader(f"{icon} {title} ({len(group)})", anchor=False)
    for r in group[:left]:
        render_card(r)
    left -= len(group)

if len(runs) > shown:
    if st.button(f"Show {min(PAGE, len(runs) - shown)} more of {len(runs) - shown}",
                 icon=":material/expand_more:"):
        st.session_state["q_shown"] = shown + PAGE
        st.rerun()
