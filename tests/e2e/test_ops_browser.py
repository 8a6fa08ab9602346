"""The ops pages in a real Chromium, on a seeded database (no worker): the Costs page draws
its charts, alerts and most expensive runs; the Traces page draws a long run's timeline and
shows the call clicked on it; Settings lists the prices. Screenshots go to test-artifacts/."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from testkit.app_server import AppServer, playwright_expect, streamlit_app, using_database
from testkit.seeding import month_safe_end
from testkit.trace_click import click_call

if TYPE_CHECKING:
    from demo.seed import SeedReport

expect = playwright_expect()

WAIT = 60_000  # ms; a loaded 2-core machine draws Plotly slowly
DONE = "!document.querySelector('[data-testid=\"stStatusWidget\"]')"


@pytest.fixture(scope="module")
def seeded_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[AppServer, SeedReport]]:
    from demo.seed import seed_demo

    tmp = tmp_path_factory.mktemp("ops-e2e")
    with using_database(f"sqlite:///{tmp / 'e2e.db'}"):  # the file the server opens
        report = seed_demo(calls=20_000, runs=1_000, big_run_calls=500, seed=21,
                           end=month_safe_end())
        assert report.big_run_id is not None
        with streamlit_app(tmp, env={"DRAFTROOM_INAPP_WORKER": "0"}) as server:
            yield server, report


@pytest.fixture
def page(browser, seeded_app):  # type: ignore[no-untyped-def]
    # Tall enough that a screenshot holds the whole page (Streamlit scrolls inside its own
    # container, which full_page screenshots do not follow).
    ctx = browser.new_context(viewport={"width": 1500, "height": 2300})
    pg = ctx.new_page()
    pg.set_default_timeout(WAIT)
    # The app's root first: a deep link (/costs) as the very first request of a fresh server
    # runs the page file without app.py (Streamlit's pages/ folder detection).
    pg.goto(seeded_app[0].url)
    expect(pg.get_by_text("Reviewer").first).to_be_visible(timeout=WAIT)
    yield pg
    ctx.close()


def settle(page, charts: int = 0) -> None:  # type: ignore[no-untyped-def]
    page.wait_for_function(
        f"document.querySelectorAll('.js-plotly-plot .main-svg').length >= {charts}")
    page.wait_for_function(DONE)


def test_costs_page_draws_spend_budgets_and_runs(page, seeded_app, artifacts: Path) -> None:  # type: ignore[no-untyped-def]
    server, _ = seeded_app
    page.goto(f"{server.url}/costs")
    expect(page.get_by_text("Most expensive runs")).to_be_visible(timeout=WAIT)
    settle(page, 3)  # the day charts and the open breakdown tab's; the others when opened
    expect(page.get_by_text("Spend per day (USD)")).to_be_visible()
    expect(page.get_by_text("Spend by model")).to_be_visible()
    # seed-demo's budgets: protocol near (85%), campaign over (105%) this month.
    expect(page.get_by_text("near budget").first).to_be_visible()
    expect(page.get_by_text("over budget").first).to_be_visible()
    expect(page.get_by_test_id("stMetric").filter(has_text="Spend")).to_contain_text("$")
    expect(page.get_by_role("button", name="Download CSV of the filtered table")).to_be_visible()
    page.screenshot(path=str(artifacts / "ops-costs.png"), full_page=True)

    page.get_by_role("radio", name="agent", exact=True).click()
    expect(page.get_by_text("Spend by agent")).to_be_visible(timeout=WAIT)
    settle(page, 3)
    page.get_by_role("tab", name="Latency").click()
    expect(page.get_by_text("Latency (s) per agent and model")).to_be_visible(timeout=WAIT)
    settle(page, 3)


def test_traces_page_draws_a_500_call_run_and_shows_the_clicked_call(
        page, seeded_app, artifacts: Path) -> None:  # type: ignore[no-untyped-def]
    server, report = seeded_app
    page.goto(f"{server.url}/traces?run={report.big_run_id}")
    # The demo run goes as the loop would, so its count is near, not exactly, the 500 asked.
    expect(page.get_by_test_id("stMetric").filter(has_text="LLM calls")).to_contain_text(
        str(report.big_run_calls), timeout=WAIT)
    settle(page, 1)
    expect(page.get_by_text("Steps 1–25 of")).to_be_visible()
    # The same click as the pages bench's (testkit/trace_click.py): a call's bar, then its
    # details drawn for that very call.
    call_id = click_call(page, WAIT)
    expect(page.get_by_test_id("call-details")).to_have_attribute("data-call", str(call_id))
    # The picker names it too (Streamlit 1.67 keeps a selectbox's choice in its input).
    expect(page.get_by_role("combobox", name="Call")).to_have_value(re.compile(
        rf"· call {call_id}$"))
    expect(page.get_by_text("Request", exact=True)).to_be_visible()
    expect(page.get_by_text("Response", exact=True)).to_be_visible()
    page.screenshot(path=str(artifacts / "ops-traces.png"), full_page=True)
    page.get_by_text("Export", exact=True).scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "ops-traces-call.png"))


def test_settings_page_lists_prices_and_budgets(page, seeded_app, artifacts: Path) -> None:  # type: ignore[no-untyped-def]
    server, _ = seeded_app
    page.goto(f"{server.url}/settings")
    expect(page.get_by_text("Add a price")).to_be_visible(timeout=WAIT)
    page.wait_for_function(DONE)
    expect(page.get_by_text("Protocol this month")).to_be_visible()
    page.screenshot(path=str(artifacts / "ops-settings.png"), full_page=True)
