"""The Costs, Traces and Settings pages in Streamlit's AppTest, on seeded data: the numbers
on screen are the database's, filters apply, budget alerts show, a trace opens from its
link and shows a call's request and response, a price is added as a new row."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from demo.seed import SeedReport, seed_demo
from engine import identity, ops, ops_settings, traces
from testkit.seeding import month_safe_end
from ui.chart_slot import LOADING, placeholder_figure
from ui.ops_figures import compact, usd

COSTS_TAB = "costs_tab"  # pages/costs.py's breakdown tabs

APP = str(Path(__file__).resolve().parent.parent / "app.py")


@pytest.fixture
def seeded(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[SeedReport]:
    monkeypatch.setenv("DRAFTROOM_INAPP_WORKER", "0")
    yield seed_demo(calls=3000, runs=150, big_run_calls=300, seed=5, end=month_safe_end())


def open_page(path: str, *, who: str = "olu", **query: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["reviewer"] = who
    at.run()
    for k, v in query.items():
        at.query_params[k] = v
    at.switch_page(path).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_costs_page_shows_the_database_numbers_and_the_budget_alerts(
        seeded: SeedReport) -> None:
    at = open_page("pages/costs.py")
    want = ops.totals(ops.last_days(30))
    shown = metrics(at)
    assert shown["Spend"] == usd(want.cost_usd)
    assert shown["Calls"] == compact(want.calls)
    assert shown["Input tokens"] == compact(want.prompt_tokens)
    econ = ops.run_economics(ops.last_days(30))
    assert shown["Per run"] == usd(econ.cost_per_run)
    # seed-demo sets monthly budgets at ~85% (protocol) and ~105% (campaign) of this month.
    assert any("Protocol** near budget" in w.body for w in at.warning)
    assert any("Campaign** over budget" in e.body for e in at.error)
    # The day charts and the open breakdown tab's: the other tabs draw theirs when opened.
    assert [c.key for c in at.get("plotly_chart")] == ["fig_spend", "fig_tokens",
                                                       "fig_breakdown"]
    assert any("unpriced models" in c.value for c in at.caption)
    assert at.get("download_button")
    top = ops.top_runs(ops.last_days(30), limit=15)
    table = next(m.value for m in at.markdown if m.value.startswith("| Run | Trace |"))
    for run_id in top["run_id"]:  # the most expensive runs, each linked to its trace
        assert f"[timeline](traces?run={run_id})" in table


def test_costs_filters_apply_to_every_number(seeded: SeedReport) -> None:
    at = open_page("pages/costs.py")
    at.multiselect(key="costs_kind").set_value(["protocol"]).run()
    at.multiselect(key="costs_model").set_value(["gpt-4.1-mini"]).run()
    assert not at.exception
    f = ops.last_days(30, kinds=("protocol",), models=("gpt-4.1-mini",))
    want = ops.totals(f)
    shown = metrics(at)
    assert shown["Spend"] == usd(want.cost_usd) and shown["Calls"] == compact(want.calls)
    assert want.calls < ops.totals(ops.last_days(30)).calls


def test_costs_breakdown_tabs_draw_their_chart_when_opened(seeded: SeedReport) -> None:
    at = open_page("pages/costs.py")
    for tab, key in (("Error rate", "fig_errors"), ("Latency", "fig_latency")):
        at.session_state[COSTS_TAB] = tab
        at.run()
        assert not at.exception
        assert [c.key for c in at.get("plotly_chart")] == ["fig_spend", "fig_tokens", key]
    at.session_state[COSTS_TAB] = "Spend by"
    at.run()
    at.segmented_control(key="costs_dim").set_value("agent").run()
    [bars] = [c for c in at.get("plotly_chart") if c.key == "fig_breakdown"]
    assert "Spend by agent" in bars.proto.spec


def test_costs_page_without_calls_says_how_to_get_some(db_url: str,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DRAFTROOM_INAPP_WORKER", "0")
    at = open_page("pages/costs.py")
    assert any("No LLM calls" in i.body for i in at.info)


def test_traces_page_opens_a_run_and_shows_a_call(seeded: SeedReport) -> None:
    run_id = seeded.big_run_id
    assert run_id is not None
    t = traces.load_trace(run_id)
    at = open_page("pages/traces.py", run=str(run_id))
    shown = metrics(at)
    assert shown["LLM calls"] == str(seeded.big_run_calls) and shown["Steps"] == str(len(t.steps))
    assert at.selectbox(key="trace_run").value == run_id
    # The timeline (the team helper's nested view of the same calls sits in an expander).
    assert [c.key for c in at.get("plotly_chart") if c.key.startswith("tl_")] == [f"tl_{run_id}"]
    assert at.select_slider(key=f"win_{run_id}")  # a long run is drawn a window at a time
    # No call is opened until one is picked: its bodies are read and drawn on request.
    assert at.selectbox(key="trace_call").value is None and not at.code
    ok = next(c for c in t.calls if c.status == "ok")
    at.selectbox(key="trace_call").set_value(ok.id).run()
    assert not at.exception
    shown = metrics(at)
    assert shown["Input tokens"] == f"{ok.prompt_tokens:,}"
    assert any(f"`{ok.model}`" in m.value for m in at.markdown)
    assert any("You are the" in c.value for c in at.code)  # the request's system message
    bad = next((c for c in t.calls if c.status != "ok"), None)
    if bad is not None:
        at.selectbox(key="trace_call").set_value(bad.id).run()
        assert any((bad.error or "") in e.body for e in at.error)
    assert len(at.get("download_button")) == 3


def test_traces_page_for_an_unknown_run_says_so(seeded: SeedReport) -> None:
    at = open_page("pages/traces.py", run="987654")
    assert any("987654 does not exist" in e.body for e in at.error)


def test_settings_page_adds_a_price_row_and_saves_budgets(
        seeded: SeedReport, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ops_settings, "PROPAGATION", ops_settings.PROPAGATION * 0)
    at = open_page("pages/settings.py")
    before = len(ops_settings.list_prices())
    at.text_input(key="price_model").set_value("llama3.1:8b")
    at.number_input(key="price_in").set_value(0.2)
    at.number_input(key="price_out").set_value(0.6)
    next(b for b in at.button if b.label == "Add price").click().run()
    assert not at.exception and not at.error or all("budget" in e.body for e in at.error)
    assert any("llama3.1:8b" in s.body for s in at.success)
    rows = ops_settings.list_prices()
    assert len(rows) == before + 1
    new = next(r for r in rows if r.model == "llama3.1:8b")
    assert (new.input_per_m, new.output_per_m) == (0.2, 0.6)

    at.number_input(key="budget_protocol").set_value(5000.0)
    at.number_input(key="budget_run_default").set_value(1.5)
    next(b for b in at.button if b.label == "Save budgets").click().run()
    assert any("Budgets saved" in s.body for s in at.success)
    saved = ops_settings.get_ops_settings()
    assert saved.monthly_budgets["protocol"] == 5000.0 and saved.default_run_budget_usd == 1.5
    assert not any("Protocol** near budget" in w.body for w in at.warning)


def test_settings_lists_the_prices_in_force_and_draws_the_history_when_opened(
        seeded: SeedReport) -> None:
    at = open_page("pages/settings.py")
    rows = ops_settings.list_prices()
    table = next(m.value for m in at.markdown if m.value.startswith("| Model | Input |"))
    for r in [r for r in rows if r.in_force]:  # each price in force, as stored
        line = next(x for x in table.splitlines() if x.startswith(f"| `{r.model}` |"))
        assert f"${r.input_per_m:,.3f}" in line and f"${r.output_per_m:,.3f}" in line
    assert not at.dataframe  # the full history's grid waits until it is opened
    at.session_state["prices_history"] = True
    at.run()
    assert not at.exception
    assert list(at.dataframe[0].value["model"]) == [r.model for r in rows]


def test_costs_are_for_ops_once_roles_exist(seeded: SeedReport) -> None:
    identity.grant(actor="root", person="root", role="admin")
    identity.grant(actor="root", person="dr. lee", role="clinician")
    at = open_page("pages/costs.py", who="dr. lee")
    assert any("ops staff" in w.body for w in at.warning) and not at.metric
    # Traces are open to the kind's owners.
    at = open_page("pages/traces.py", who="dr. lee", run=str(seeded.big_run_id))
    assert metrics(at)["LLM calls"] == str(seeded.big_run_calls)


def _sidebar_text() -> str:
    # AppTest keeps the sidebar of the first run only (a switch_page run leaves it empty):
    # app.py draws it before whichever page runs, so the first page shows what all show.
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["reviewer"] = "olu"
    at.run()
    assert not at.exception
    return " ".join(c.value for c in at.sidebar.caption)


def test_the_sidebar_carries_the_budget_alerts(seeded: SeedReport) -> None:
    side = _sidebar_text()
    assert "Protocol** near budget" in side and "Campaign** over budget" in side
    ops_settings.set_monthly_budget(kind="campaign", usd=None, actor="olu")
    ops_settings.set_monthly_budget(kind="protocol", usd=None, actor="olu")
    from ui.budget_banner import _statuses

    _statuses.clear()  # the banner caches this month's spend for 30 s
    assert "budget" not in _sidebar_text()


def _charts(at: AppTest) -> list[str]:
    """Each Plotly chart on the page, as the JSON the browser receives."""
    return [c.proto.spec for c in at.get("plotly_chart")]


def test_chart_places_end_with_their_chart_or_nothing(seeded: SeedReport) -> None:
    """The 'Loading…' figures drawn at a chart's place before the queries (ui/chart_slot.py)
    are always replaced: by the chart, or by nothing when there is none to draw."""
    run_id = str(seeded.big_run_id)
    for path, query in (("pages/costs.py", {}), ("pages/calibration.py", {}),
                        ("pages/traces.py", {"run": run_id}), ("pages/run.py", {"run": run_id})):
        charts = _charts(open_page(path, **query))
        assert charts, path
        assert not [c for c in charts if LOADING in c], path
    # No chart to draw: an unknown run.
    at = open_page("pages/traces.py", run="987654")
    assert not _charts(at) and any("987654 does not exist" in e.body for e in at.error)


def test_chart_places_are_cleared_when_there_is_nothing_to_draw(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DRAFTROOM_INAPP_WORKER", "0")
    at = open_page("pages/costs.py")
    assert not _charts(at) and any("No LLM calls" in i.body for i in at.info)
    at = open_page("pages/calibration.py")
    assert not _charts(at) and any("No version has been scored" in i.body for i in at.info)


def test_placeholder_figure_has_no_data_and_the_given_height() -> None:
    # The pages bench counts a chart with traces as a page's first chart: never this one.
    fig = placeholder_figure(420)
    assert not fig.data and fig.layout.height == 420
    assert fig.layout.annotations[0].text == LOADING
