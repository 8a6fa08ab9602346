"""In Chromium, with no model (the offline backend streaming its drafts at a set rate,
DRAFTROOM_OFFLINE_STREAM_CPS) and an in-app worker driving one run at a time: a run waiting
behind another says its place in line; a running one says which agent is doing what and for
how long, and shows its draft growing; once it waits for a person no progress box is left above
"Waiting for your review" (each step landing is tests/test_queue_wait.py's, in AppTest: offline
critics finish too fast to watch). Screenshots: test-artifacts/30-progress-queued.png,
31-progress-streaming.png, 33-progress-done.png."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from testkit.app_server import AppServer, app_sharing_database, playwright_expect

expect = playwright_expect()
WAIT = 180_000
INPUT = {"intent": "Help a university student manage exam panic", "audience": "adult students"}


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    env = {"DRAFTROOM_OFFLINE_STREAM_CPS": "300", "DRAFTROOM_INAPP_CONCURRENCY": "1"}
    with app_sharing_database(tmp_path_factory.mktemp("e2e-progress"), env=env) as server:
        yield server


def test_a_run_shows_its_place_its_agents_its_draft_growing_and_no_stale_box(  # type: ignore[no-untyped-def]
        browser, app: AppServer, artifacts: Path) -> None:
    from engine import service

    first = service.start_run(kind="protocol", actor="seed", input=INPUT)
    second = service.start_run(kind="protocol", actor="seed", input=INPUT)
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = ctx.new_page()
    page.set_default_timeout(WAIT)
    try:
        # This session starts the in-app worker; it drives the first run, the second waits.
        page.goto(f"{app.url}/run?run={second}")
        expect(page.get_by_text("1st in line").first).to_be_visible(timeout=WAIT)
        page.screenshot(path=str(artifacts / "30-progress-queued.png"))

        page.goto(f"{app.url}/run?run={first}")
        expect(page.get_by_text("Drafter is writing v1").first).to_be_visible(timeout=WAIT)
        expect(page.get_by_text("characters so far").first).to_be_visible(timeout=WAIT)
        live = page.locator(".st-key-live_draft")
        expect(live).to_contain_text("Purpose", timeout=WAIT)
        seen = live.inner_text()
        # It grows while we look, unless (on a loaded machine) the page first drew it once the
        # whole draft had streamed: its last section is then there, and the critics are on.
        if "Safety note" not in seen:
            expect(live).not_to_have_text(seen)
            assert len(live.inner_text()) >= len(seen)
        page.screenshot(path=str(artifacts / "31-progress-streaming.png"))

        expect(page.get_by_text("Waiting for your review").first).to_be_visible(timeout=WAIT)
        expect(page.locator(".st-key-run_progress")).to_have_count(0)
        expect(page.locator("main").get_by_text(re.compile(r"Queued ·"))).to_have_count(0)
        page.screenshot(path=str(artifacts / "33-progress-done.png"))
    finally:
        ctx.close()
