"""Tabs that draw only the open one (st.tabs with on_change="rerun"): a tab's charts and data
grids cost the browser a redraw, and a fresh page their script chunks, even while hidden."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import streamlit as st


def lazy_tabs(draws: Mapping[str, Callable[[], object]], *, key: str) -> None:
    """A tab per label; each draws with its function only while it is the open one."""
    for tab, draw in zip(st.tabs(list(draws), key=key, on_change="rerun"), draws.values(),
                         strict=True):
        with tab:
            if tab.open:
                draw()
