"""Review queue: runs awaiting a person first, then working, then finished; filters; a click
on a run opens it. Counts come from the database over every run; each section is paged."""

from __future__ import annotations

import streamlit as st

from engine.queue_wait import queue_places
from engine.run_list import RunFilters, count_runs, list_runs, people
from ui.assigned_queue import render_assigned_first
from ui.intake_chat import render_open_chats
from ui.queue_view import (
    SECTIONS,
    page_of,
    render_card,
    render_counts,
    render_filters,
    render_pager,
)
from ui.reviewer import reviewer

# Cards per section and page: about what one screen shows. Every card is a dozen Streamlit
# elements the browser lays out; at 20 per section (60 on the page) the queue took 1.8 s to its
# first run against 1.25 s at 10 (Chromium, 50,000 runs, load ~8; bench/RESULTS.md).
PAGE = 10

st.title("Review queue")
# -- intake (issue 18, helper "intake"): campaign chats that stopped before confirmation
render_open_chats(5, folded=True)
if render_assigned_first(reviewer()):  # "Assigned to me" is the first view
    st.stop()

totals = count_runs()
render_counts(totals)
f = render_filters(people(), reviewer())
filters = RunFilters(kind=f.kind, statuses=f.statuses or None, reviewer=f.reviewer,
                     search=f.search, since=f.since, until=f.until)
if not totals:
    st.info("No runs yet. Start one and it appears here.", icon=":material/inbox:")
    st.page_link("pages/start.py", label="Start a draft", icon=":material/add_circle:")
    st.stop()
# No filter set: the counts over every run are the matching ones (not one more GROUP BY).
matching = count_runs(filters) if filters != RunFilters() else totals
if not matching:
    st.info("No run matches these filters.", icon=":material/filter_alt_off:")
    st.stop()

# New filters start every section at its first page again.
if st.session_state.get("q_filters") != filters:
    st.session_state["q_filters"] = filters
    for title, _statuses, _icon in SECTIONS:
        st.session_state.pop(f"q_page_{title}", None)

for title, statuses, icon in SECTIONS:
    wanted = [s for s in statuses if not filters.statuses or s in filters.statuses]
    total = sum(matching.get(s, 0) for s in wanted)
    if not total:
        continue
    st.subheader(f"{icon} {title} ({total:,})", anchor=False)
    page = page_of(f"q_page_{title}", total, PAGE)
    query = filters.model_dump() | {"statuses": wanted}
    runs = list_runs(**query, limit=PAGE, offset=page * PAGE)
    queued = [r.id for r in runs if r.status == "queued"]
    places = queue_places(queued) if queued else {}  # place in line, expected wait
    for r in runs:
        render_card(r, places.get(r.id))
    render_pager(f"q_page_{title}", total, PAGE)
