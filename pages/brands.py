"""Brands: pick, create and edit brand profiles (the business card, voice, audience, products,
words and claims to avoid). Campaigns read the profile of their brand on every draft."""

from __future__ import annotations

from typing import Any

import streamlit as st

from engine.errors import InvalidInput, NotFound
from engine.pipelines.campaign.brands import BrandOut, create_brand, list_brands, update_brand
from engine.pipelines.campaign.creators import list_creators
from ui.form_errors import show_field_errors
from ui.markdown import escape_inline
from ui.reviewer import reviewer

NEW = 0
PICK, NEXT, FLASH = "brand_pick", "_brand_pick_next", "_brand_flash"
CAMPAIGN_BRAND = "campaign_brand_id"  # the brand the campaign form on the Start page opens with

FIELDS: list[tuple[str, str, str, str]] = [
    # (field, label, widget, help)
    ("name", "Name", "input", "The brand's name as customers know it. Required."),
    ("website", "Website", "input", "A full address, e.g. https://almacafe.co.il"),
    ("location", "Location", "input", "City and country, e.g. Rehovot, Israel"),
    ("service_type", "Service type", "input", "What the business is, e.g. Coffee shop"),
    ("social_links", "Social links", "area", "One per line: profile URLs or @handles"),
    ("voice", "Brand voice", "area", "How the brand sounds; the Evaluator scores against it"),
    ("audience", "Audience", "area", "Who the brand speaks to"),
    ("products", "Products", "area", "One per line; drafts feature the first ones"),
    ("avoid_words", "Words to avoid", "area", "One per line; flagged in every draft"),
    ("avoid_claims", "Claims to avoid", "area", "One per line; flagged in every draft"),
]

st.title("Brands")
st.caption("A campaign starts from a brand profile: who the brand is, how it sounds, and "
           "what it must never say. Compliance checks every draft against it.")

brands = list_brands()
by_id = {b.id: b for b in brands}
if NEXT in st.session_state:
    st.session_state[PICK] = st.session_state.pop(NEXT)
if st.session_state.get(PICK) not in {NEW, *by_id}:
    wanted = st.session_state.get(CAMPAIGN_BRAND)
    st.session_state[PICK] = wanted if wanted in by_id else (brands[0].id if brands else NEW)

left, right = st.columns([3, 1], vertical_alignment="bottom")
picked = left.selectbox(
    "Brand", [NEW, *by_id], key=PICK,
    format_func=lambda i: "+ New brand" if i == NEW else by_id[i].name
    + (" (sample)" if by_id[i].sample else ""))
brand: BrandOut | None = by_id.get(picked)
if brand is not None and right.button("Use for a campaign", icon=":material/campaign:",
                                      help="Open the Start page with this brand picked"):
    st.session_state[CAMPAIGN_BRAND] = brand.id
    st.session_state["start_kind"] = "Campaign"  # the Start page's kind switch (pages/start.py)
    st.switch_page("pages/start.py")

flash = st.session_state.pop(FLASH, None)
if flash:
    st.success(flash, icon=":material/check_circle:")


def _value(b: BrandOut | None, field: str) -> str:
    if b is None:
        return ""
    v = getattr(b, field)
    return "\n".join(v) if isinstance(v, list) else str(v)



key = f"b{picked}"
slots: dict[str, Any] = {}
values: dict[str, str] = {}
with st.form(f"brand_form_{picked}"):
    st.subheader("New brand" if brand is None else f"Edit {escape_inline(brand.name)}",
                 anchor=False)
    cols = st.columns(2)
    for i, (field, label, widget, help_text) in enumerate(FIELDS):
        where = cols[i % 2] if widget == "input" else st
        if widget == "input":
            values[field] = where.text_input(label, value=_value(brand, field),
                                             key=f"{key}_{field}", help=help_text)
        else:
            values[field] = where.text_area(label, value=_value(brand, field), height=90,
                                            key=f"{key}_{field}", help=help_text)
        slots[field] = where.empty()
    slots["_form"] = st.empty()
    saved = st.form_submit_button("Create brand" if brand is None else "Save changes",
                                  type="primary", icon=":material/save:")

if saved:
    try:
        if brand is None:
            out = create_brand(data=values, actor=reviewer())
            st.session_state[FLASH] = f"Created {out.name}."
        else:
            out = update_brand(brand_id=brand.id, data=values)
            st.session_state[FLASH] = f"Saved {out.name}. Campaigns use the new profile from " \
                                      "their next draft."
        st.session_state[NEXT] = out.id
        st.rerun()
    except InvalidInput as exc:
        show_field_errors(exc, slots, labels={f: label for f, label, _, _ in FIELDS},
                          nothing="Nothing was saved")
    except NotFound as exc:
        slots["_form"].error(str(exc), icon=":material/error:")

with st.expander(f"Creator directory ({len(list_creators())} creators)"):
    st.caption("Campaigns shortlist from this directory; the CREATORS stage ranks it against "
               "the approved brief.")
    st.dataframe(
        [{"Creator": c.handle, "Name": c.name, "Platform": c.platform, "Niche": c.niche,
          "Audience": c.audience_size, "Location": c.location,
          "Engagement %": c.engagement_rate, "Contact": c.contact_channel,
          "Fee (USD)": c.fee_usd} for c in list_creators()],
        hide_index=True, width="stretch")
