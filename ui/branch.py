"""Branching on the Run page: where this run came from, what was branched from it, and a small
form to start a new run from the version on screen. The Run page calls
render_branch_controls(detail, draft); the rest are pure helpers the tests check."""

from __future__ import annotations

from typing import Any

import streamlit as st

from engine import branch, prompt_versions
from engine.errors import ServiceError
from engine.pipelines.registry import get_pipeline
from engine.views import DraftView, RunDetail
from ui.format import status_label
from ui.markdown import escape_inline
from ui.reviewer import MISSING_HINT, reviewer

RUN_PAGE = "pages/run.py"
KEEP = "keep"


def lineage_links(lineage: branch.Lineage) -> list[tuple[int, str]]:
    """(run id, link label) for the parent first, then every child; labels are escaped."""
    out: list[tuple[int, str]] = []
    p = lineage.parent
    if p is not None:
        out.append((p.run_id, f"Branched from run #{p.run_id} v{p.draft_version} · "
                              f"{escape_inline(p.title)} ({status_label(p.status)})"))
    for c in lineage.children:
        out.append((c.run_id, f"Branch run #{c.run_id} from v{c.draft_version} by "
                              f"{escape_inline(c.created_by)} ({status_label(c.status)})"))
    return out


def changed_params(detail: RunDetail, *, max_iterations: int, thresholds: dict[str, float],
                   prompts: dict[str, Any]) -> dict[str, Any]:
    """Only what differs from the run being branched (the rest is inherited)."""
    out: dict[str, Any] = {}
    if max_iterations != detail.max_iterations:
        out["max_iterations"] = max_iterations
    moved = {n: v for n, v in thresholds.items()
             if abs(v - detail.thresholds.get(n, -1.0)) > 1e-9}
    if moved:
        out["thresholds"] = moved
    chosen = {agent: v for agent, v in prompts.items() if v != KEEP}
    if chosen:
        out["prompts"] = chosen
    return out


def _render_lineage(detail: RunDetail) -> None:
    for run_id, label in lineage_links(branch.lineage(detail.id)):
        st.page_link(RUN_PAGE, label=label, query_params={"run": str(run_id)},
                     icon=":material/call_split:")


def _prompt_choices(detail: RunDetail) -> dict[str, Any]:
    stage = get_pipeline(detail.kind).stage(detail.stage)
    chosen: dict[str, Any] = {}
    for spec in (stage.drafter, *stage.critics):
        numbers = [v.version for v in prompt_versions.list_versions(spec.name,
                                                                   include_default=False)]
        if numbers:
            chosen[spec.name] = st.selectbox(
                f"{spec.role} prompt", [KEEP, *numbers], key=f"br_p_{detail.id}_{spec.name}",
                format_func=lambda v: "as this run (or the active one)" if v == KEEP else f"v{v}")
    return chosen


def _render_form(detail: RunDetail, draft: DraftView) -> None:
    actor = reviewer()
    with st.form(f"branch_{detail.id}_{draft.id}"):
        st.caption(f"v{draft.version} becomes the first draft of a new run: the critics score "
                   "it and the loop goes on from there. With guidance, the drafter first "
                   "revises it as you ask.")
        guidance = st.text_area("Guidance for the drafter (optional)", height=80,
                                key=f"br_g_{detail.id}_{draft.id}", max_chars=5000,
                                placeholder="e.g. Make it suitable for teenagers")
        cols = st.columns(len(detail.thresholds) + 1)
        max_it = cols[0].number_input("Max iterations", 1, 20, detail.max_iterations,
                                      key=f"br_it_{detail.id}_{draft.id}")
        thresholds = {
            name: col.number_input(f"{name} ≥", 0.0, 1.0, float(value), 0.05, format="%.2f",
                                   key=f"br_t_{detail.id}_{draft.id}_{name}")
            for col, (name, value) in zip(cols[1:], detail.thresholds.items(), strict=True)
        }
        prompts = _prompt_choices(detail)
        go = st.form_submit_button("Start a new run from this version",
                                   icon=":material/call_split:", disabled=not actor)
    if not actor:
        st.caption(MISSING_HINT)
    if not go:
        return
    params = changed_params(detail, max_iterations=int(max_it), thresholds=thresholds,
                            prompts=prompts)
    try:
        new_id = branch.branch_run(run_id=detail.id, draft_id=draft.id, actor=actor,
                                   params=params, guidance=guidance)
    except ServiceError as exc:
        st.error(str(exc), icon=":material/error:")
        return
    st.switch_page(RUN_PAGE, query_params={"run": str(new_id)})


def render_branch_controls(detail: RunDetail, draft: DraftView, *,
                           in_expander: bool = True) -> None:
    """Lineage links (parent and branches) and the "Start a new run from this version" form.
    Pass in_expander=False when the caller already draws it inside an expander."""
    _render_lineage(detail)
    if draft.stage != detail.stages[0]:
        return  # branches start in the first stage (engine.branch says why)
    if in_expander:
        with st.expander(f"Start a new run from v{draft.version}", icon=":material/call_split:"):
            _render_form(detail, draft)
    else:
        _render_form(detail, draft)


__all__ = ["render_branch_controls", "lineage_links", "changed_params", "RUN_PAGE"]
