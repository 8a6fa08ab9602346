"""The campaign form of the Start page: a brand, a goal, the audience, the budget, the
channels and how many creators. Validation is the service's: its field messages are shown
under the fields, and nothing is created while any is wrong."""

from __future__ import annotations

from typing import Any

import streamlit as st
from streamlit.errors import StreamlitAPIException

from engine import service
from engine.errors import InvalidInput
from engine.pipelines.campaign.brands import BrandOut, list_brands
from engine.pipelines.campaign.channels import CHANNELS, LABELS
from engine.pipelines.campaign.models import CampaignInput
from engine.pipelines.campaign.spec import MAX_ITERATIONS, THRESHOLDS
from ui.form_errors import max_len, show_field_errors
from ui.markdown import escape_inline
from ui.reviewer import MISSING_HINT

CAMPAIGN_BRAND = "campaign_brand_id"
"""The brand picked here or on the Brands page ("Use for a campaign")."""
LABELS_BY_FIELD = {"goal": "Goal", "audience": "Audience", "budget": "Budget",
                   "channels": "Channels", "num_creators": "Creators", "brand_id": "Brand",
                   "brand_name": "Brand"}


def _brand_card(b: BrandOut) -> None:
    lines = [f"**{escape_inline(b.name)}** · {escape_inline(b.service_type or 'brand')}"
             + (f" · {escape_inline(b.location)}" if b.location else "")]
    if b.voice:
        lines.append(f"Voice: {escape_inline(b.voice)}")
    avoid = b.avoid_words + b.avoid_claims
    if avoid:
        lines.append("Never says: " + ", ".join(escape_inline(a) for a in avoid))
    st.caption("  \n".join(lines))


def _brands_link(where: Any, label: str, icon: str) -> None:
    try:
        where.page_link("pages/brands.py", label=label, icon=icon)
    except StreamlitAPIException:  # drawn outside the app's navigation (tests, embeds)
        where.caption(f"{label}: see the Brands page.")


def _pick_brand() -> BrandOut | None:
    brands = list_brands()
    if not brands:
        st.info("There is no brand yet: create one first.", icon=":material/storefront:")
        _brands_link(st, "Create a brand", ":material/add:")
        return None
    by_id = {b.id: b for b in brands}
    if st.session_state.get(CAMPAIGN_BRAND) not in by_id:
        st.session_state[CAMPAIGN_BRAND] = brands[0].id
    left, right = st.columns([3, 1], vertical_alignment="bottom")
    picked = left.selectbox("Brand", list(by_id), key=CAMPAIGN_BRAND,
                            format_func=lambda i: by_id[i].name)
    _brands_link(right, "Edit brands", ":material/storefront:")
    brand = by_id[picked]
    _brand_card(brand)
    return brand


def render_campaign_form(actor: str) -> int | None:
    """Draw the form; returns the new run's id once one is created."""
    brand = _pick_brand()
    if brand is None:
        return None
    errors: dict[str, Any] = {}
    # Keys carry the brand, so picking another brand pre-fills its own audience.
    k = f"c{brand.id}"
    with st.form("campaign_form"):
        goal = st.text_area(
            "Goal", key=f"{k}_goal", height=90, max_chars=max_len(CampaignInput, "goal"),
            placeholder="e.g. Bring 300 more students in for weekend brunch this spring",
            help="What the campaign should achieve, in your words.")
        errors["goal"] = st.empty()
        audience = st.text_input("Audience", key=f"{k}_audience",
                                 value=brand.audience[:max_len(CampaignInput, "audience")],
                                 max_chars=max_len(CampaignInput, "audience"),
                                 help="Who the creators' posts should reach.")
        errors["audience"] = st.empty()
        left, mid, right = st.columns([2, 3, 2])
        budget = left.number_input("Campaign budget (USD)", min_value=0.0,
                                   max_value=10_000_000.0, value=3000.0, step=100.0,
                                   key=f"{k}_budget", format="%.0f",
                                   help="Creator fees, product seeding, paid amplification. "
                                   "Not the cost of the AI drafting.")
        errors["budget"] = left.empty()
        channels = mid.multiselect("Outreach channels", list(CHANNELS),
                                   default=["email", "sms"], key=f"{k}_channels",
                                   format_func=lambda c: LABELS[c],
                                   help="One message per creator on each channel.")
        errors["channels"] = mid.empty()
        creators = right.number_input("Creators", min_value=1, max_value=20, value=3,
                                      key=f"{k}_creators",
                                      help="How many creators the shortlist should hold.")
        errors["num_creators"] = right.empty()
        st.caption(
            "Four stages, each approved by you: **Brief → Creators → Outreach → Plan**. In each "
            "stage the agents draft and the Evaluator scores brand voice, quality and "
            f"completion (pass at {THRESHOLDS['quality']:.2f}, up to {MAX_ITERATIONS} drafts) "
            "while compliance checks claims, #ad disclosure and channel rules.")
        errors["_form"] = st.empty()
        submitted = st.form_submit_button("Start campaign", type="primary",
                                          icon=":material/campaign:", disabled=not actor)
    if not actor:
        st.caption(MISSING_HINT)
    if not submitted:
        return None
    try:
        return service.start_run(kind="campaign", actor=actor, input={
            "brand_id": brand.id, "brand_name": brand.name, "goal": goal,
            "audience": audience, "budget": budget, "channels": channels,
            "num_creators": int(creators)})
    except InvalidInput as exc:
        show_field_errors(exc, errors, labels=LABELS_BY_FIELD, nothing="Nothing was started")
        return None
