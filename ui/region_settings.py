"""Settings: which region's crisis lines runs use (engine/region_settings.py), the clinic's
default and each brand's own, with the lines a safety note will give."""

from __future__ import annotations

import streamlit as st

from engine.checks.crisis import region, regions
from engine.errors import ServiceError
from engine.pipelines.campaign.brands import list_brands
from engine.region_settings import get_region_settings, set_brand_region, set_clinic_region

SAVED = "_regions_saved"
CLINIC = "Clinic default"


def _label(code: str | None, unset: str) -> str:
    return unset if code is None else region(code).label()


def region_settings_section(who: str) -> None:
    st.subheader("Crisis resources by region")
    st.caption("The crisis lines a protocol's safety note gives, and the checks expect, are the "
               "reader's region's. A new protocol run takes the clinic's region; a campaign its "
               "brand's (else the clinic's). A run keeps the region it started with. Not set: "
               "a region the request names (\"NHS\", \"Australia\"), else the United States.")
    if msg := st.session_state.pop(SAVED, None):
        st.success(msg, icon=":material/check:")
    current = get_region_settings()
    codes: list[str | None] = [None, *regions()]
    brands = list_brands()
    with st.form("regions"):
        clinic = st.selectbox(
            "Clinic default", codes, index=codes.index(current.clinic), key="region_clinic",
            format_func=lambda c: _label(c, "Not set (from the request, else US)"))
        shown = region(clinic) if clinic else None
        if shown:
            st.caption(":material/call: " + shown.summary())
        chosen = {}
        if brands:
            st.markdown("**Brands** (campaigns)")
            cols = st.columns(3)
            for i, b in enumerate(brands):
                have = current.brands.get(b.id)
                chosen[b.id] = cols[i % 3].selectbox(
                    b.name, codes, index=codes.index(have if have in codes else None),
                    key=f"region_brand_{b.id}", format_func=lambda c: _label(c, CLINIC))
        if st.form_submit_button("Save regions", icon=":material/save:", disabled=not who):
            _save(who, clinic, chosen, current.brands)


def _save(who: str, clinic: str | None, chosen: dict[int, str | None],
          before: dict[int, str]) -> None:
    try:
        set_clinic_region(code=clinic, actor=who)
        for brand_id, code in chosen.items():
            if code != before.get(brand_id):
                set_brand_region(brand_id=brand_id, code=code, actor=who)
    except ServiceError as exc:
        st.error(str(exc), icon=":material/error:")
        return
    st.session_state[SAVED] = (f"Saved: the clinic's region is "
                               f"{_label(clinic, 'not set')}; new runs use it from now on.")
    st.rerun()
