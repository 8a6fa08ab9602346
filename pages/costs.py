"""Costs: spend, tokens, calls, latency and errors over a date range, by day, model, agent,
kind and stage; cost per run and per approved draft; the most expensive runs; budgets.
Every number comes from a GROUP BY in the database (engine/ops.py), cached for 30 s."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pandas as pd
import streamlit as st

from db.connect import database_url
from engine import identity, ops
from ui import reviewer
from ui.budget_banner import budget_banner
from ui.chart_slot import chart_slot
from ui.lazy_tabs import lazy_tabs
from ui.ops_figures import (
    cache_share_markdown,
    compact,
    cost_bars_figure,
    error_rate_figure,
    latency_figure,
    spend_by_day_figure,
    tokens_by_day_figure,
    top_runs_markdown,
    usd,
)

TTL = 30
COSTS_TAB = "costs_tab"  # the breakdown tabs' key: a test opens one by setting it


@st.cache_data(ttl=TTL, show_spinner=False)
def _load(url: str, what: str, f: ops.OpsFilter, arg: str | None = None):  # type: ignore[no-untyped-def]
    # One cached entry per database, query and filter.
    if what == "totals":
        return ops.totals(f)
    if what == "by_day":
        return ops.by_day(f, split=arg)  # type: ignore[arg-type]
    if what == "breakdown":
        return ops.breakdown(f, arg)  # type: ignore[arg-type]
    if what == "latency":
        return ops.latency_percentiles(f)
    if what == "economics":  # the spend is the (cached) totals': no second sum
        return ops.run_economics(f, spend=_load(url, "totals", f).cost_usd)
    if what == "top_runs":
        return ops.top_runs(f, limit=15)
    if what == "table":
        return ops.table(f)
    if what == "options":
        return ops.filter_options(f)
    raise ValueError(what)


def load(what: str, f: ops.OpsFilter, arg: str | None = None):  # type: ignore[no-untyped-def]
    return _load(database_url(), what, f, arg)


st.title("Costs")
if not identity.can(reviewer.reviewer(), "view_costs"):
    st.warning("Costs are for ops staff and admins. Enter your name under **Reviewer** in the "
               "sidebar, or ask an admin for the ops role.", icon=":material/lock:")
    st.stop()
# The day charts' places first (ui/chart_slot.py: the browser fetches Plotly meanwhile); the
# caption, filters and totals go in `head`, above them.
head = st.container()
left, right = st.columns(2)
slots = (chart_slot("fig_spend", where=left), chart_slot("fig_tokens", where=right))
head.caption("Every LLM call, of either backend, summed in the database. Days are UTC; "
             "numbers refresh every 30 seconds.")
with head:
    budget_banner()

today = datetime.now(UTC).date()
c_date, c_kind, c_model, c_agent, c_stage = head.columns([3, 2, 3, 3, 2])
picked = c_date.date_input("Dates (UTC)", value=(today - timedelta(days=29), today),
                           max_value=today, key="costs_dates")
start, end = (picked if isinstance(picked, tuple) and len(picked) == 2
              else (picked[0], picked[0]) if isinstance(picked, tuple) and picked
              else (picked, picked) if isinstance(picked, date) else (today, today))
options = load("options", ops.OpsFilter(start=start, end=end))
f = ops.OpsFilter(
    start=start, end=end,
    kinds=tuple(c_kind.multiselect("Kind", options["kind"], key="costs_kind")),
    models=tuple(c_model.multiselect("Model", options["model"], key="costs_model")),
    agents=tuple(c_agent.multiselect("Agent", options["agent"], key="costs_agent")),
    stages=tuple(c_stage.multiselect("Stage", options["stage"], key="costs_stage")),
)

tot: ops.Totals = load("totals", f)
if tot.calls == 0:
    for slot in slots:
        slot.empty()
    head.info("No LLM calls match these filters. Widen the dates or clear a filter; "
              "`python -m engine seed-demo` fills a database with demo data.",
              icon=":material/info:")
    st.stop()
econ: ops.RunEconomics = load("economics", f)

row = head.container(horizontal=True, gap="medium")
for label, value, why in [
    ("Spend", usd(tot.cost_usd), "Priced calls only. Calls of models without a price are "
     "counted apart: their cost is unknown, not $0."),
    ("Calls", compact(tot.calls), f"{tot.calls:,} LLM calls"),
    ("Error rate", f"{(tot.error_rate or 0):.1%}", f"{tot.errors:,} failed calls"),
    ("Input tokens", compact(tot.prompt_tokens), f"{tot.prompt_tokens:,}, of which "
     f"{tot.cached_tokens:,} cached (billed once, at the cached rate)"),
    ("Output tokens", compact(tot.completion_tokens), f"{tot.completion_tokens:,}"),
    ("Per run", usd(econ.cost_per_run) if econ.runs else "–",
     f"Spend ÷ {econ.runs:,} runs started in the range"),
    ("Per approved draft", usd(econ.cost_per_approved_draft) if econ.approved_drafts else "–",
     f"Spend ÷ {econ.approved_drafts:,} drafts approved in the range"),
]:
    row.metric(label, value, help=why, width="content")
if tot.unpriced:
    head.caption(f":gray[:material/help: Plus {tot.unpriced:,} calls of unpriced models "
                 "(cost unknown). Add their price under Settings.]")

split = "kind" if not f.kinds or len(f.kinds) > 1 else None
slots[0].plotly_chart(spend_by_day_figure(load("by_day", f, split), split=split), key="fig_spend")
slots[1].plotly_chart(tokens_by_day_figure(load("by_day", f)), key="fig_tokens")
share = cache_share_markdown(load("breakdown", f, "agent"))
if share:
    st.markdown(f":material/cached: **Prompt cache**, cached share of input tokens per agent: "
                f"{share}", help="Every request starts with its stable part (system prompt, "
                "rubric, schema), byte-identical across calls, so providers' prompt caches "
                "hit; cached input is billed at the cached rate.")

# The breakdowns in tabs, only the open one drawn: each Plotly chart is one more the browser
# draws before the page's first one shows, and again on every change of a filter.
def _spend_by() -> None:
    dim = st.segmented_control("Spend by", ["model", "agent", "kind", "stage"], default="model",
                               key="costs_dim", label_visibility="collapsed") or "model"
    st.plotly_chart(cost_bars_figure(load("breakdown", f, dim), dim), key="fig_breakdown")


lazy_tabs({"Spend by": _spend_by,
           "Error rate": lambda: st.plotly_chart(error_rate_figure(load("breakdown", f, "model")),
                                                 key="fig_errors"),
           "Latency": lambda: st.plotly_chart(latency_figure(load("latency", f)),
                                              key="fig_latency")}, key=COSTS_TAB)
st.subheader("Most expensive runs")
top: pd.DataFrame = load("top_runs", f)
st.caption("Runs started in the range, by whole-run cost"
           + (", that have calls matching the model / agent / stage filter (their cost is "
              "under *Filtered*)." if f.narrowed else "."))
if not top.empty:
    # Fifteen rows as a Markdown table: the same links and numbers as a data grid, without
    # the grid's two script chunks (1.2 MB) that a full page load would fetch and compile
    # after Plotly's before drawing anything.
    st.markdown(top_runs_markdown(top, filtered=f.narrowed))

# The filtered table goes out as CSV only: drawing thousands of rows would slow the page.
st.download_button(
    "Download CSV of the filtered table", data=lambda: ops.table(f).to_csv(index=False),
    mime="text/csv", file_name=f"draftroom-costs-{f.start}-{f.end}.csv",
    icon=":material/download:",
    help="One row per day, kind, model, agent and stage, with calls, errors, unpriced calls, "
         "spend, tokens and mean latency: the numbers behind every chart above.")
