"""The Calibration view's chart and tables: pure functions of engine.calibration's rows, so
tests check them without a browser."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from engine.calibration import OUTCOMES, CalibrationRow, Disagreement
from ui.figures import PALETTE, plain
from ui.markdown import escape_inline


def frame(rows: list[CalibrationRow]) -> pd.DataFrame:
    df = pd.DataFrame([r.model_dump() for r in rows])
    if df.empty:
        return df
    df["critic_score"] = df["critic"] + " · " + df["score"]
    df["prompt"] = df["prompt_version"].map(lambda v: "default" if pd.isna(v) else f"v{int(v)}")
    return df


def _weighted(df: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Means over the groups in `keys`, weighted by how many versions each row counts."""
    w = df.assign(s=df["mean_score"] * df["versions"], d=df["disagreement"] * df["versions"])
    out = w.groupby(keys, sort=False).agg(versions=("versions", "sum"), s=("s", "sum"),
                                          d=("d", "sum")).reset_index()
    out["mean_score"] = out["s"] / out["versions"]
    out["disagreement"] = out["d"] / out["versions"]
    return out.drop(columns=["s", "d"])


def calibration_figure(df: pd.DataFrame) -> go.Figure:
    """Mean score by what people did with the version, one bar per critic's score: a critic
    people agree with is high on "approved" and low on "sent back" and "rejected"."""
    fig = go.Figure()
    title = "Critics' mean score by what people then did"
    if df.empty:
        fig.update_layout(title=title)
        fig.add_annotation(text="No version scored and then acted on yet", showarrow=False,
                           x=0.5, y=0.5, xref="paper", yref="paper")
        return fig
    g = _weighted(df, ["critic_score", "outcome"])
    present = [o for o in OUTCOMES if o in set(g["outcome"])]
    for i, (name, part) in enumerate(g.groupby("critic_score", sort=True)):
        by = part.set_index("outcome").reindex(present)
        fig.add_trace(go.Bar(
            x=present, y=list(by["mean_score"]), name=plain(str(name)),
            meta={"series": str(name)}, marker={"color": PALETTE[i % len(PALETTE)]},
            customdata=[0 if pd.isna(v) else int(v) for v in by["versions"]],
            hovertemplate=f"{plain(str(name))} · %{{x}}: mean %{{y:.2f}} over "
                          "%{customdata:,} versions<extra></extra>"))
    fig.update_layout(title=title, barmode="group", yaxis={"range": [0, 1.05],
                      "title": {"text": "mean score"}}, xaxis={"title": {"text": "people"}},
                      legend={"orientation": "h", "y": -0.2},
                      margin={"l": 10, "r": 10, "t": 50, "b": 10}, height=420)
    return fig


def calibration_table(df: pd.DataFrame) -> pd.DataFrame:
    """One row per critic's score and prompt version: per outcome "mean (versions)", the
    share people kept of the versions they edited, and the mean disagreement."""
    if df.empty:
        return df
    rows = []
    for (cs, kind, prompt), part in df.groupby(["critic_score", "kind", "prompt"], sort=True):
        row: dict[str, object] = {"critic · score": cs, "kind": kind, "prompt": prompt}
        for o in OUTCOMES:
            hit = part[part["outcome"] == o]
            row[o] = (f"{hit['mean_score'].iloc[0]:.2f} ({int(hit['versions'].iloc[0]):,})"
                      if not hit.empty else "–")
        kept = part[(part["outcome"] == "edited") & part["mean_kept"].notna()]
        row["kept when edited"] = f"{kept['mean_kept'].iloc[0]:.0%}" if not kept.empty else "–"
        total = int(part["versions"].sum())
        row["disagreement"] = round(float((part["disagreement"] * part["versions"]).sum()
                                          / total), 3)
        row["versions"] = total
        rows.append(row)
    return pd.DataFrame(rows).sort_values("disagreement", ascending=False)


def table_markdown(table: pd.DataFrame) -> str:
    """calibration_table's rows as a Markdown table (text escaped, numbers right-aligned): a
    few dozen rows read as well as in a data grid, without the grid's script chunks that a
    fresh load of the page would fetch and compile before drawing."""
    if table.empty:
        return ""
    cols = list(table.columns)
    right = {c for c in cols if c not in ("critic · score", "kind", "prompt")}
    lines = ["| " + " | ".join(cols) + " |",
             "|" + "|".join("---:" if c in right else "---" for c in cols) + "|"]
    for row in table.itertuples(index=False):
        cells = []
        for c, v in zip(cols, row, strict=True):
            if c == "disagreement":
                cells.append(f"{float(v):.3f}")
            elif c == "versions":
                cells.append(f"{int(v):,}")
            else:
                cells.append(escape_inline(str(v)))  # escapes "|" too
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def disagreement_lines(worst: list[Disagreement]) -> str:
    """The versions critic and people disagreed on most, each linked to the Run page at that
    version, as Markdown (titles escaped)."""
    lines = []
    for w in worst:
        did = w.outcome + (f", kept {w.kept:.0%}" if w.kept is not None else "")
        prompt = f" (prompt v{w.prompt_version})" if w.prompt_version else ""
        lines.append(f"- [run #{w.run_id} v{w.version}](run?run={w.run_id}&version={w.version})"
                     f" {escape_inline(w.title[:70])}: **{escape_inline(w.critic)}** "
                     f"{escape_inline(w.score)} {w.value:.2f}{prompt}, people: {did}")
    return "\n".join(lines)
