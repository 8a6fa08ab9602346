"""Keep Streamlit in st.navigation mode whatever URL a fresh server is first asked for.

Streamlit treats an app with a pages/ folder as a legacy multipage app until its entry script
calls st.navigation. When the first request a fresh server gets is a page's URL (a shared
link to /run?run=5 after a restart), it runs pages/run.py on its own: no sidebar, no in-app
worker, and the file names as navigation, for every session until someone opens "/". Every
page imports ui, so this runs on the first script run of the process: it switches the
process to st.navigation mode and reruns, which goes through app.py to the same page."""

from __future__ import annotations

import streamlit as st


def leave_legacy_pages_mode() -> None:
    try:
        from streamlit.runtime.pages_manager import PagesManager
        from streamlit.runtime.scriptrunner import get_script_run_ctx
    except ImportError:  # a Streamlit without the legacy mode
        return
    if PagesManager.uses_pages_directory and get_script_run_ctx(suppress_warning=True):
        PagesManager.uses_pages_directory = False
        st.rerun()
