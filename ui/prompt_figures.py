"""The prompt comparison as a table and a chart: pure functions of VersionOutcome rows, so
the tests check them without a browser."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from engine.prompt_versions import VersionOutcome
from ui.figures import PALETTE

NO_DATA = "No run has used these prompts yet: start a few runs, then compare."


def score_names(outcomes: list[VersionOutcome], thresholds: dict[str, float]) -> list[str]:
    """Thresholded scores first (in pipeline order), then any other score seen."""
    names = list(thresholds)
    for o in outcomes:
        names += [n for n in sorted(o.mean_scores) if n not in names]
    return [n for n in names if any(n in o.mean_scores for o in outcomes)]


def comparison_rows(outcomes: list[VersionOutcome],
                    thresholds: dict[str, float]) -> list[dict[str, Any]]:
    """One row per version for st.dataframe; numbers stay numbers (None where unknown)."""
    names = score_names(outcomes, thresholds)
    rows = []
    for o in outcomes:
        row: dict[str, Any] = {"Version": o.label + (" (active)" if o.active else ""),
                               "Runs": o.runs, "Drafts scored": o.drafts_scored}
        for n in names:
            row[f"Mean {n}"] = o.mean_scores.get(n)
        row.update({
            "Passed": o.runs_passed,
            "Iterations to pass": o.mean_iterations_to_pass,
            "Approved": o.approved,
            "Rejected": o.rejected,
            "Approval rate": o.approval_rate,
            "Cost (USD)": o.cost_usd,
            "Cost per approved (USD)": o.cost_per_approved,
        })
        rows.append(row)
    return rows


def comparison_figure(outcomes: list[VersionOutcome], thresholds: dict[str, float]) -> go.Figure:
    """Three panels over the versions that have runs: mean scores (bars, thresholds dashed),
    pass and approval rates, cost per approved draft. Trace `meta` says what each trace is."""
    used = [o for o in outcomes if o.runs]
    fig = make_subplots(rows=1, cols=3, column_widths=[0.5, 0.25, 0.25], horizontal_spacing=0.08,
                        subplot_titles=("Mean scores of their drafts", "Passed and approved",
                                        "Cost per approved draft"))
    labels = [o.label for o in used]
    names = score_names(used, thresholds)
    for i, name in enumerate(names):
        color = PALETTE[i % len(PALETTE)]
        fig.add_trace(go.Bar(
            x=labels, y=[o.mean_scores.get(name) for o in used], name=name, marker_color=color,
            meta={"role": "score", "score": name}, legendgroup=name,
            hovertemplate=f"{name} %{{y:.2f}} · %{{x}}<extra></extra>"), row=1, col=1)
        if name in thresholds and used:
            t = thresholds[name]
            fig.add_trace(go.Scatter(
                x=[labels[0], labels[-1]] if len(labels) > 1 else labels * 2, y=[t, t],
                mode="lines", name=f"{name} ≥ {t:.2f}", showlegend=False, legendgroup=name,
                meta={"role": "threshold", "score": name, "value": t},
                line={"color": color, "dash": "dash", "width": 1.5}, opacity=0.7,
                hovertemplate=f"{name} threshold {t:.2f}<extra></extra>"), row=1, col=1)
    # Greys and black for rates: the score colours stay the scores' own.
    pass_rate = [o.runs_passed / o.runs for o in used]
    fig.add_trace(go.Bar(
        x=labels, y=pass_rate, name="met every threshold", marker_color="#94a3b8",
        meta={"role": "pass_rate"},
        hovertemplate="%{y:.0%} of runs met every threshold · %{x}<extra></extra>"), row=1, col=2)
    fig.add_trace(go.Bar(
        x=labels, y=[o.approval_rate for o in used], name="approved (of decided)",
        marker_color="#334155", meta={"role": "approval_rate"},
        hovertemplate="%{y:.0%} of decided runs approved · %{x}<extra></extra>"), row=1, col=2)
    fig.add_trace(go.Bar(
        x=labels, y=[o.cost_per_approved for o in used], name="USD per approved draft",
        marker_color="#a16207", meta={"role": "cost_per_approved"},
        text=["–" if o.cost_per_approved is None else f"${o.cost_per_approved:.4f}" for o in used],
        textposition="outside", showlegend=False,
        hovertemplate="$%{y:.4f} per approved draft · %{x}<extra></extra>"), row=1, col=3)
    if not used:
        fig.add_annotation(text=NO_DATA, showarrow=False, x=0.5, y=0.5, xref="paper",
                           yref="paper", font={"size": 14, "color": "#64748b"})
    fig.update_yaxes(range=[0, 1.08], tickformat=".1f", fixedrange=True, row=1, col=1)
    fig.update_yaxes(range=[0, 1.15], tickformat=".0%", fixedrange=True, row=1, col=2)
    fig.update_yaxes(rangemode="tozero", tickprefix="$", fixedrange=True, row=1, col=3)
    fig.update_xaxes(fixedrange=True, type="category")
    fig.update_layout(template="plotly_white", height=360, barmode="group",
                      margin={"l": 10, "r": 10, "t": 40, "b": 10},
                      legend={"orientation": "h", "y": -0.15, "x": 0})
    return fig


__all__ = ["comparison_rows", "comparison_figure", "score_names", "NO_DATA"]
