"""Prompts: every agent's system prompt, versioned. See versions, diff any two, save an edit as
a new version, activate one, and compare versions on what their runs achieved."""

from __future__ import annotations

import streamlit as st

from db.connect import database_url
from engine import prompt_versions as pv
from engine.errors import ServiceError
from engine.identity import can
from ui.lazy_tabs import lazy_tabs
from ui.markdown import escape_inline
from ui.prompt_figures import NO_DATA, comparison_figure, comparison_rows
from ui.reviewer import MISSING_HINT, reviewer

st.title("Prompts")
st.caption("New calls use the agent's active version; a run started with its own prompt "
           "keeps it. Every call records the version it used, so versions can be compared on "
           "the runs that used them.")

agents = pv.list_agents()
names = [a.name for a in agents]
wanted = st.query_params.get("agent")
agent_name = st.selectbox(
    "Agent", names, index=names.index(wanted) if wanted in names else 0, key="pr_agent",
    format_func=lambda n: next(f"{a.role} · {a.kind}" for a in agents if a.name == n))
info = next(a for a in agents if a.name == agent_name)
st.query_params["agent"] = info.name

actor = reviewer()
may_edit = bool(actor) and can(actor, "prompts", info.kind)
active_label = f"v{info.active_version}" if info.active_version else "the default in code"
st.markdown(f"**{escape_inline(info.role)}** in the {info.kind} pipeline "
            f"({'drafter' if info.is_drafter else 'critic'}) · active: **{active_label}** · "
            f"{info.versions} saved version(s)")
if not actor:
    st.caption(MISSING_HINT)
elif not may_edit:
    st.caption(f":orange[:material/lock: Only the {info.kind} team or an admin may change "
               "these prompts.]")

versions = pv.list_versions(info.name)


def _label(v: pv.PromptVersionView) -> str:
    who = "code" if v.version == pv.CODE_DEFAULT else f"by {v.author}"
    when = f", {v.created_at:%Y-%m-%d %H:%M}" if v.created_at else ""
    name = "default in code" if v.version == pv.CODE_DEFAULT else f"v{v.version}"
    return f"{name} ({who}{when})" + (" · active" if v.active else "")


def _act(fn, ok: str) -> None:  # type: ignore[no-untyped-def]
    try:
        fn()
    except ServiceError as exc:
        st.error(str(exc), icon=":material/error:")
        return
    st.toast(ok, icon=":material/check:")
    st.rerun()


# Lazy tabs: only the open tab is drawn. The comparison reads every call of the agent (a
# million at scale), so it runs only while its tab is open, and its result is kept a minute;
# the edit form and the diff are not drawn behind the version's text either.


@st.cache_data(ttl=60, show_spinner="Comparing versions on their runs...")
def _outcomes(url: str, agent: str) -> list[pv.VersionOutcome]:
    return pv.compare_versions(agent)


by_number = {v.version: v for v in versions}


def _versions_tab() -> None:
    shown = st.selectbox("Version", list(by_number), key=f"pr_view_{info.name}",
                         format_func=lambda n: _label(by_number[n]))
    chosen = by_number[shown]
    st.code(chosen.text, language=None, wrap_lines=True)
    if chosen.active:
        st.caption(":green[:material/check_circle: Active: new calls use this version.]")
    elif st.button(f"Activate {'the default in code' if shown == 0 else f'v{shown}'}",
                   key=f"pr_activate_{info.name}_{shown}", icon=":material/play_circle:",
                   disabled=not may_edit):
        _act(lambda: pv.activate(agent=info.name, version=shown, actor=actor),
             f"{info.role}: {_label(chosen).split(' (')[0]} is active")


def _edit_tab() -> None:
    base = next((v for v in versions if v.active), versions[-1])
    with st.form(f"pr_edit_{info.name}_{base.version}"):
        text = st.text_area(f"Edit (starting from {_label(base).split(' ·')[0]})", base.text,
                            height=320, max_chars=pv.MAX_PROMPT_CHARS)
        make_active = st.checkbox("Activate it now", value=True,
                                  help="Otherwise it is saved and can be activated later.")
        saved = st.form_submit_button("Save as a new version", type="primary",
                                      icon=":material/save:", disabled=not may_edit)
    if saved:
        _act(lambda: pv.save_version(agent=info.name, text=text, actor=actor,
                                     activate=make_active), "Saved as a new version")


def _diff_tab() -> None:
    numbers = [v.version for v in versions]
    left, right = st.columns(2)
    # Keyed by the newest version: a new one resets the pair to "previous -> newest".
    fresh = f"{info.name}_{numbers[0]}"
    old = left.selectbox("From", numbers, index=min(1, len(numbers) - 1),
                         key=f"pr_diff_a_{fresh}", format_func=lambda n: _label(by_number[n]))
    new = right.selectbox("To", numbers, index=0, key=f"pr_diff_b_{fresh}",
                          format_func=lambda n: _label(by_number[n]))
    lines = pv.diff_versions(info.name, old, new)
    if old == new or not lines:
        st.info("The two versions are the same.", icon=":material/drag_handle:")
    else:
        st.code("\n".join(lines), language="diff", wrap_lines=True)


def _compare_tab() -> None:
    outcomes = _outcomes(database_url(), info.name)
    st.caption("Per version: the runs with at least one call of this agent made with it, the "
               "mean scores of the versions the agents wrote in those runs, how many drafts it "
               "took to meet every threshold, approvals (of runs a person decided) and what "
               "each approved draft cost.")
    if not any(o.runs for o in outcomes):
        st.info(NO_DATA, icon=":material/query_stats:")
    else:
        st.plotly_chart(comparison_figure(outcomes, info.thresholds), width="stretch",
                        config={"displayModeBar": False})
    rows = comparison_rows(outcomes, info.thresholds)
    money = st.column_config.NumberColumn(format="$%.4f")
    config = {name: st.column_config.NumberColumn(format="%.2f")
              for name in rows[0] if name.startswith("Mean ")} if rows else {}
    config |= {"Approval rate": st.column_config.NumberColumn(format="percent"),
               "Iterations to pass": st.column_config.NumberColumn(format="%.1f"),
               "Cost (USD)": money, "Cost per approved (USD)": money}
    st.dataframe(rows, hide_index=True, width="stretch", column_config=config)


lazy_tabs({"Versions": _versions_tab, "Edit": _edit_tab, "Diff": _diff_tab,
           "Compare on outcomes": _compare_tab}, key="pr_tab")
