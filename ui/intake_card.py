"""The card beside the chat: each field to collect, its value as it fills in, and where the
value came from (which message, read how); the history of a field that changed."""

from __future__ import annotations

import streamlit as st

from engine.intake.fields import FIELDS
from engine.intake.normalise import shown
from engine.intake.service import IntakeView
from ui.markdown import escape_inline

SOURCES = {"user_input": "you said", "inference": "inferred from your words",
           "user_confirmation": "you confirmed", "brand_profile": "brand profile"}


def render_card(view: IntakeView) -> None:
    wanted = [f for f in FIELDS if f.required or f.name in view.values]
    have = sum(1 for f in wanted if f.name in view.values)
    st.subheader("Business card" if not view.brand_picked else "Campaign card", anchor=False)
    st.progress(have / len(wanted), text=f"{have} of {len(wanted)} filled in")
    # Where each value came from: its latest reading (a confirmation re-records every value).
    latest = {r.field: r for r in view.records if r.source != "user_confirmation"}
    confirmed = {r.field for r in view.records if r.source == "user_confirmation"}
    asking = set(view.messages[-1].asks) if view.messages else set()
    for f in wanted:
        rec = latest.get(f.name)
        if rec is None:
            mark = " · *asking now*" if f.name in asking else ""
            st.markdown(f"**{f.label}**: :gray[not yet]{mark}")
            continue
        value = escape_inline(shown(f.name, rec.value))[:300]
        st.markdown(f"**{f.label}**: {value}")
        earlier = list(dict.fromkeys(shown(f.name, r.value) for r in view.records
                                     if r.field == f.name and r.value != rec.value))
        how = f"{SOURCES.get(rec.source, rec.source)}, message {rec.message_index}"
        if f.name in confirmed:
            how += " · confirmed"
        if earlier:  # superseded values stay in the history
            how += " · was " + escape_inline(", ".join(earlier))[:200]
        st.caption(how)
