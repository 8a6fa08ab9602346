"""Settings: the price table (a new price is a new row from a date on; history is never
rewritten), monthly budgets per kind, the default budget of a new run, and the model server
(does it serve the model; what it was found to refuse)."""

from __future__ import annotations

from datetime import UTC, datetime, time

import pandas as pd
import streamlit as st

from engine import ops, ops_settings
from engine.errors import ServiceError
from ui import reviewer
from ui.budget_banner import budget_banner, budget_meter
from ui.model_server import model_server_section
from ui.ops_figures import prices_markdown, usd
from ui.region_settings import region_settings_section

st.title("Settings")
who = reviewer.reviewer()
if not who:
    st.caption(":orange[:material/info: Enter your name under **Reviewer** in the sidebar to "
               "change settings.]")

# -- budgets --------------------------------------------------------------------------------

st.subheader("Budgets")
if st.session_state.pop("budgets_saved", False):
    st.success("Budgets saved.", icon=":material/check:")
budget_banner()
current = ops_settings.get_ops_settings()
status = {s.kind: s for s in ops.budget_status()}
cols = st.columns(len(ops_settings.KINDS))
for col, kind in zip(cols, ops_settings.KINDS, strict=True):
    s = status.get(kind)
    spent = s.spent_usd if s else 0.0
    budget = current.monthly_budgets.get(kind)
    col.metric(f"{kind.title()} this month", usd(spent),
               help="Priced calls since the 1st (UTC)")
    if budget:
        with col:
            budget_meter(spent, budget)  # red over budget (ui/budget_banner.py)
    else:
        col.caption("No monthly budget")

with st.form("budgets"):
    st.markdown("Monthly budget per kind (USD; 0 for none). The sidebar and the Costs page "
                "warn at 80% and at 100%.")
    inputs = {}
    bcols = st.columns(len(ops_settings.KINDS) + 1)
    for col, kind in zip(bcols, ops_settings.KINDS, strict=False):
        inputs[kind] = col.number_input(f"{kind.title()} per month", min_value=0.0,
                                        value=float(current.monthly_budgets.get(kind) or 0.0),
                                        step=10.0, format="%.2f", key=f"budget_{kind}")
    run_default = bcols[-1].number_input(
        "Default per-run budget", min_value=0.0,
        value=float(current.default_run_budget_usd or 0.0), step=0.5, format="%.2f",
        key="budget_run_default",
        help="A new run gets this budget unless its starter sets one. The supervisor checks "
             "it before every call and halts the run for review (\"budget reached\") when the "
             "next call would go over.")
    if st.form_submit_button("Save budgets", icon=":material/save:"):
        try:
            for kind, value in inputs.items():
                ops_settings.set_monthly_budget(kind=kind, usd=value or None, actor=who)
            ops_settings.set_default_run_budget(usd=run_default or None, actor=who)
            st.cache_data.clear()
            st.session_state["budgets_saved"] = True
            st.rerun()
        except ServiceError as exc:
            st.error(str(exc))

# -- prices ---------------------------------------------------------------------------------

st.subheader("Prices")
st.caption("USD per 1M tokens. A call's cost is computed when it is made, with the price in "
           "force then: a new price applies from its date on and changes no recorded cost. "
           "Cached input tokens are part of the input and billed once, at the cached rate. "
           "A model with no row here is *unpriced*: its calls are counted, never as $0. A price "
           "added for now takes effect ten seconds later, once every worker has read it.")
if "price_added" in st.session_state:
    st.success(st.session_state.pop("price_added"), icon=":material/check:")
rows = ops_settings.list_prices()
now = datetime.now(UTC)
st.markdown(prices_markdown([r for r in rows if r.in_force]))
later = [r for r in rows if r.effective_from > now]
if later:
    st.markdown("**Scheduled**")
    st.markdown(prices_markdown(later))
# The whole history (every row ever added) is drawn only when opened.
history = st.expander(f"Full history ({len(rows)} rows)", key="prices_history",
                      on_change="rerun")
with history:
    if history.open:
        frame = pd.DataFrame([r.model_dump() for r in rows])
        money = {c: st.column_config.NumberColumn(c.replace("_per_m", "").replace("_", " "),
                                                  format="$%.3f")
                 for c in ("input_per_m", "cached_input_per_m", "output_per_m")}
        st.dataframe(frame[["model", "input_per_m", "cached_input_per_m", "output_per_m",
                            "effective_from", "in_force"]], hide_index=True,
                     column_config=money)

with st.form("add_price", clear_on_submit=False):
    st.markdown("**Add a price** (a new model, or a new price for one: from its date on)")
    c = st.columns([2, 1, 1, 1])
    model = c[0].text_input("Model or pattern", placeholder="gpt-4.1-mini or gpt-5*",
                            key="price_model")
    p_in = c[1].number_input("Input", min_value=0.0, step=0.05, format="%.3f", key="price_in")
    p_cached = c[2].number_input("Cached input", min_value=0.0, step=0.01, format="%.3f",
                                 key="price_cached")
    p_out = c[3].number_input("Output", min_value=0.0, step=0.1, format="%.3f", key="price_out")
    d = st.columns([1, 1, 2])
    day = d[0].date_input("Effective from (UTC)", value=now.date(), min_value=now.date(),
                          key="price_day")
    at = d[1].time_input("Time (UTC)", value=time(0, 0), key="price_time",
                         help="Today means now: a price never starts in the past.")
    if st.form_submit_button("Add price", icon=":material/add:"):
        start = datetime.combine(day, at, tzinfo=UTC)
        try:
            row = ops_settings.add_price(model=model, input_per_m=p_in, cached_input_per_m=p_cached,
                                     output_per_m=p_out, actor=who,
                                     effective_from=max(start, datetime.now(UTC)))
            st.session_state["price_added"] = (
                f"{row.model}: ${row.input_per_m:.3f} / ${row.cached_input_per_m:.3f} / "
                f"${row.output_per_m:.3f} per 1M tokens from "
                f"{row.effective_from:%Y-%m-%d %H:%M} UTC.")
            st.cache_data.clear()
            st.rerun()
        except ServiceError as exc:
            st.error(str(exc))

# -- crisis resources by region (review helper: one hook) -----------------------------------

region_settings_section(who)

# -- model server ---------------------------------------------------------------------------

model_server_section()
