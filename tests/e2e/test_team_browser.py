"""In Chromium: a campaign's Team tab shows who delegated to whom and the outreach stage's
thread, where the marketing lead's REVISE sends the outreach writer's first attempt back; the
Memory tab shows shared and per-agent memory with sources. Once on the offline backend, once
with the app's worker on a real model API (the fake OpenAI server), whose Evaluator says
REVISE to the brief writer's first attempt.
Screenshots: test-artifacts/team-*.png."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from testkit.app_server import (
    AppServer,
    app_sharing_database,
    playwright_expect,
)
from testkit.browser import full_page_shot, sign_in
from testkit.fake_openai import FakeOpenAI, running

expect = playwright_expect()
WAIT = 60_000
MARKETER = "mia (marketing)"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    with app_sharing_database(tmp_path_factory.mktemp("e2e-team"),
                              env={"DRAFTROOM_INAPP_WORKER": "0"}) as server:
        yield server


def _shot(page: Any, artifacts: Path, name: str) -> None:
    full_page_shot(page, artifacts / f"team-{name}.png", max_height=9000, settle_ms=600)


def _open(browser: Any, url: str, run_id: int) -> tuple[Any, Any]:
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = ctx.new_page()
    page.set_default_timeout(WAIT)
    page.goto(f"{url}/run?run={run_id}")
    sign_in(page, MARKETER)
    return ctx, page


def test_the_team_tab_shows_the_lead_sending_work_back(  # type: ignore[no-untyped-def]
        browser, app: AppServer, artifacts: Path) -> None:
    from tests.test_campaign_pipeline import approve_and_advance, drive, start

    run_id = start()
    drive(run_id)
    approve_and_advance(run_id)
    approve_and_advance(run_id)  # outreach: the lead sends the first attempt back once
    ctx, page = _open(browser, app.url, run_id)
    try:
        page.get_by_role("tab", name="Team", exact=True).click()
        expect(page.get_by_text("Who delegated to whom")).to_be_visible()
        expect(page.get_by_text("the lead sent the work back 1 time")).to_be_visible()
        expect(page.locator("text=REVISE >> visible=true").first).to_be_visible()
        page.get_by_role("tab", name="Team", exact=True).scroll_into_view_if_needed()
        _shot(page, artifacts, "offline-outreach")
        page.get_by_role("tab", name="Memory", exact=True).click()
        expect(page.get_by_text("Private memory, per agent")).to_be_visible()
        expect(page.get_by_text("Only creator_finder reads this").first).to_be_attached()
        _shot(page, artifacts, "offline-memory")
    finally:
        ctx.close()


def test_on_a_real_model_the_revise_goes_back_to_the_brief_writer(  # type: ignore[no-untyped-def]
        browser, app: AppServer, artifacts: Path) -> None:
    """The run is driven here over HTTP (the app's test server keeps its own worker
    offline); the page shows what the real-model run stored."""
    from engine.llm.openai_backend import OpenAIBackend
    from engine.loop.leases import claim_run
    from engine.loop.supervisor import Supervisor
    from tests.test_campaign_pipeline import start
    from tests.test_team import BRIEF

    verdicts = iter(["REVISE"])
    note = "Name the rooftop terrace in the key messages."

    def responder(request: dict[str, Any]) -> dict[str, Any] | None:
        system = str(request["messages"][0]["content"])
        if "Evaluator" not in system:
            told = note in str(request["messages"][1]["content"])
            return BRIEF | {"key_messages": BRIEF["key_messages"] + (
                ["Brunch on the rooftop terrace"] if told else [])}
        v = next(verdicts, "PASS")
        return {"scores": [{"name": n, "value": 0.9 if v == "PASS" else 0.5}
                           for n in ("brand_voice", "quality", "completion")],
                "notes": [] if v == "PASS" else [
                    {"target": "drafter", "priority": "critical", "text": note}],
                "verdict": v}

    server: FakeOpenAI
    with running(responder=responder) as server:
        run_id = start()
        assert claim_run(run_id, "w")
        backend = OpenAIBackend(base_url=server.url, api_key="sk-test-team",
                                model="gpt-4.1-mini")
        assert Supervisor(backend, "w").run_until_idle(run_id) == "awaiting_review"
    ctx, page = _open(browser, app.url, run_id)
    try:
        page.get_by_role("tab", name="Team", exact=True).click()
        expect(page.get_by_text("the lead sent the work back 1 time")).to_be_visible()
        expect(page.locator(f"text={note} >> visible=true").first).to_be_visible()
        page.get_by_role("tab", name="Team", exact=True).scroll_into_view_if_needed()
        _shot(page, artifacts, "openai-brief")
        page.get_by_role("tab", name="Memory", exact=True).click()
        expect(page.get_by_text("What each call was given")).to_be_visible()
        _shot(page, artifacts, "openai-memory")
    finally:
        ctx.close()
