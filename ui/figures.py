"""Figures as pure functions of read models: the tests check them without a browser."""

from __future__ import annotations

import plotly.graph_objects as go

from engine.views import RunDetail

PALETTE = ("#2563eb", "#db2777", "#059669", "#d97706", "#7c3aed", "#0891b2", "#dc2626")
AGENT_SYMBOL = "circle"
HUMAN_SYMBOL = "star"


def plain(text: str) -> str:
    """Plotly reads a little HTML in labels; names typed by people are shown as text."""
    return text.replace("<", "‹").replace(">", "›")


def score_names(detail: RunDetail) -> list[str]:
    """The run's score names: thresholded ones first (in pipeline order), then the rest."""
    seen = list(detail.thresholds)
    for d in detail.drafts:
        seen += [n for n in sorted(d.scores) if n not in seen]
    return [n for n in seen if any(n in d.scores for d in detail.drafts)] or list(detail.thresholds)


MAX_TICKS = 16
MAX_MARKERS = 40  # versions up to which every score gets a dot


def score_history_figure(detail: RunDetail) -> go.Figure:
    """Every score across versions, one line per score, with its threshold as a dashed line
    in the same colour; versions written by a person are stars with a dotted marker line,
    the approved version has a green band. Trace `meta` says what each trace is."""
    fig = go.Figure()
    scored = [d for d in detail.drafts if d.scores]
    versions = [d.version for d in detail.drafts]
    names = score_names(detail)
    spread = 0.05  # points of different scores on one version side by side, not on top
    # A long run (a demo run has 166 versions) is drawn as lines, with a marker only where a
    # person wrote the version: hundreds of dots the browser would draw say nothing the line
    # does not.
    dots = len(versions) <= MAX_MARKERS
    for i, name in enumerate(names):
        color = PALETTE[i % len(PALETTE)]
        pts = [d for d in scored if name in d.scores]
        shift = (i - (len(names) - 1) / 2) * spread
        hover = (f"{name} %{{y:.2f}} · v%{{customdata[0]}} by %{{customdata[1]}}"
                 "<extra></extra>")
        fig.add_trace(go.Scatter(
            x=[d.version + shift for d in pts], y=[d.scores[name] for d in pts],
            mode="lines+markers" if dots else "lines", name=name, legendgroup=name,
            meta={"role": "score", "score": name},
            line={"color": color, "width": 2},
            marker={"color": color, "size": [15 if d.author_kind == "human" else 8 for d in pts],
                    "symbol": [HUMAN_SYMBOL if d.author_kind == "human" else AGENT_SYMBOL
                               for d in pts],
                    "line": {"color": "white", "width": 1}} if dots else None,
            customdata=[[d.version, plain(d.author)] for d in pts],
            hovertemplate=hover,
        ))
        people = [d for d in pts if d.author_kind == "human"]
        if not dots and people:
            fig.add_trace(go.Scatter(
                x=[d.version + shift for d in people], y=[d.scores[name] for d in people],
                mode="markers", name=name, legendgroup=name, showlegend=False,
                meta={"role": "person", "score": name},
                marker={"color": color, "size": 15, "symbol": HUMAN_SYMBOL,
                        "line": {"color": "white", "width": 1}},
                customdata=[[d.version, plain(d.author)] for d in people],
                hovertemplate=hover,
            ))
        if name in detail.thresholds and versions:
            t = detail.thresholds[name]
            lo, hi = min(versions) - 0.4, max(versions) + 0.4
            fig.add_trace(go.Scatter(
                x=[lo, hi], y=[t, t], mode="lines", name=f"{name} ≥ {t:.2f}", legendgroup=name,
                showlegend=False, meta={"role": "threshold", "score": name, "value": t},
                line={"color": color, "width": 1.5, "dash": "dash"}, opacity=0.6,
                hovertemplate=f"{name} threshold {t:.2f}<extra></extra>",
            ))
    by_value: dict[float, list[str]] = {}
    for name in names:
        if name in detail.thresholds:
            by_value.setdefault(round(detail.thresholds[name], 4), []).append(name)
    for value, group in by_value.items():
        fig.add_annotation(text=f"{', '.join(group)} ≥ {value:.2f}", xref="paper", x=1,
                           xanchor="right", y=value, yanchor="bottom", showarrow=False,
                           font={"size": 10, "color": "#64748b"})
    for d in detail.drafts:
        if d.author_kind == "human":
            fig.add_vline(x=d.version, line={"color": "#64748b", "width": 1, "dash": "dot"},
                          annotation={"text": f"✎ {plain(d.author)}", "font": {"size": 11},
                                      "yanchor": "bottom"},
                          annotation_position="top")
    approved = detail.draft(detail.approved_draft_id)
    if approved is not None:
        fig.add_vrect(x0=approved.version - 0.25, x1=approved.version + 0.25,
                      fillcolor="#22c55e", opacity=0.12, line_width=0,
                      annotation={"text": "approved", "font": {"size": 11, "color": "#15803d"}},
                      annotation_position="bottom")
    # A label per version while they fit; a long run (a demo run has 166 versions) gets every
    # n-th, or the labels run together into one smear.
    ticks = versions[::max(1, -(-len(versions) // MAX_TICKS))]
    if not scored:
        fig.add_annotation(text="No scores yet: the critics have not reviewed a version.",
                           showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper",
                           font={"size": 14, "color": "#64748b"})
    fig.update_layout(
        template="plotly_white", height=340, margin={"l": 10, "r": 10, "t": 36, "b": 10},
        legend={"orientation": "h", "y": -0.18, "x": 0},
        hovermode="closest",
        yaxis={"range": [0, 1.08], "title": "score", "tickformat": ".1f", "fixedrange": True},
        xaxis={"title": "version", "tickmode": "array", "tickvals": ticks,
               "ticktext": [f"v{v}" for v in ticks], "fixedrange": True,
               "range": [min(versions) - 0.4, max(versions) + 0.4] if versions else None},
    )
    return fig


__all__ = ["score_history_figure", "score_names", "plain"]
