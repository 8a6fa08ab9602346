"""Settings: the model server: does it serve OPENAI_MODEL, and what Draftroom learned it can
and cannot do (issue 16), with a way to forget it so the next call asks again."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from engine.config import settings
from engine.llm import capabilities, model_check


@st.cache_data(ttl=300, show_spinner="Asking the server for its models…")
def _check(base_url: str, model: str, nonce: int) -> model_check.ModelCheck:
    # Keyed by what it asks (the environment may change between tests or restarts).
    return model_check.check_model(base_url=base_url or None, model=model or None)


def model_server_section() -> None:
    st.subheader("Model server")
    if model_check.configured():
        nonce = st.session_state.get("model_check_nonce", 0)
        s = settings()
        check = _check(s.openai_base_url or "", s.openai_model or "", nonce)
        show = {True: st.success, False: st.error, None: st.warning}[check.ok]
        show(check.message, icon=":material/dns:")
        if st.button("Check again", icon=":material/refresh:", key="model_check_again"):
            st.session_state["model_check_nonce"] = nonce + 1
            st.rerun()
    else:
        st.caption("Offline backend: no model server is configured (set OPENAI_BASE_URL or "
                   "OPENAI_API_KEY).")

    st.markdown("**Learned about servers**")
    st.caption("What a server refused once (a response format, a parameter, the moderation "
               "endpoint) is remembered for every worker, so later calls go straight to what "
               "works instead of paying for the refusal again. Forget a row after the server "
               "changed: the next call asks again.")
    if "capabilities_forgotten" in st.session_state:
        st.success(st.session_state.pop("capabilities_forgotten"), icon=":material/check:")
    rows = capabilities.list_capabilities()
    if not rows:
        st.caption("Nothing learned yet.")
        return
    frame = pd.DataFrame([{
        "server": r.base_url, "model": r.model, "feature": r.what,
        "supported": "yes" if r.supported else "refused", "server said": r.detail or "",
        "learned": r.learned_at, "id": r.id} for r in rows])
    st.dataframe(frame.drop(columns=["id"]), hide_index=True, column_config={
        "learned": st.column_config.DatetimeColumn("learned", format="YYYY-MM-DD HH:mm")})
    labels = {r.id: f"{r.model} at {r.base_url}: {r.feature}" for r in rows}
    with st.form("forget_capabilities"):
        chosen = st.multiselect("Forget", options=list(labels), format_func=labels.__getitem__,
                                key="forget_ids")
        c1, c2 = st.columns(2)
        some = c1.form_submit_button("Forget selected", icon=":material/delete:")
        every = c2.form_submit_button("Forget everything", icon=":material/delete_sweep:")
    if some or every:
        n = capabilities.forget(ids=None if every else list(chosen))
        st.session_state["capabilities_forgotten"] = (
            f"Forgot {n} row(s); the next call to those servers asks again.")
        st.rerun()
