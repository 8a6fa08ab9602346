"""The protocol (CBT exercise) form of the Start page. Validation is the service's: its field
messages are shown under the fields, and nothing is created while any is wrong."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from engine import service
from engine.checks.crisis import region, regions
from engine.errors import InvalidInput
from engine.pipelines.protocol.models import EXERCISE_TYPES, MAX_AUDIENCE, MAX_INTENT
from engine.pipelines.protocol.spec import MAX_ITERATIONS, THRESHOLDS
from engine.region_settings import get_region_settings
from ui.backend import backend_info
from ui.form_errors import show_field_errors
from ui.reviewer import MISSING_HINT, permitted, role_hint

SCORE_HELP = {
    "safety": "Safety Guardian: nothing that could harm a client; a crisis line is present.",
    "empathy": "Clinical Critic: warm, validating, non-judgemental second person.",
    "clinical": "Clinical Critic: a recognised CBT technique with clear, actionable steps.",
}


def _type_label(t: str | None) -> str:
    return "Let the drafter choose" if t is None else t.replace("_", " ").capitalize()


def _region_label() -> Callable[[str | None], str]:
    clinic = get_region_settings().clinic
    default = f"Clinic default ({region(clinic).name})" if clinic else \
        "Clinic default (from the request, else US)"
    return lambda c: default if c is None else region(c).label()


def render_protocol_form(actor: str) -> int | None:
    """Draw the form; returns the new run's id once one is created."""
    errors: dict[str, Any] = {}
    with st.form("protocol_form"):
        intent = st.text_area(
            "What should the exercise help with?", key="p_intent", height=110,
            max_chars=MAX_INTENT,  # Streamlit counts as the person types: "12/2000"
            placeholder="e.g. Help a university student manage panic in the days before exams",
            help=f"In your own words; up to {MAX_INTENT:,} characters.")
        errors["intent"] = st.empty()
        left, mid, right = st.columns(3)
        audience = left.text_input("Audience", key="p_audience", value="adults",
                                   max_chars=MAX_AUDIENCE,
                                   help=f"Who will do the exercise; up to {MAX_AUDIENCE} "
                                        "characters.")
        errors["audience"] = left.empty()
        exercise = mid.selectbox("Exercise type", [None, *EXERCISE_TYPES], key="p_type",
                                 format_func=_type_label)
        errors["exercise_type"] = mid.empty()
        region = right.selectbox("Crisis lines for", [None, *regions()], key="p_region",
                                 format_func=_region_label(),
                                 help="Whose crisis lines the safety note gives (Settings sets "
                                      "the clinic's default).")
        errors["region"] = right.empty()
        params = _advanced(errors)
        errors["_form"] = st.empty()
        may = permitted(actor, "protocol", ("start",))["start"]
        submitted = st.form_submit_button("Start drafting", type="primary",
                                          icon=":material/play_arrow:", disabled=not may)
    if not actor:
        st.caption(MISSING_HINT)
    elif not may:
        st.caption(role_hint(actor, "protocol", "start"))
    if not submitted:
        return None
    try:
        return service.start_run(
            kind="protocol", actor=actor, params=params,
            input={"intent": intent, "audience": audience, "exercise_type": exercise,
                   "region": region})
    except InvalidInput as exc:
        typed = {"intent": intent, "audience": audience}
        show_field_errors(exc, errors, labels={}, nothing="Nothing was started",
                          blank=[f for f, v in typed.items() if not str(v).strip()])
        return None


def _advanced(errors: dict[str, Any]) -> dict[str, Any]:
    info = backend_info()
    with st.expander("Advanced: thresholds, iterations, budget"):
        st.caption("The supervisor halts for your review once every score meets its threshold "
                   "(or the iterations or the budget run out).")
        cols = st.columns(len(THRESHOLDS))
        chosen = {
            name: col.slider(name.capitalize(), 0.0, 1.0, float(default), 0.05,
                             key=f"p_th_{name}", help=SCORE_HELP.get(name))
            for col, (name, default) in zip(cols, THRESHOLDS.items(), strict=True)
        }
        errors["thresholds"] = st.empty()
        left, right = st.columns(2)
        max_iter = left.number_input("Max iterations", 1, 20, MAX_ITERATIONS, key="p_max_iter",
                                     help="Drafts the agents may write before a person looks.")
        errors["max_iterations"] = left.empty()
        budget = right.number_input("Budget (USD)", min_value=0.0, max_value=100_000.0,
                                    value=None, step=0.10, key="p_budget",
                                    placeholder="No limit", format="%.2f",
                                    help="The run halts for review before a call would exceed it.")
        errors["budget_usd"] = right.empty()
        if info.offline:
            st.caption(f":material/memory: {info.label} (model `{info.model}`, costs $0).")
        else:
            st.caption(f":material/cloud: {info.label}.")
    params: dict[str, Any] = {
        "thresholds": {k: round(v, 2) for k, v in chosen.items() if abs(v - THRESHOLDS[k]) > 1e-9},
    }
    if max_iter != MAX_ITERATIONS:
        params["max_iterations"] = int(max_iter)
    if budget is not None:
        params["budget_usd"] = float(budget)
    return params
