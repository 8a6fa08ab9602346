"""The Run page's live progress (issue 15): while a run waits it says where it stands in line
and for about how long; while it runs, which agent is doing what, for how long, each step of
this burst as it lands, and the draft (or the critics' scores) streaming in.

Two fragments poll, each doing as little as it can per poll (issue 16: text a server streams is
on the screen within a second, on a loaded machine too). The streaming one runs every LIVE_POLL
while a worker drives the run and draws one box: one statement (engine.live_draft.poll: the
run's version and the live row) and two elements. The progress box, whose step timers move
slowly, runs every PROGRESS_POLL. Either one, seeing the run's version move (a step committed,
a person acted), reruns the whole page from one fresh read; nothing else does while the draft
streams in. Once the run stops both stop polling and draw nothing, so no "Queued" or "Working"
box is left above the outcome."""

from __future__ import annotations

from datetime import UTC, datetime

import streamlit as st

from engine.live_draft import LiveView, poll
from engine.progress import StepLine, headline, round_of, step_lines
from engine.queue_wait import queue_places
from engine.run_state import RunStatus
from engine.views import RunDetail
from ui.format import duration
from ui.live_draft import render_live_view
from ui.markdown import escape_inline
from ui.worker import ensure_worker

LIVE_POLL = 0.2
PROGRESS_POLL = 1.0
QUEUED_POLL = 1.0
# A fragment rerun marks what it redraws as stale, and Streamlit fades stale elements: polled
# five times a second, the progress box and the live draft would flicker grey. They are fresh
# by construction (redrawn from the database at every poll), so they are never faded.
NO_FADE = ("<style>div[data-stale]:has(> .st-key-run_progress), "
           "div[data-stale]:has(> .st-key-live_draft), .st-key-run_progress [data-stale], "
           ".st-key-live_draft [data-stale] {opacity: 1 !important; transition: none !important}"
           "</style>")
ICON = {"done": ":green[:material/check_circle:]", "running": ":blue[:material/autorenew:]",
        "error": ":red[:material/error:]", "stopped": ":orange[:material/pause_circle:]",
        "abandoned": ":gray[:material/replay:]"}


def render_progress(detail: RunDetail) -> None:
    """Live progress while the run is queued or running; nothing once it stopped."""
    active = detail.status in RunStatus.ACTIVE
    running = detail.status == RunStatus.RUNNING
    every = (PROGRESS_POLL if running else QUEUED_POLL) if active else None

    @st.fragment(run_every=every)
    def _progress() -> None:
        if not active:
            return
        now = poll(detail.id)
        if now.version != detail.version:
            st.rerun()  # a step landed or a person acted: redraw the page from a fresh read
        with st.container(border=True, key="run_progress"):
            if detail.status == RunStatus.QUEUED:
                _queued(detail)
            else:
                _running(detail, now.live)

    @st.fragment(run_every=LIVE_POLL if running else None)
    def _streaming() -> None:
        if not running:
            return
        now = poll(detail.id)
        if now.version != detail.version:
            st.rerun()  # the step committed: its version replaces the live text
        if now.live is not None:
            render_live_view(now.live)

    # One fixed slot, drawn on every rerun whether or not the run is active: the elements after
    # it (the status banner, the draft) keep their place in the page, so a poll of an old
    # fragment that lands after the run stopped cannot write over or blank them.
    with st.container(key="progress_slot"):
        if active:
            st.html(NO_FADE)
        _progress()
        _streaming()


def _since(detail: RunDetail) -> datetime:
    """When the current burst of work began: the run's creation or the last human act."""
    start = detail.created_at
    if detail.actions:
        start = max(start, detail.actions[-1].at)
    return start if start.tzinfo else start.replace(tzinfo=UTC)


def _queued(detail: RunDetail) -> None:
    waited = duration((datetime.now(UTC) - _since(detail)).total_seconds())
    place = queue_places([detail.id]).get(detail.id)
    where = place.sentence() if place is not None else "about to start"
    st.markdown(f":material/schedule: **Queued** · {escape_inline(where)} · waiting {waited}")
    worker = ensure_worker()
    if not worker.alive and worker.process is None and not worker.enabled:
        st.caption("No worker runs in this app: start one with `python -m engine worker`.")
    elif not worker.alive:
        st.caption(f":red[The worker is not running: {escape_inline(worker.error or 'stopped')}]")


def _running(detail: RunDetail, live: LiveView | None) -> None:
    now = datetime.now(UTC)
    lines = step_lines(detail, live, now)
    took = duration((now - _since(detail)).total_seconds())
    st.markdown(f":material/autorenew: **{escape_inline(headline(detail, lines))}** · "
                f"round {round_of(detail, lines)} of at most {detail.max_iterations} · "
                f"{took} in all")
    st.progress(min(1.0, detail.iteration / max(1, detail.max_iterations)))
    if lines:  # one element for all the steps: each element is a message to the browser
        st.markdown("\n\n".join(_line(line) for line in lines))


def _line(line: StepLine) -> str:
    icon = ICON.get(line.state, ":material/circle:")
    secs = f"{line.seconds:.1f} s" if line.seconds < 10 else duration(line.seconds)
    so_far = " so far" if line.state == "running" else ""
    live = f" · {escape_inline(line.live)}" if line.live else ""
    return (f"{icon} **{escape_inline(line.who)}** {escape_inline(line.what)} · "
            f"{secs}{so_far}{live}")
