"""Run: one run's live progress, current draft, scores, history with diffs, blackboard, audit
trail, and the human acts. The run id comes from the URL (?run=ID)."""

from __future__ import annotations

from functools import partial

import streamlit as st

from engine.errors import NotFound
from engine.pipelines.registry import PIPELINES
from engine.run_list import list_runs
from engine.views import get_run
from ui.acts import edit_toggle, render_acts, render_edit_form, show_flash, show_outcome
from ui.audit import render_audit, render_steps
from ui.blackboard import render_blackboard
from ui.figures import score_history_figure
from ui.format import status_label
from ui.governance import render_governance
from ui.history import render_diff, render_versions
from ui.lazy_tabs import lazy_tabs
from ui.memory_view import render_memory  # team (issue 18)
from ui.reviewer import reviewer
from ui.run_progress import render_progress
from ui.run_view import (
    pick_version,
    render_draft,
    render_earlier_note,
    render_flags,
    render_header,
    render_scores,
    render_status_banner,
    render_unknown,
    tab_key,
)
from ui.team_view import has_team, render_team  # team (issue 18)


def _run_id() -> int | None:
    raw = st.query_params.get("run")
    try:
        return int(raw) if raw else None
    except ValueError:
        return None


run_id = _run_id()
if run_id is None:
    st.title("Run")
    runs = list_runs(limit=100)
    if not runs:
        st.info("No runs yet.")
        st.page_link("pages/start.py", label="Start one", icon=":material/add_circle:")
        st.stop()
    pick = st.selectbox("Open a run", [r.id for r in runs], index=None,
                        placeholder="Choose a run",
                        format_func=lambda i: next(f"#{r.id} {r.title} ({status_label(r.status)})"
                                                   for r in runs if r.id == i))
    st.page_link("pages/queue.py", label="Or browse the review queue", icon=":material/inbox:")
    if pick is not None:
        st.query_params["run"] = str(pick)
        st.rerun()
    st.stop()

try:
    detail = get_run(run_id)
except NotFound as exc:
    st.error(str(exc))
    st.page_link("pages/queue.py", label="Back to the review queue", icon=":material/inbox:")
    st.stop()

actor = reviewer()
show_flash(detail)
render_header(detail)
render_unknown(detail)
render_progress(detail)
render_status_banner(detail)
if detail.kind not in PIPELINES:
    # No pipeline to score, act or export with: the stored text only (render_unknown says why).
    if detail.current is not None:
        with st.container(border=True):
            render_draft(detail, detail.current)
    st.stop()

left, right = st.columns([3, 2], gap="large")
with left:
    draft = pick_version(detail)
    earlier = draft is not None and draft.stage != detail.stage  # linked from Calibration
    head, switch = st.columns([4, 1], vertical_alignment="bottom")
    head.subheader(f"Draft v{draft.version}" if draft else "Draft", anchor=False)
    with switch:
        editing = False if earlier else edit_toggle(detail, draft, actor)
    show_outcome(detail.id, ("edit",))
    if draft is None:
        st.caption("The drafter has not written a version yet.")
    else:
        with st.container(border=True):
            if editing:
                render_edit_form(detail, draft)
            else:
                render_draft(detail, draft)
with right:
    st.subheader(f"Scores for v{draft.version}" if draft else "Scores", anchor=False)
    render_scores(detail, draft)
    render_flags(draft)
    st.subheader("Your review", anchor=False)
    if earlier and draft is not None:
        render_earlier_note(detail, draft)
    else:
        render_governance(detail, draft)  # assignment, "1 of 2 approvals", audit verified
        render_acts(detail, draft, actor)

def _score_history() -> None:
    st.plotly_chart(score_history_figure(detail), key=f"scores_{detail.id}",
                    config={"displayModeBar": False})
    st.caption("Dashed lines: thresholds. Stars: versions written by a person.")


def _versions() -> None:
    render_versions(detail)
    render_diff(detail)


# Only the open tab is drawn: a long run's version table, audit trail and steps (data grids
# whose script chunks a fresh page fetches and compiles) wait until their tab is opened.
tabs = {"Score history": _score_history, "Versions & diff": _versions,
        "Blackboard": partial(render_blackboard, detail),
        "Audit trail": partial(render_audit, detail), "Steps": partial(render_steps, detail)}
# -- team (issue 18): a campaign's Team and Memory tabs after the others ---
if has_team(detail):
    tabs |= {"Team": partial(render_team, detail), "Memory": partial(render_memory, detail)}
# -- end team ---
lazy_tabs(tabs, key=tab_key(detail.id))
