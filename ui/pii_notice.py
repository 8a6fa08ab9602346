"""The Start form's notice when the input held emails or phone numbers: they were replaced
before anything was stored (engine/redact.py redact_input), and the person who typed them is
told here, with the text as it was kept, before going on to the run."""

from __future__ import annotations

import streamlit as st

from engine.redact import describe_redactions
from engine.views import get_run
from ui.markdown import escape_inline

KEY = "_pii_notice"


def hold(run_id: int) -> bool:
    """After a run started: True (stay on the form, the notice is kept) when its input had
    contact details taken out; False to go on to the run's page at once."""
    detail = get_run(run_id)
    found = detail.params.get("input_redacted") or {}
    if not found:
        return False
    kept = "\n\n".join(f"**{escape_inline(k)}:** {escape_inline(str(v))}"
                       for k, v in detail.input.items() if isinstance(v, str) and "[" in v)
    st.session_state[KEY] = {"run_id": run_id, "what": describe_redactions(found), "kept": kept}
    return True


def _dismiss() -> None:
    st.session_state.pop(KEY, None)


def show() -> None:
    """The notice, until the person opens the run or dismisses it."""
    notice = st.session_state.get(KEY)
    if not notice:
        return
    with st.container(border=True, key="pii_notice"):
        st.warning(
            f"Run #{notice['run_id']} started. Its input held {notice['what']}: they were "
            "replaced by [email] / [phone] before anything was saved, so no model, log, trace "
            "or export sees them. Describe the person without contact details.",
            icon=":material/privacy_tip:")
        if notice["kept"]:
            st.markdown("What was kept:\n\n" + notice["kept"])
        left, right = st.columns(2)
        if left.button(f"Open run #{notice['run_id']}", key="pii_notice_open", type="primary",
                       icon=":material/article:"):
            _dismiss()
            st.switch_page("pages/run.py", query_params={"run": str(notice["run_id"])})
        right.button("Dismiss", key="pii_notice_dismiss", on_click=_dismiss,
                     icon=":material/close:")
