"""The blackboard: notes the critics (and people) left for the drafter or for everyone,
critical first, filterable by version, author and priority."""

from __future__ import annotations

import streamlit as st

from engine.views import NoteView, RunDetail
from ui.format import PRIORITY
from ui.markdown import escape_inline

PRIORITIES = ("critical", "warning", "info")


def render_blackboard(detail: RunDetail) -> None:
    if not detail.notes:
        st.caption("No notes yet: the critics write them when they score a version.")
        return
    version = {d.id: d.version for d in detail.drafts}
    versions = sorted({version.get(n.draft_id or 0, 0) for n in detail.notes}, reverse=True)
    authors = sorted({n.author for n in detail.notes})
    c1, c2, c3 = st.columns([1, 2, 2])
    current = version.get(detail.current_draft_id or 0)
    options = ["all", *versions]
    pick = c1.selectbox("Version", options, key=f"bb_version_{detail.id}_{current}",
                        index=options.index(current) if current in options else 0,
                        format_func=lambda v: "All versions" if v == "all" else f"v{v}")
    prios = c2.pills("Priority", PRIORITIES, selection_mode="multi", default=list(PRIORITIES),
                     key=f"bb_prio_{detail.id}")
    who = c3.multiselect("Author", authors, key=f"bb_author_{detail.id}",
                         placeholder="Everyone")
    shown = [n for n in detail.notes
             if (pick == "all" or version.get(n.draft_id or 0, 0) == pick)
             and n.priority in (prios or PRIORITIES) and (not who or n.author in who)]
    counts = {p: sum(n.priority == p for n in shown) for p in PRIORITIES}
    st.caption(" · ".join(f"{counts[p]} {p}" for p in PRIORITIES))
    for n in sorted(shown, key=lambda n: (-version.get(n.draft_id or 0, 0),
                                          PRIORITIES.index(n.priority)
                                          if n.priority in PRIORITIES else 9)):
        _note(n, version.get(n.draft_id or 0))


def _note(n: NoteView, version: int | None) -> None:
    color, icon = PRIORITY.get(n.priority, ("gray", ""))
    target = "everyone" if n.target == "broadcast" else escape_inline(n.target)
    with st.container(border=True):
        st.markdown(f":{color}-badge[{icon} {n.priority}] **{escape_inline(n.author)}** → "
                    f"{target}" + (f" · on v{version}" if version else "") + "  \n"
                    + escape_inline(n.text))
