"""In Chromium: a reviewer sends a protocol back with a comment the offline drafter cannot
apply (a different crisis line), and the Run page says the comment is not addressed (and the
run is not "thresholds met"). Screenshot: test-artifacts/20-run-not-addressed.png."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from testkit.app_server import AppServer, app_sharing_database, playwright_expect
from testkit.browser import full_page_shot, sign_in

expect = playwright_expect()
WAIT = 60_000
COMMENT = "Use the UK Samaritans number 116 123 instead of 988"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    with app_sharing_database(tmp_path_factory.mktemp("e2e-follow")) as server:
        yield server


def _wait_for_version(run_id: int, version: int, timeout: float = 90) -> None:
    from engine.views import get_run

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        d = get_run(run_id)
        if d.status == "awaiting_review" and any(x.version >= version for x in d.drafts):
            return
        time.sleep(0.3)
    raise AssertionError(f"run {run_id} did not reach v{version} in review")


def test_a_comment_not_applied_shows_as_not_addressed(  # type: ignore[no-untyped-def]
        browser, app: AppServer, worker_started: None, artifacts: Path) -> None:
    from engine import service
    from engine.views import get_run

    run_id = service.start_run(kind="protocol", actor="seed", input={
        "intent": "Exposure hierarchy for a man afraid of elevators", "audience": "adults"})
    _wait_for_version(run_id, 1)
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = ctx.new_page()
    page.set_default_timeout(WAIT)
    try:
        page.goto(f"{app.url}/run?run={run_id}")
        sign_in(page, "Dr. Rivera")
        page.get_by_role("textbox", name="What should change?").fill(COMMENT)
        page.get_by_role("button", name="Request revision").click()
        expect(page.get_by_text("Sent back to the drafter").first).to_be_visible()
        _wait_for_version(run_id, 2)
        page.reload()
        warning = page.get_by_text("Not addressed", exact=False).first
        expect(warning).to_be_visible()
        expect(page.get_by_text(COMMENT).first).to_be_visible()
        detail = get_run(run_id)
        assert detail.halt_reason != "thresholds_met"
        full_page_shot(page, artifacts / "20-run-not-addressed.png", max_height=6000,
                       settle_ms=500)
    finally:
        ctx.close()
