"""Monthly budget alerts, shown in the sidebar of every page and on the Costs page: a warning
when a kind's spend this month passes 80% of its budget, an error at 100%. The pages that draw
the alerts themselves (Costs, Settings) are left out of the sidebar's, so no alert shows
twice; a budget's meter turns orange near it and red over it."""

from __future__ import annotations

import logging
from pathlib import Path

import streamlit as st

from db.connect import database_url
from engine import ops
from ui.ops_figures import usd

log = logging.getLogger("draftroom.ui")
COSTS_PAGE = "pages/costs.py"
PAGES_WITH_ALERTS = frozenset({"costs", "settings"})
"""url paths of the pages that draw the full alerts in their body."""
METER_COLORS = {"ok": "#2563eb", "warning": "#d97706", "over": "#dc2626"}
_ROOT = Path(__file__).resolve().parent.parent


@st.cache_data(ttl=30, show_spinner=False)
def _statuses(url: str) -> list[ops.BudgetStatus]:
    # Keyed by the database URL (a named argument: st.cache_data skips "_" ones): one
    # process may serve, or test, several databases.
    return ops.budget_status()


def alerts() -> list[ops.BudgetStatus]:
    """The kinds at or over 80% of their monthly budget."""
    return [s for s in _statuses(database_url()) if s.level in ("warning", "over")]


def _message(s: ops.BudgetStatus) -> str:
    state = "over budget" if s.level == "over" else "near budget"
    text = (f"**{s.kind.title()}** {state}: {usd(s.spent_usd)} of {usd(s.budget_usd)} "
            f"this month ({(s.share or 0):.0%}).")
    if s.unpriced_calls:
        text += f" Plus {s.unpriced_calls:,} unpriced calls."
    return text


def budget_banner(*, compact: bool = False) -> list[ops.BudgetStatus]:
    """Draw the alerts (compact: for the sidebar); returns what was shown. Never breaks the
    page it sits on: a failing query is logged and shows nothing."""
    try:
        shown = alerts()
    except Exception:
        log.exception("budget banner: could not read this month's spend")
        return []
    for s in shown:
        icon = ":material/error:" if s.level == "over" else ":material/warning:"
        if compact:
            color = "red" if s.level == "over" else "orange"
            st.caption(f":{color}[{icon} {_message(s)}]")
        elif s.level == "over":
            st.error(_message(s), icon=icon)
        else:
            st.warning(_message(s), icon=icon)
    if shown and compact and (_ROOT / COSTS_PAGE).is_file():
        st.page_link(COSTS_PAGE, label="Costs and budgets", icon=":material/payments:")
    return shown


def sidebar_budget_banner(url_path: str) -> list[ops.BudgetStatus]:
    """The sidebar's compact alerts, except on a page that shows the full ones."""
    if url_path in PAGES_WITH_ALERTS:
        return []
    return budget_banner(compact=True)


def meter_level(spent: float, budget: float) -> str:
    share = spent / budget if budget else 0.0
    return "over" if share >= 1 else "warning" if share >= 0.8 else "ok"


def budget_meter_html(spent: float, budget: float) -> str:
    """A budget's meter: blue, orange from 80%, red from 100% (with the words, not only the
    colour). Only numbers go into it, so the markup is ours."""
    level = meter_level(spent, budget)
    share = spent / budget if budget else 0.0
    words = {"over": " · over budget", "warning": " · near budget", "ok": ""}[level]
    color = METER_COLORS[level]
    return (f'<div data-testid="budget-meter" data-level="{level}" style="margin:0 0 .5rem">'
            f'<div style="font-size:.85rem;color:{color if level != "ok" else "inherit"}">'
            f"{share:.0%} of {usd(budget)}{words}</div>"
            '<div style="height:8px;border-radius:4px;background:#e2e8f0;overflow:hidden">'
            f'<div style="height:8px;width:{min(share, 1.0):.1%};background:{color}"></div>'
            "</div></div>")


def budget_meter(spent: float, budget: float) -> None:
    st.html(budget_meter_html(spent, budget))
