"""The sidebar on every page: who is reviewing, which LLM backend runs, which database."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from db.session import describe_database
from ui import reviewer
from ui.backend import backend_info
from ui.markdown import escape_inline
from ui.worker import WorkerStatus

TEAM_PAGE = "pages/team.py"
_ROOT = Path(__file__).resolve().parent.parent


def render_sidebar(worker: WorkerStatus) -> None:
    with st.sidebar:
        me = reviewer.identity()
        if me.verified:
            st.caption(f":material/verified_user: Signed in as **{escape_inline(me.name)}**")
            st.button("Sign out", on_click=st.logout, icon=":material/logout:")
        elif reviewer.login_configured():
            # Sign-in is configured: typed names are not accepted for acts at all.
            st.button("Sign in", on_click=st.login, icon=":material/login:",
                      help="Acts are recorded under your verified name.")
            st.caption(":material/lock: Sign in to start, edit or approve; typed names are "
                       "not accepted here.")
        else:
            reviewer.prepare_widget()
            st.text_input("Reviewer", key=reviewer.WIDGET_KEY, placeholder="Your name",
                          max_chars=reviewer.MAX_NAME, on_change=reviewer.sync_from_widget,
                          help="Recorded on every act (approve, edit, send back, reject, halt) "
                               "in the run's audit trail, marked unverified. This browser "
                               "remembers it; clear the field to forget it.")
        name = me.name
        if not name and not reviewer.login_configured():
            st.caption(":orange[:material/info: Needed before you start, edit or approve.]")
        elif not name:
            pass  # the sign-in line above says it
        else:
            st.caption(f":material/badge: {escape_inline(reviewer.roles_line(name))}")
        if name and (_ROOT / TEAM_PAGE).is_file():
            # Where roles are given: "Ask an admin" names the admins there.
            st.page_link(TEAM_PAGE, label="Team: roles and approvers", icon=":material/group:")
        st.divider()
        info = backend_info()
        if info.error:
            st.error(info.label, icon=":material/error:")
        elif info.offline:
            st.caption(f":material/memory: **{info.label}**")
        else:
            st.caption(f":material/cloud: {info.label}")
        st.caption(f":material/database: {describe_database()}")
        st.caption(_worker_line(worker))
        reviewer.remember_in_browser()  # last: its (empty) element leaves no gap above


def _worker_line(w: WorkerStatus) -> str:
    # -- concurrency helper: `make run`'s worker process beside the app (ui/worker.py) --
    if w.process is not None:
        return (f":material/autorenew: Worker process {w.process} running beside the app: "
                "queued runs start on their own." if w.alive else
                f":red[:material/error: The worker process {w.process} has stopped: restart "
                "`make run`.]")
    # -- end concurrency helper --
    if not w.enabled:
        return (":material/pause_circle: In-app worker off (DRAFTROOM_INAPP_WORKER=0): runs "
                "wait for `python -m engine worker`.")
    if w.alive:
        return ":material/autorenew: In-app worker running: queued runs start on their own."
    why = escape_inline(w.error or "stopped")
    return f":red[:material/error: In-app worker not running: {why}]"
