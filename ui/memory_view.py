"""The Run page's Memory tab (issue 18): the run's shared memory, each agent's private memory,
the author's own memory, and what each model call was given, every entry with where it came
from. Draws engine/memory/read.py's read model; no queries here."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import streamlit as st

from engine.memory.read import MemoryPanel, load_memory
from engine.memory.store import Namespace
from engine.views import RunDetail
from ui.markdown import escape_inline


def _code(text: str) -> str:
    return f"`{text.replace('`', '')}`"


def _value(v: Any) -> str:
    text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, default=str)
    return text if len(text) <= 400 else text[:397] + "..."


def entries_frame(ns: Namespace) -> pd.DataFrame:
    return pd.DataFrame([{"key": e.key, "value": _value(e.value), "source": e.source,
                          "written": e.at} for e in ns.entries],
                        columns=["key", "value", "source", "written"])


def _table(ns: Namespace, key: str) -> None:
    st.dataframe(entries_frame(ns), hide_index=True, key=key, column_config={
        "value": st.column_config.TextColumn(width="large"),
        "written": st.column_config.DatetimeColumn(format="MM-DD HH:mm:ss")})


def render_memory(detail: RunDetail) -> None:
    panel = load_memory(detail.id)
    st.markdown("#### Shared memory")
    st.caption("Every agent of this run reads it: the business card, the campaign, the "
               "stage, what people said, the decisions taken.")
    if panel.shared is None or not panel.shared.data:
        st.caption("Empty so far: the orchestrator fills it when the first step opens.")
    else:
        _table(panel.shared, f"mem_shared_{detail.id}")
    render_private(panel)
    if panel.user:
        st.markdown(f"#### {escape_inline(panel.person)}'s own memory")
        st.caption("Kept across runs (`python -m engine memory ... --user`); the team of each "
                   "of their campaigns reads the profile.")
        for name, ns in panel.user.items():
            st.markdown(_code(name))
            _table(ns, f"mem_user_{detail.id}_{name}")
    render_given(panel)


def render_private(panel: MemoryPanel) -> None:
    st.markdown("#### Private memory, per agent")
    if not panel.agents:
        st.caption("No agent has kept anything of its own yet.")
        return
    names = list(panel.agents)
    tabs = st.tabs(names)
    for tab, name in zip(tabs, names, strict=True):
        with tab:
            st.caption(f"Only {name} reads this; no other agent is given it.")
            _table(panel.agents[name], f"mem_agent_{panel.run_id}_{name}")


def render_given(panel: MemoryPanel) -> None:
    st.markdown("#### What each call was given")
    if not panel.given:
        st.caption("No model call of this run has been given memory yet.")
        return
    by_id = {g.call_id: g for g in panel.given}
    pick = st.selectbox("Call", list(by_id), index=len(by_id) - 1,
                        format_func=lambda i: f"call {i} · {by_id[i].agent} · {by_id[i].stage}"
                        f" · {by_id[i].started_at:%H:%M:%S}", key=f"mem_call_{panel.run_id}")
    g = by_id[pick]
    st.markdown(f"**{escape_inline(g.agent)}** read as **{escape_inline(g.reader)}**: "
                + ", ".join(_code(n) for n in g.namespaces))
    st.dataframe(pd.DataFrame([{"entry": k, "value": _value(g.values.get(k)),
                                "source": g.sources.get(k, "")} for k in g.keys],
                              columns=["entry", "value", "source"]),
                 hide_index=True, key=f"mem_given_{panel.run_id}_{pick}",
                 column_config={"value": st.column_config.TextColumn(width="large")})
    st.caption("Why did it say that? Its request on the Traces page holds these values as "
               "it was given them.")


__all__ = ["entries_frame", "render_memory"]
