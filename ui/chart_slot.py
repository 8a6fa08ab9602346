"""A chart's place on the page, drawn before its data is read.

Streamlit's browser side fetches Plotly's script (4.7 MB, ~1 s to fetch and compile on a cold
visit) only when the first chart element reaches it. A page that reads its data first sends
that element late, and the browser then fetches and compiles Plotly after the page's Python
is done. Drawing an empty figure of the chart's height at the chart's place, before the
queries, starts that fetch while the Python still works; the real figure replaces it in the
same place (nothing below moves). The bench (bench/bench_pages.py) waits for a chart with
data, so the placeholder never counts as the page's first chart."""

from __future__ import annotations

import threading

import plotly.graph_objects as go
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

LOADING = "Loading…"


def placeholder_figure(height: int) -> go.Figure:
    """An empty figure `height` px tall that says it is loading: no traces, no axes."""
    fig = go.Figure()
    fig.update_layout(height=height, template="plotly_white",
                      margin={"l": 10, "r": 10, "t": 40, "b": 10},
                      xaxis={"visible": False}, yaxis={"visible": False})
    fig.add_annotation(text=LOADING, showarrow=False, x=0.5, y=0.5, xref="paper",
                       yref="paper", font={"color": "#94a3b8"})
    return fig


def chart_slot(key: str, height: int = 450, where: DeltaGenerator | None = None) -> DeltaGenerator:
    """A place for one chart (in `where`, else the page), holding a placeholder until the
    caller draws the real chart into it with `slot.plotly_chart(...)`."""
    slot = (where or st).empty()
    slot.plotly_chart(placeholder_figure(height), key=f"{key}__loading",
                      config={"staticPlot": True})
    return slot


def _build_one() -> None:
    # Plotly builds its figure machinery (validators, the template) on the first figure of the
    # process: 0.2-1.2 s here depending on the load, paid by whichever page draws first.
    placeholder_figure(100).to_json()


@st.cache_resource(show_spinner=False)
def warm_plotly() -> threading.Thread:
    """Once per process, in the background: build one figure so that the first page to draw
    a chart after a restart does not pay Plotly's one-off set-up. A daemon thread; a page
    that needs Plotly meanwhile waits at most for what is left of it (the import lock)."""
    worker = threading.Thread(target=_build_one, name="warm-plotly", daemon=True)
    worker.start()
    return worker
