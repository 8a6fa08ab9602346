"""The Traces page's figures: a run's timeline (steps with their LLM calls nested, long waits
collapsed) and the script that brings a clicked call's details into view. Pure functions of
engine.traces' read models, so tests check them without a browser."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from datetime import datetime

import plotly.graph_objects as go

from engine.traces import CallSpan, RunTrace, StepSpan
from ui.figures import plain
from ui.ops_figures import ERROR_RED, seconds, usd

# Agents' colours on the timeline: no red or pink, which mean an error there.
AGENT_PALETTE = ("#2563eb", "#059669", "#7c3aed", "#d97706", "#0891b2", "#65a30d", "#475569")
STEP_GREY = "#cbd5e1"
STEP_FAILED = "#fca5a5"


@dataclass(frozen=True)
class Gap:
    at: float
    """Where the gap sits on the compressed axis (seconds of activity)."""
    real_seconds: float


class ActiveClock:
    """Seconds of activity since the run began, with idle gaps (a person reading, a worker
    waiting) longer than `max_gap_s` shown as `shown_gap_s`: a run that waited three hours
    for review still shows its steps side by side, each bar its true length."""

    def __init__(self, spans: list[tuple[datetime, datetime]], *, max_gap_s: float = 30.0,
                 shown_gap_s: float = 2.0) -> None:
        spans = sorted((s, max(s, e)) for s, e in spans)
        self.origin = spans[0][0] if spans else datetime.fromtimestamp(0)
        self._starts: list[datetime] = []  # real time where a collapsed gap ends
        self._removed: list[float] = []  # seconds removed up to and including that gap
        self.gaps: list[Gap] = []
        removed = 0.0
        busy_end = self.origin
        for s, e in spans:
            gap = (s - busy_end).total_seconds()
            if gap > max_gap_s:
                removed += gap - shown_gap_s
                self._starts.append(s)
                self._removed.append(removed)
                at = (busy_end - self.origin).total_seconds() - (removed - (gap - shown_gap_s))
                self.gaps.append(Gap(at=at + shown_gap_s / 2, real_seconds=gap))
            busy_end = max(busy_end, e)

    def x(self, when: datetime) -> float:
        i = bisect.bisect_right(self._starts, when)
        return (when - self.origin).total_seconds() - (self._removed[i - 1] if i else 0.0)


def _wait(seconds_: float) -> str:
    if seconds_ >= 86400:
        return f"{seconds_ / 86400:.1f} d"
    if seconds_ >= 3600:
        return f"{seconds_ / 3600:.1f} h"
    return f"{seconds_ / 60:.0f} min" if seconds_ >= 60 else f"{seconds_:.0f} s"


def _call_hover(c: CallSpan) -> str:
    cost = usd(c.cost_usd) if c.status == "ok" else "no charge recorded"
    lines = [f"<b>{plain(c.agent)}</b> · {plain(c.model)} · call {c.id}",
             f"{c.started_at:%Y-%m-%d %H:%M:%S} UTC · {seconds(c.latency_ms)}",
             f"tokens {c.prompt_tokens:,} in ({c.cached_tokens:,} cached) · "
             f"{c.completion_tokens:,} out · {cost}"]
    if c.status != "ok":
        lines.append(f"<b>error</b>: {plain((c.error or '')[:120])}")
    return "<br>".join(lines)


def _step_hover(s: StepSpan) -> str:
    end = s.end
    text = [f"<b>step {s.seq}: {s.node}</b> · {plain(s.stage)} · iteration {s.iteration}",
            f"{s.started_at:%Y-%m-%d %H:%M:%S} UTC · "
            f"{seconds((end - s.started_at).total_seconds() * 1000)} · {s.status}"]
    if s.error or s.detail:
        text.append(plain((s.error or s.detail or "")[:140]))
    return "<br>".join(text)


MIN_BAR_S = 0.05  # an instant call or step is still drawn wide enough to see and click


def _lanes(spans: list[tuple[float, float]]) -> list[int]:
    """A lane per call within its step's row, so that calls drawn at the same time
    (concurrent critics) sit one above the other: the first lane free where the call's bar
    starts. Spans are the drawn (x0, x1), not real times: a bar is drawn at least
    MIN_BAR_S wide, so an instant call still needs its own lane beside the next one."""
    ends: list[float] = []
    lanes = []
    for x0, x1 in spans:
        lane = next((i for i, end in enumerate(ends) if end <= x0), len(ends))
        if lane == len(ends):
            ends.append(x1)
        else:
            ends[lane] = x1
        lanes.append(lane)
    return lanes


def trace_timeline_figure(trace: RunTrace, *, steps: list[StepSpan] | None = None) -> go.Figure:
    """A Gantt with a row per step: the step's bar behind, its calls nested inside it (in
    lanes when they overlap), coloured by agent, failed calls and steps red. One row per
    step, not per call, halves the labels the browser lays out. Each call bar's customdata
    is its call id (clicking it selects the call); step bars carry None."""
    shown = trace.steps if steps is None else steps
    rows: list[str] = []
    agents = sorted({c.agent for s in trace.steps for c in s.calls})
    clock = ActiveClock([(s.started_at, s.end) for s in shown]
                        + [(c.started_at, c.finished_at) for s in shown for c in s.calls])
    bars: dict[str, dict[str, list]] = {}

    def drawn(start: datetime, end: datetime) -> tuple[float, float]:
        x0 = clock.x(start)
        return x0, x0 + max(clock.x(end) - x0, MIN_BAR_S)

    def add(series: str, y: float, width: float, start: datetime, end: datetime, hover: str,
            call_id: int | None) -> None:
        b = bars.setdefault(series, {"y": [], "w": [], "base": [], "x": [], "text": [],
                                     "id": []})
        x0, x1 = drawn(start, end)
        b["y"].append(y)
        b["w"].append(width)
        b["base"].append(x0)
        b["x"].append(x1 - x0)
        b["text"].append(hover)
        b["id"].append(call_id)

    lane_rows = 0
    for s in shown:
        row = len(rows)
        rows.append(f"#{s.seq} {s.node}")
        add("step failed" if s.status == "error" else "step", row, 0.9, s.started_at, s.end,
            _step_hover(s), None)
        calls = sorted(s.calls, key=lambda c: c.started_at)
        lanes = _lanes([drawn(c.started_at, c.finished_at) for c in calls])
        n = max(lanes, default=0) + 1
        lane_rows += n
        height = 0.7 / n
        for c, lane in zip(calls, lanes, strict=True):
            y = row - 0.35 + height * (lane + 0.5)
            add("error" if c.status != "ok" else c.agent, y, height * 0.85, c.started_at,
                c.finished_at, _call_hover(c), c.id)
    fig = go.Figure()
    order = ["step", "step failed"] + agents + ["error"]
    for series in sorted(bars, key=order.index):
        b = bars[series]
        color = (STEP_GREY if series == "step" else STEP_FAILED if series == "step failed"
                 else ERROR_RED if series == "error"
                 else AGENT_PALETTE[agents.index(series) % len(AGENT_PALETTE)])
        fig.add_trace(go.Bar(
            y=b["y"], x=b["x"], base=b["base"], width=b["w"], orientation="h",
            name=plain(series),
            meta={"series": series}, customdata=b["id"], hovertext=b["text"],
            hovertemplate="%{hovertext}<extra></extra>",
            marker={"color": color, "line": {"width": 0}},
            # A clicked call stays bright; the rest dim only a little.
            selected={"marker": {"opacity": 1.0}}, unselected={"marker": {"opacity": 0.55}},
        ))
    for g in clock.gaps:
        fig.add_vline(x=g.at, line={"color": "#94a3b8", "width": 1, "dash": "dot"},
                      annotation={"text": f"⋯ {_wait(g.real_seconds)}", "textangle": -90,
                                  "font": {"size": 10, "color": "#64748b"}})
    fig.update_layout(
        meta={"summary": f"Run {trace.id}: {len(shown)} steps, "
                         f"{sum(len(s.calls) for s in shown)} calls"},
        barmode="overlay", height=max(300, 100 + 19 * (len(rows) + lane_rows)),
        clickmode="event+select",
        # The time axis on top, where the first steps are; the legend beside the rows.
        xaxis={"title": {"text": "seconds of activity (long waits collapsed, marked ⋯)"},
               "rangemode": "tozero", "side": "top"},
        yaxis={"tickvals": list(range(len(rows))), "ticktext": rows,
               "range": [len(rows) - 0.5, -0.5]},
        legend={"orientation": "v", "x": 1.01, "y": 1, "yanchor": "top"},
        margin={"l": 10, "r": 10, "t": 60, "b": 10}, hovermode="closest",
    )
    return fig


def scroll_script(anchor: str, call_id: int) -> str:
    """A script that scrolls the element with id `anchor` to the top of the window once it is
    drawn (Streamlit draws the elements after this one a moment later). `anchor` is ours and
    `call_id` an int, so nothing typed by anyone goes into the script."""
    if not re.fullmatch(r"[a-z0-9-]+", anchor):
        raise ValueError(f"not an anchor id: {anchor!r}")
    return (f"<script>/* call {int(call_id)} */ (() => {{ let tries = 0; const go = () => {{ "
            f"const el = document.getElementById('{anchor}'); "
            "if (el) { el.scrollIntoView({behavior: 'instant', block: 'start'}); } "
            "else if (tries++ < 40) { setTimeout(go, 50); } }; setTimeout(go, 100); })();"
            "</script>")
