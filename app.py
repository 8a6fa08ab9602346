"""Draftroom: the Streamlit entry. Pages live in pages/; this file sets up navigation, the
sidebar and the in-app worker, then runs the chosen page."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from engine.interfaces.serve import refusal
from ui.budget_banner import sidebar_budget_banner
from ui.chart_slot import warm_plotly
from ui.sidebar import render_sidebar
from ui.startup import prepare_database
from ui.worker import ensure_worker

HERE = Path(__file__).parent

st.set_page_config(page_title="Draftroom", page_icon=":material/edit_note:", layout="wide")
# A wide Markdown table (a campaign plan's deliverables per creator) scrolls sideways inside
# its column, as on GitHub, instead of spilling over the column's border.
st.html("<style>[data-testid='stMarkdownContainer'] table "
        "{display: block; overflow-x: auto; max-width: 100%;}</style>")

# (file, title, icon); pages other engineers write appear once their file exists.
SECTIONS: dict[str, list[tuple[str, str, str]]] = {
    "Review desk": [
        ("pages/start.py", "Start", ":material/add_circle:"),
        ("pages/intake.py", "New campaign", ":material/forum:"),  # intake (issue 18)
        ("pages/queue.py", "Review queue", ":material/inbox:"),
        ("pages/run.py", "Run", ":material/article:"),
    ],
    "Operations": [
        ("pages/costs.py", "Costs", ":material/payments:"),
        ("pages/traces.py", "Traces", ":material/timeline:"),
        ("pages/calibration.py", "Calibration", ":material/balance:"),  # ops: critics vs people
    ],
    "Configuration": [
        ("pages/prompts.py", "Prompts", ":material/chat:"),
        ("pages/brands.py", "Brands", ":material/storefront:"),
        ("pages/settings.py", "Settings", ":material/settings:"),
        ("pages/team.py", "Team", ":material/group:"),  # ops: roles and approval policies
    ],
}

# Served beyond this machine only with sign-in configured (`make run` checks it first; this
# catches a bare `streamlit run app.py --server.address ...`).
refused = refusal(st.get_option("server.address") or "127.0.0.1")
if refused:
    st.error(refused, icon=":material/lock:")
    st.stop()

prepare_database()
warm_plotly()  # Plotly's first-figure set-up, in the background once per process
nav = {
    section: [st.Page(path, title=title, icon=icon)
              for path, title, icon in pages
              if (HERE / path).is_file()]
    for section, pages in SECTIONS.items()
}
page = st.navigation({section: pages for section, pages in nav.items() if pages})

render_sidebar(ensure_worker())
with st.sidebar:
    sidebar_budget_banner(page.url_path)  # monthly budget alerts at 80% and 100%
page.run()
