"""Figures for the Costs and Traces pages: pure functions of data frames and read models,
so tests check them without a browser. Unpriced costs are labelled, never drawn as $0."""

from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass
from datetime import datetime

import pandas as pd
import plotly.graph_objects as go

from engine.traces import CallSpan, RunTrace, StepSpan
from ui.figures import PALETTE, plain
from ui.format import STATUS
from ui.markdown import escape_inline

ERROR_RED = "#dc2626"
STEP_GREY = "#cbd5e1"
STEP_FAILED = "#fca5a5"
# Agents' colours on the timeline: no red or pink, which mean an error there.
AGENT_PALETTE = ("#2563eb", "#059669", "#7c3aed", "#d97706", "#0891b2", "#65a30d", "#475569")
TOKEN_COLORS = {"uncached input": "#2563eb", "cached input": "#93c5fd", "output": "#d97706"}
LABEL_PX = 12  # bar labels' font size, which the right margin is computed from
_LAYOUT = {"margin": {"l": 10, "r": 10, "t": 40, "b": 10}, "hovermode": "closest",
           "legend": {"orientation": "h", "y": -0.15}}


def color_for(name: str, names: list[str]) -> str:
    """The same agent (or model) gets the same colour everywhere it is drawn."""
    ordered = sorted(set(names))
    return PALETTE[ordered.index(name) % len(PALETTE)] if name in ordered else PALETTE[0]


def usd(value: float | None) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "unpriced"
    if value >= 100:
        return f"${value:,.0f}"
    return f"${value:,.2f}" if value >= 1 else f"${value:.4f}"


def compact(n: int | float) -> str:
    """12,345 stays; 67,297,112 is 67.3M: a metric must fit its column."""
    for size, suffix in ((1e9, "B"), (1e6, "M"), (1e5, "k")):
        if abs(n) >= size:
            return f"{n / (size if suffix != 'k' else 1e3):,.1f}{suffix}"
    return f"{n:,.0f}"


def seconds(ms: float | None) -> str:
    if ms is None or (isinstance(ms, float) and math.isnan(ms)):
        return "–"
    return f"{ms / 1000:.2f} s" if ms >= 1000 else f"{ms:.0f} ms"


def _empty(title: str) -> go.Figure:
    fig = go.Figure()
    fig.update_layout(title=title, **_LAYOUT)
    fig.add_annotation(text="No calls in this range", showarrow=False, x=0.5, y=0.5,
                       xref="paper", yref="paper", font={"color": "#64748b"})
    return fig


# -- Costs ----------------------------------------------------------------------------------


def spend_by_day_figure(df: pd.DataFrame, *, split: str | None = None) -> go.Figure:
    """Spend per day: one line, or one per value of `split` (e.g. kind)."""
    title = "Spend per day (USD)"
    if df.empty:
        return _empty(title)
    fig = go.Figure()
    groups = [(None, df)] if split is None else list(df.groupby(split, sort=True))
    names = [str(g) for g, _ in groups]
    for name, part in groups:
        label = "spend" if name is None else plain(str(name))
        fig.add_trace(go.Scatter(
            # A day of only unpriced calls has no known spend: a gap, not a $0 point.
            x=list(part["day"]), y=[None if math.isnan(v) else v for v in part["cost_usd"]],
            mode="lines+markers",
            name=label, meta={"series": label},
            line={"width": 2, "color": PALETTE[0] if name is None else color_for(str(name), names)},
            marker={"size": 4},
            customdata=list(part["calls"]),
            hovertemplate=f"{label} %{{x|%Y-%m-%d}}: $%{{y:,.4f}} · %{{customdata:,}} calls"
                          "<extra></extra>",
        ))
    fig.update_layout(title=title, yaxis={"tickprefix": "$", "rangemode": "tozero"}, **_LAYOUT)
    return fig


def cost_bars_figure(df: pd.DataFrame, dim: str) -> go.Figure:
    """Spend per value of one dimension, largest on top; an unpriced value gets an empty bar
    and the word "unpriced" instead of a $0 bar."""
    title = f"Spend by {dim}"
    if df.empty:
        return _empty(title)
    rows = df.sort_values("cost_usd", ascending=True, na_position="first")
    costs = rows["cost_usd"]
    labels = [plain(str(v)) for v in rows[dim]]
    text = [("unpriced" if math.isnan(c) else usd(c))
            + (f" + {u:,} unpriced" if u and not math.isnan(c) else "")
            for c, u in zip(costs, rows["unpriced"], strict=True)]
    fig = go.Figure(go.Bar(
        x=[0.0 if math.isnan(c) else c for c in costs], y=labels, orientation="h",
        text=text, textposition="outside", cliponaxis=False, meta={"dim": dim},
        textfont={"size": LABEL_PX},
        marker={"color": ["#94a3b8" if math.isnan(c) else PALETTE[0] for c in costs]},
        customdata=list(zip(rows["calls"], rows["error_rate"], strict=True)),
        hovertemplate="%{y}: %{text}<br>%{customdata[0]:,} calls · "
                      "%{customdata[1]:.1%} errors<extra></extra>",
    ))
    fig.update_layout(title=title, xaxis={"tickprefix": "$", "rangemode": "tozero"},
                      height=max(220, 60 + 28 * len(rows)),
                      **{**_LAYOUT, "margin": label_margin(text)})
    return fig


def tokens_by_day_figure(df: pd.DataFrame) -> go.Figure:
    """Input tokens split into uncached and cached (each counted once), and output tokens."""
    title = "Tokens per day"
    if df.empty:
        return _empty(title)
    parts = {
        "uncached input": df["prompt_tokens"] - df["cached_tokens"],
        "cached input": df["cached_tokens"],
        "output": df["completion_tokens"],
    }
    fig = go.Figure([go.Bar(x=list(df["day"]), y=list(v), name=k, meta={"series": k},
                            marker={"color": TOKEN_COLORS[k]},
                            hovertemplate=f"{k} %{{x|%Y-%m-%d}}: %{{y:,}}<extra></extra>")
                     for k, v in parts.items()])
    fig.update_layout(title=title, barmode="stack", **_LAYOUT)
    return fig


def latency_figure(df: pd.DataFrame) -> go.Figure:
    """A grid of agents (rows) by models (columns): each cell reads "p50 / p95 / p99" in
    seconds and is coloured by its p95, so a slow pair stands out at a glance."""
    title = "Latency (s) per agent and model: p50 / p95 / p99, coloured by p95"
    if df.empty:
        return _empty(title)
    agents = sorted(df["agent"].unique())
    models = sorted(df["model"].unique())
    cell = {(r.agent, r.model): r for r in df.itertuples()}
    z: list[list[float | None]] = []
    text: list[list[str]] = []
    hover: list[list[str]] = []
    for a in agents:
        rows = [cell.get((a, m)) for m in models]
        z.append([r.p95_ms / 1000 if r else None for r in rows])
        text.append([f"{r.p50_ms / 1000:.1f} / {r.p95_ms / 1000:.1f} / {r.p99_ms / 1000:.1f}"
                     if r else "" for r in rows])
        hover.append([f"{plain(a)} · {plain(m)}<br>p50 {seconds(r.p50_ms)} · p95 "
                      f"{seconds(r.p95_ms)} · p99 {seconds(r.p99_ms)}<br>{r.calls:,} calls"
                      if r else "" for m, r in zip(models, rows, strict=True)])
    fig = go.Figure(go.Heatmap(
        z=z, x=[plain(m) for m in models], y=[plain(a) for a in agents], text=text,
        texttemplate="%{text}", textfont={"size": 11}, customdata=hover,
        hovertemplate="%{customdata}<extra></extra>", colorscale="YlOrRd",
        colorbar={"title": {"text": "p95 s"}, "thickness": 12}, xgap=2, ygap=2,
        meta={"cells": len(df)},
    ))
    fig.update_layout(title=title, height=max(260, 110 + 44 * len(agents)),
                      yaxis={"autorange": "reversed"}, xaxis={"tickangle": 0},
                      **{**_LAYOUT, "margin": {"l": 10, "r": 10, "t": 50, "b": 30}})
    return fig


def error_rate_figure(df: pd.DataFrame) -> go.Figure:
    """Share of calls that failed, per model."""
    title = "Error rate by model"
    if df.empty:
        return _empty(title)
    rows = df.sort_values("error_rate", ascending=True)
    fig = go.Figure(go.Bar(
        x=list(rows["error_rate"]), y=[plain(str(m)) for m in rows["model"]], orientation="h",
        marker={"color": [ERROR_RED if r >= 0.05 else "#f59e0b" if r >= 0.02 else "#64748b"
                          for r in rows["error_rate"]]},
        text=(text := [f"{r:.1%}" for r in rows["error_rate"]]), textposition="outside",
        cliponaxis=False, textfont={"size": LABEL_PX},
        customdata=list(zip(rows["errors"], rows["calls"], strict=True)),
        hovertemplate="%{y}: %{x:.2%} (%{customdata[0]:,} of %{customdata[1]:,})<extra></extra>",
    ))
    ticks = share_ticks(float(rows["error_rate"].max()))
    fig.update_layout(title=title, xaxis={"tickvals": [v for v, _ in ticks],
                                          "ticktext": [t for _, t in ticks],
                                          "range": [0, ticks[-1][0]]},
                      height=max(220, 60 + 28 * len(rows)),
                      **{**_LAYOUT, "margin": label_margin(text)})
    return fig


def label_margin(labels: list[str]) -> dict[str, int]:
    """The layout margin with room on the right for the longest label drawn past its bar:
    with Plotly's 10 px there, "$27.30" or "6.6%" is cut off at the figure's edge."""
    widest = max((len(t) for t in labels), default=0)
    return {**_LAYOUT["margin"], "r": 10 + math.ceil(widest * LABEL_PX * 0.62)}


def share_ticks(top: float, *, count: int = 4) -> list[tuple[float, str]]:
    """Axis ticks from 0 past `top` (a share, 0.012 = 1.2%) at a round step, each label
    distinct: Plotly's ".0%" format named 0.5% and 1% both "1%" when one model was shown."""
    top = top if top > 0.001 else 0.01 if top == 0 else 0.001  # no errors: 0-1%
    raw = top / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    decimals = max(0, -math.floor(math.log10(step * 100) + 1e-9))
    if round(step * 100, decimals) != step * 100:  # 2.5 steps need one more digit
        decimals += 1
    n = math.ceil(top / step - 1e-9)
    return [(i * step, f"{i * step * 100:.{decimals}f}%" if i else "0%") for i in range(n + 1)]


def _money(value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"${float(value):,.4f}"  # type: ignore[arg-type]


def top_runs_markdown(df: pd.DataFrame, *, filtered: bool = False) -> str:
    """The most expensive runs (engine.ops.top_runs) as a Markdown table: links to each run's
    trace and run page, its title (as text), kind, status, stage, start, cost and calls, and
    with a model / agent / stage filter what the matching calls cost."""
    head = ["Run", "Trace", "Title", "Kind", "Status", "Stage", "Started (UTC)", "Cost",
            "Calls"] + (["Filtered"] if filtered else [])
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join("---:" if h in ("Cost", "Calls", "Filtered") else "---"
                            for h in head) + "|"]
    for r in df.itertuples(index=False):
        run_id = int(r.run_id)
        started = pd.Timestamp(r.created_at)
        calls = 0 if pd.isna(r.calls) else int(r.calls)
        cells = [f"[#{run_id}](run?run={run_id})", f"[timeline](traces?run={run_id})",
                 escape_inline(str(r.title)), escape_inline(str(r.kind)),
                 escape_inline(STATUS.get(r.status, (str(r.status),))[0]),
                 escape_inline(str(r.stage)),
                 f"{started:%Y-%m-%d %H:%M}" if not pd.isna(started) else "–",
                 _money(r.cost_usd), f"{calls:,}"]
        if filtered:
            cells.append(_money(r.filtered_cost_usd))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


# -- Traces ---------------------------------------------------------------------------------


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


def cache_share_markdown(df: pd.DataFrame) -> str:
    """Per agent: the share of input tokens the provider served from its prompt cache. Text,
    not a chart: one more Plotly figure costs the Costs page a redraw on every load."""
    if df.empty or "agent" not in df:
        return ""
    rows = df[df["prompt_tokens"] > 0].sort_values("prompt_tokens", ascending=False)
    cells = [
        f"**{agent}** {cached / prompt:.0%} ({compact(cached)} of {compact(prompt)})"
        for agent, cached, prompt in zip(
            rows["agent"], rows["cached_tokens"], rows["prompt_tokens"], strict=True)
    ]
    return " · ".join(cells)


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
