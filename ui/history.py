"""Draft history on the Run page: every version with who wrote it and its scores, and a diff
of any two versions with the notes and comments that drove the change."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from engine import diff
from engine.views import DraftView, RunDetail
from ui.format import PRIORITY
from ui.markdown import escape_inline, inline_diff, side_by_side_table
from ui.run_view import author_label

VIEWS = ("Inline", "Side by side", "Unified")


def versions_frame(detail: RunDetail) -> pd.DataFrame:
    names = list(detail.thresholds) + sorted(
        {n for d in detail.drafts for n in d.scores} - set(detail.thresholds))
    rows = []
    for d in reversed(detail.drafts):
        marks = [m for m, on in (("current", d.id == detail.current_draft_id),
                                 ("best", d.id == detail.best_draft_id),
                                 ("approved", d.id == detail.approved_draft_id)) if on]
        rows.append({
            "Version": f"v{d.version}",
            "Written by": d.author,
            "By": "person" if d.author_kind == "human" else "agent",
            **({"Stage": d.stage} if len(detail.stages) > 1 else {}),
            **{n: d.scores.get(n) for n in names},
            "Flags": sum(f.blocking for f in d.flags),
            "Marks": ", ".join(marks),
            "Written at": d.created_at,
        })
    return pd.DataFrame(rows)


def render_versions(detail: RunDetail) -> None:
    if not detail.drafts:
        st.caption("No versions yet.")
        return
    frame = versions_frame(detail)
    score_cols = {n: st.column_config.ProgressColumn(
        n, min_value=0.0, max_value=1.0, format="%.2f",
        help=f"threshold {detail.thresholds[n]:.2f}" if n in detail.thresholds else None)
        for n in frame.columns if n in detail.thresholds or n in {
            s for d in detail.drafts for s in d.scores}}
    st.dataframe(frame, hide_index=True, width="stretch", column_config={
        **score_cols,
        "Written at": st.column_config.DatetimeColumn(format="D MMM, HH:mm:ss"),
        "Flags": st.column_config.NumberColumn(help="Open blocking flags on the version"),
    })


def _label(d: DraftView) -> str:
    return f"v{d.version} · {author_label(d)}"


def render_diff(detail: RunDetail) -> None:
    drafts = detail.drafts
    if len(drafts) < 2:
        st.caption("The diff needs two versions; there is one so far.")
        return
    by_id = {d.id: d for d in drafts}
    ids = [d.id for d in drafts]
    cur = detail.current_draft_id if detail.current_draft_id in by_id else ids[-1]
    prev = ids[max(0, ids.index(cur) - 1)]
    c1, c2, c3 = st.columns([2, 2, 3])
    old_id = c1.selectbox("From", ids, index=ids.index(prev),
                          format_func=lambda i: _label(by_id[i]),
                          key=f"diff_from_{detail.id}_{cur}")
    new_id = c2.selectbox("To", ids, index=ids.index(cur), format_func=lambda i: _label(by_id[i]),
                          key=f"diff_to_{detail.id}_{cur}")
    view = c3.segmented_control("View", VIEWS, default=VIEWS[0],
                                key=f"diff_view_{detail.id}") or VIEWS[0]
    old, new = by_id[old_id], by_id[new_id]
    whole = st.toggle("Show unchanged lines", key=f"diff_whole_{detail.id}")
    st.caption(_summary(old, new))
    if old.content == new.content:
        st.info("These two versions have the same text.")
    elif view == "Unified":
        st.code(diff.unified(old.content, new.content, from_label=f"v{old.version}",
                             to_label=f"v{new.version}", context=10_000 if whole else 3),
                language="diff", wrap_lines=True)
    else:
        rows = diff.side_by_side(old.content, new.content, context=None if whole else 2)
        with st.container(border=True):
            if view == "Side by side":
                st.markdown(side_by_side_table(rows, left=_label(old), right=_label(new)))
            else:
                st.markdown(inline_diff(rows))
    _why(detail, old, new)


def _summary(old: DraftView, new: DraftView) -> str:
    s = diff.stats(old.content, new.content)
    parts = [f":green[+{s.added} added]" if s.added else "",
             f":red[−{s.removed} removed]" if s.removed else "",
             f":orange[~{s.changed} changed]" if s.changed else ""]
    lines = " · ".join(p for p in parts if p) or "no"
    return (f"v{old.version} → v{new.version}: {lines} lines · v{new.version} written by "
            f"{escape_inline(author_label(new))} on {new.created_at:%d %b %H:%M:%S} UTC")


def _why(detail: RunDetail, old: DraftView, new: DraftView) -> None:
    """The notes and human acts on the versions from `old` up to (not including) `new`:
    what the next writer was asked to change."""
    lo, hi = sorted((old.version, new.version))
    between = {d.id for d in detail.drafts if lo <= d.version < hi}
    notes = [n for n in detail.notes if n.draft_id in between]
    acts = [a for a in detail.actions if a.draft_id in between and a.comment
            and a.action == "halt"]  # a revision request is also a note
    edits = [d for d in detail.drafts if lo < d.version <= hi and d.author_kind == "human"]
    st.markdown("**Why it changed**")
    if not (notes or acts or edits):
        st.caption("No notes or comments were written on these versions.")
        return
    version = {d.id: d.version for d in detail.drafts}
    for d in edits:
        st.markdown(f":blue-badge[:material/edit: person] v{d.version} is an edit by "
                    f"**{escape_inline(d.author)}**.")
    for a in acts:
        st.markdown(f":violet-badge[:material/person: {escape_inline(a.actor)}] on "
                    f"v{version.get(a.draft_id or 0, '?')}: {escape_inline(a.comment or '')}")
    for n in notes:
        color, icon = PRIORITY.get(n.priority, ("gray", ""))
        st.markdown(f":{color}-badge[{icon} {n.priority}] **{escape_inline(n.author)}** → "
                    f"{escape_inline(n.target)} on v{version.get(n.draft_id or 0, '?')}: "
                    f"{escape_inline(n.text)}")
