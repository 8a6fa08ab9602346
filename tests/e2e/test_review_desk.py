"""End to end in a real Chromium: `streamlit run app.py` with the in-app worker and the offline
backend, driven by Playwright. Screenshots of every page go to test-artifacts/."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from testkit.app_server import (
    AppServer,
    app_sharing_database,
    playwright_expect,
    streamlit_app,
    using_database,
    wait_status,
)
from testkit.browser import full_page_shot, sign_in

expect = playwright_expect()

REVIEWER = "Dr. Rivera"
WAIT = 30_000  # ms; the offline loop takes a second or two, a loaded CI machine longer


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    with app_sharing_database(tmp_path_factory.mktemp("e2e")) as server:
        yield server




@pytest.fixture
def page(browser, app: AppServer, worker_started: None):  # type: ignore[no-untyped-def]
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    pg = ctx.new_page()
    pg.set_default_timeout(WAIT)
    yield pg
    ctx.close()


def _sign_in(page, name: str = REVIEWER) -> None:  # type: ignore[no-untyped-def]
    sign_in(page, name)


def _shot(page, artifacts: Path, name: str) -> None:  # type: ignore[no-untyped-def]
    full_page_shot(page, artifacts / f"{name}.png", max_height=6000)


def test_start_edit_approve_and_find_it_in_the_queue(page, app: AppServer, artifacts: Path) -> None:  # type: ignore[no-untyped-def]
    page.goto(app.url)
    _sign_in(page)
    page.get_by_role("textbox", name="What should the exercise help with?").fill(
        "Help a student manage exam panic")
    page.get_by_role("textbox", name="Audience").fill("university students")
    _shot(page, artifacts, "01-start")
    page.get_by_role("button", name="Start drafting").click()

    page.wait_for_url("**/run?run=*")
    expect(page.get_by_text("Waiting for your review")).to_be_visible()
    expect(page.get_by_role("heading", name="Help a student manage exam panic")).to_be_visible()
    _shot(page, artifacts, "02-run-review")

    # Edit in place and save a new version.
    page.get_by_text("Edit", exact=True).click()
    editor = page.get_by_role("textbox", name="Editing v")
    expect(editor).to_have_value(re.compile(r"## Steps"))
    original = editor.input_value()
    editor.fill(original + "\n\nBefore the exam, remember one calm moment you have had.")
    _shot(page, artifacts, "03-run-editing")
    page.get_by_role("button", name="Save as v").click()
    expect(page.get_by_text("a person's edit was re-scored").first).to_be_visible()
    new_version = page.get_by_role("heading", name="Draft v").inner_text().split("v")[-1]

    # The new version is in the chart (a person's star and annotation) and the history.
    page.get_by_role("tab", name="Score history").click()
    chart = page.locator(".js-plotly-plot")
    expect(chart.get_by_text(f"✎ {REVIEWER}")).to_be_visible()
    expect(chart.get_by_text(f"v{new_version}", exact=True)).to_be_visible()
    page.get_by_role("tab", name="Score history").scroll_into_view_if_needed()
    _shot(page, artifacts, "04-run-chart")
    page.get_by_role("tab", name="Versions & diff").click()
    expect(page.get_by_role("combobox", name="To")).to_have_value(
        f"v{new_version} · {REVIEWER} (person)")
    expect(page.get_by_text("remember one calm moment").last).to_be_visible()
    _shot(page, artifacts, "05-run-diff")
    page.get_by_role("tab", name="Blackboard").click()
    _shot(page, artifacts, "06-run-blackboard")

    page.get_by_role("button", name=f"Approve v{new_version}").click()
    # Said once, by the status banner (no "Approved vN." flash beside it).
    expect(page.get_by_text(f"Approved by {REVIEWER}")).to_be_visible()
    expect(page.get_by_text(f"Approved v{new_version}.")).to_have_count(0)
    _shot(page, artifacts, "07-run-approved")
    with page.expect_download() as download:
        page.get_by_role("button", name="Export approved draft (Markdown)").click()
    exported = Path(download.value.path()).read_text()
    assert "remember one calm moment" in exported and f"Approved by {REVIEWER}" in exported

    page.get_by_role("link", name="Review queue").click()
    expect(page.get_by_role("heading", name="Finished (1)")).to_be_visible()
    link = page.get_by_role("link", name="Help a student manage exam panic")
    # A card is one bordered container: the link, then its status and scores.
    card = page.get_by_test_id("stVerticalBlock").filter(has=link).last
    expect(card).to_contain_text("Approved")
    expect(card).not_to_contain_text("Finished (1)")  # the card, not the section around it
    _shot(page, artifacts, "08-queue")


def test_html_in_a_draft_is_inert(page, app: AppServer, artifacts: Path) -> None:  # type: ignore[no-untyped-def]
    from engine import service
    from engine.views import get_run

    run_id = service.start_run(kind="protocol", actor="seed",
                               input={"intent": "Help with sleep worries", "audience": "adults"})
    wait_status(run_id, "awaiting_review")
    payload = ("# Evening wind-down\n\n<script>alert(1)</script>\n\n"
               '<img src="x" onerror="alert(2)">\n\n1. Breathe out slowly. '
               '<b onmouseover="alert(3)">hover</b>\n')
    service.edit(run_id=run_id, actor="seed", content=payload,
                 expected_version=get_run(run_id).version)
    wait_status(run_id, "awaiting_review")

    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(f"{app.url}/run?run={run_id}")
    draft = page.get_by_test_id("stMarkdownContainer").filter(has_text="Evening wind-down").first
    expect(draft).to_contain_text("<script>alert(1)</script>")
    expect(draft).to_contain_text('<img src="x" onerror="alert(2)">')
    assert draft.locator("script, img, b[onmouseover]").count() == 0
    page.get_by_text("hover").first.hover()
    page.wait_for_timeout(800)
    _shot(page, artifacts, "09-run-html-inert")
    assert dialogs == []




def test_two_tabs_see_the_same_run_and_a_stale_act_is_refused(  # type: ignore[no-untyped-def]
        browser, app: AppServer, worker_started: None, artifacts: Path) -> None:
    from engine import service

    run_id = service.start_run(kind="protocol", actor="seed",
                               input={"intent": "Plan pleasant activities", "audience": "adults"})
    wait_status(run_id, "awaiting_review")
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        one, two = ctx.new_page(), ctx.new_page()
        for tab, name in ((one, "Ana"), (two, "Ben")):
            tab.set_default_timeout(WAIT)
            tab.goto(f"{app.url}/run?run={run_id}")
            _sign_in(tab, name)
            expect(tab.get_by_text("Waiting for your review")).to_be_visible()
        one.get_by_role("textbox", name="What should change?").fill("Shorter steps, please.")
        one.get_by_role("button", name="Request revision").click()
        expect(one.get_by_text("Sent back to the drafter").first).to_be_visible()
        # Tab two still shows the old version; its approval must not land on the new one.
        two.get_by_role("button", name="Approve v").click()
        expect(two.get_by_text("This run changed since you opened it")).to_be_visible()
        _shot(two, artifacts, "10-run-stale-tab")
        two.get_by_role("button", name="Reload").click()
        expect(two.get_by_text("This run changed since you opened it")).to_have_count(0)
        wait_status(run_id, "awaiting_review")
        from engine.views import get_run

        assert [a.action for a in get_run(run_id).actions] == ["revise"]
    finally:
        ctx.close()


def test_restarting_the_app_resumes_queued_and_abandoned_runs(browser, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A queued run and one whose worker died mid-step (lease expired) both finish once the
    app is started again and a first session starts its in-app worker."""
    from datetime import timedelta

    from db.models import Run, utcnow
    from db.session import session_scope
    from engine import service
    from engine.views import get_run

    # Both apps use the same file (tmp_path/e2e.db); this process reads and writes it too.
    with using_database(f"sqlite:///{tmp_path / 'e2e.db'}"):
        with streamlit_app(tmp_path, env={"DRAFTROOM_INAPP_WORKER": "0"}):
            queued = service.start_run(kind="protocol", actor="x",
                                       input={"intent": "Sleep worries", "audience": "adults"})
            dead = service.start_run(kind="protocol", actor="x",
                                     input={"intent": "Exam panic", "audience": "students"})
            with session_scope() as s:
                run = s.get(Run, dead)
                assert run is not None
                run.status, run.lease_owner = "running", "worker-that-died"
                run.lease_expires = utcnow() - timedelta(seconds=1)
                s.add(run)
        with streamlit_app(tmp_path) as second:
            ctx = browser.new_context()
            pg = ctx.new_page()
            pg.goto(f"{second.url}/run?run={dead}")
            expect(pg.get_by_text("Waiting for your review")).to_be_visible()
            ctx.close()
            wait_status(queued, "awaiting_review")
            assert get_run(dead).drafts
