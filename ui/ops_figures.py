"""Figures for the Costs page (and the formats the ops pages share): pure functions of data
frames, so tests check them without a browser. Unpriced costs are labelled, never drawn as
$0. The Traces page's timeline is in ui/trace_figures.py."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from engine.ops_settings import PriceRow
from ui.figures import PALETTE, plain
from ui.format import STATUS
from ui.markdown import escape_inline

ERROR_RED = "#dc2626"
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
    _day_axis(fig, list(df["day"]))
    return fig


def _day_axis(fig: go.Figure, days: list[Any]) -> None:
    """A date axis in days: Plotly zooms a single day down to milliseconds ("23:59:59.9995")
    and a few days to hours; a day chart ticks once a day at most, a lone day with a day on
    each side."""
    fig.update_xaxes(tickformat="%b %d")
    unique = sorted({pd.Timestamp(d) for d in days})
    if len(unique) <= 7:
        fig.update_xaxes(dtick=86_400_000)
    if len(unique) == 1:
        fig.update_xaxes(range=[unique[0] - pd.Timedelta(days=1), unique[0] + pd.Timedelta(days=1)])


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
    _day_axis(fig, list(df["day"]))
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


def prices_markdown(rows: list[PriceRow], *, since: bool = True) -> str:
    """Price rows as a Markdown table (model, input, cached input, output per 1M tokens, and
    from when): a dozen rows read the same as in a data grid, without the grid's script
    chunks that a full load of the Settings page would fetch and compile first."""
    head = ["Model", "Input", "Cached input", "Output"] + (["Since (UTC)"] if since else [])
    lines = ["| " + " | ".join(head) + " |",
             "|---|" + "|".join("---:" for _ in head[1:4]) + ("|---|" if since else "|")]
    for r in rows:
        cells = [f"`{r.model.replace('`', '')}`", f"${r.input_per_m:,.3f}",
                 f"${r.cached_input_per_m:,.3f}", f"${r.output_per_m:,.3f}"]
        if since:
            cells.append(f"{r.effective_from:%Y-%m-%d %H:%M}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


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
