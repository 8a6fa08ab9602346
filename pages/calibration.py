"""Calibration: can we trust the critics? Each critic's scores set against what people then
did with the same version (engine/calibration.py: two SQL queries), as a chart and a table,
and the versions where they disagreed most, each one click from its Run page."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

import plotly.graph_objects as go
import streamlit as st

from db.connect import database_url
from engine import calibration, identity
from ui import reviewer
from ui.calibration_figures import (
    calibration_figure,
    calibration_table,
    disagreement_lines,
    frame,
    table_markdown,
)
from ui.chart_slot import chart_slot

TTL = 600  # a safety net: the data version in each key already says when figures change
WINDOWS = {"7 days": 7, "30 days": 30, "90 days": 90, "All time": None}
DEFAULT_WINDOW = "7 days"


@st.cache_data(ttl=TTL, show_spinner=False, max_entries=16)
def _rows(url: str, version: tuple[int, int],
          since: datetime | None) -> list[calibration.CalibrationRow]:
    return calibration.calibration(since=since)


@st.cache_data(ttl=TTL, show_spinner=False, max_entries=32)
def _worst(url: str, version: tuple[int, int], limit: int, kind: str | None,
           since: datetime | None) -> list[calibration.Disagreement]:
    return calibration.disagreements(limit=limit, kind=kind, since=since)


@st.cache_data(ttl=TTL, show_spinner=False, max_entries=32)
def _drawn(url: str, version: tuple[int, int], since: datetime | None,
           kind: str) -> tuple[go.Figure, str]:
    """The chart and the table of one window and kind: pandas' grouping and Plotly's checks
    take longer than the page's queries once those are cached, so they are kept as well,
    under the same data version."""
    df = frame(_rows(url, version, since))
    shown = df if kind == "all" else df[df["kind"] == kind]
    return calibration_figure(shown), table_markdown(calibration_table(shown))


def _since(window: str) -> datetime | None:
    """The window's first day, midnight UTC: the same key all day long."""
    days = WINDOWS[window]
    if days is None:
        return None
    first = datetime.now(UTC).date() - timedelta(days=days - 1)
    return datetime.combine(first, time.min, tzinfo=UTC)


st.title("Calibration")
if not identity.can(reviewer.reviewer(), "view_traces"):
    st.warning("Calibration is for clinical leads, marketers, ops and admins. Enter your name "
               "under **Reviewer** in the sidebar.", icon=":material/lock:")
    st.stop()
# The chart's place first (ui/chart_slot.py: the browser fetches Plotly while the queries run);
# the caption and the window and kind choices go in `head`, above it.
head = st.container()
slot = chart_slot("fig_calibration", height=420)
head.caption("Each critic's scores against what people then did with the very version it "
             "scored: approved as is, approved over a flag (overridden), edited (and how much "
             "they kept), sent back, rejected. A critic people agree with scores what they "
             "approve high and what they send back low.")

window = head.segmented_control(
    "What people did in the last", list(WINDOWS), default=DEFAULT_WINDOW, key="cal_window",
    help="Days are UTC. A longer window reads more of the history.") or DEFAULT_WINDOW
since = _since(window)
version = calibration.data_version()
df = frame(_rows(database_url(), version, since))
if df.empty:
    slot.empty()
    head.info("No version has been scored and then approved, edited, sent back or rejected "
              + ("yet." if since is None else f"in the last {window}: widen the window."),
              icon=":material/info:")
    st.stop()
kinds = sorted(df["kind"].unique())
kind = head.segmented_control("Kind", ["all", *kinds], default="all", key="cal_kind") or "all"
figure, table = _drawn(database_url(), version, since, kind)
slot.plotly_chart(figure, key="fig_calibration")
st.subheader("Per critic and prompt version", anchor=False)
st.caption("Mean score (versions) for each thing people did; disagreement is the mean gap "
           "between the score and what people said (approved 1, sent back or rejected 0, "
           "edited: the share they kept).")
st.markdown(table)  # Markdown, not a data grid: see table_markdown
st.subheader("Where critic and people disagreed most", anchor=False)
st.markdown(disagreement_lines(_worst(database_url(), version, 10,
                                      None if kind == "all" else kind, since)))
