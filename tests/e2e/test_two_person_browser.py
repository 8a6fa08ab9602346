"""The two-person rule in a real Chromium: the protocol policy asks for two approvers; the first
reviewer assigns the run, approves and sees "1 of 2 approvals" (and cannot approve twice); the
second finds it under "Assigned to me", approves, and the run is approved with both names in
the export and the audit trail verified. Screenshots go to test-artifacts/."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from testkit.app_server import AppServer, app_sharing_database, playwright_expect, wait_status
from testkit.browser import full_page_shot, sign_in

expect = playwright_expect()
WAIT = 30_000


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    with app_sharing_database(tmp_path_factory.mktemp("two-person")) as server:
        yield server


def _tab(browser, app: AppServer, name: str):  # type: ignore[no-untyped-def]
    ctx = browser.new_context(viewport={"width": 1400, "height": 1100}, accept_downloads=True)
    page = ctx.new_page()
    page.set_default_timeout(WAIT)
    page.goto(app.url)
    sign_in(page, name)
    return ctx, page


def _shot(page, artifacts: Path, name: str) -> None:  # type: ignore[no-untyped-def]
    full_page_shot(page, artifacts / f"{name}.png", max_height=6000)


def test_two_person_approval_in_the_browser(browser, app: AppServer, worker_started: None,  # type: ignore[no-untyped-def]
                                            artifacts: Path) -> None:
    from engine import service
    from engine.approval_policy import set_policy
    from engine.views import get_run

    set_policy(actor="admin", kind="protocol", roles=["clinician"], approvals=2)
    run_id = service.start_run(kind="protocol", actor="Dr. Lee",
                               input={"intent": "Help a nurse wind down after night shifts",
                                      "audience": "adults"})
    wait_status(run_id, "awaiting_review")
    version = get_run(run_id).current.version  # type: ignore[union-attr]

    lee_ctx, lee = _tab(browser, app, "Dr. Lee")
    lee.goto(f"{app.url}/run?run={run_id}")
    expect(lee.get_by_text("0 of 2 approvals")).to_be_visible()
    expect(lee.get_by_text("Audit trail verified")).to_be_visible()
    # Assign the run to Dr. Kim from the Run page.
    lee.get_by_role("combobox", name="Assignee").fill("Dr. Kim")
    lee.keyboard.press("Enter")
    lee.get_by_role("button", name="Assign", exact=True).click()
    expect(lee.get_by_text("Assigned to dr. kim").first).to_be_visible()
    lee.get_by_role("button", name=f"Approve v{version}").click()
    expect(lee.get_by_text("1 of 2 approvals").first).to_be_visible()
    expect(lee.get_by_text("A second approver is needed").first).to_be_visible()
    assert get_run(run_id).status == "awaiting_review"
    _shot(lee, artifacts, "two-person-1-first-approval")
    lee.get_by_role("button", name=f"Approve v{version}").click()
    expect(lee.get_by_text("You already approved this version").first).to_be_visible()
    _shot(lee, artifacts, "two-person-2-same-person-refused")
    lee_ctx.close()

    kim_ctx, kim = _tab(browser, app, "Dr. Kim")
    kim.get_by_role("link", name="Review queue").click()
    expect(kim.get_by_text("Assigned to me (1)")).to_be_visible()
    expect(kim.get_by_role("link", name="Help a nurse wind down")).to_be_visible()
    _shot(kim, artifacts, "two-person-3-assigned-to-me")
    with kim.context.expect_page() as opened:  # a queue card's link opens a new tab
        kim.get_by_role("link", name="Help a nurse wind down").click()
    kim = opened.value
    expect(kim.get_by_text("1 of 2 approvals")).to_be_visible()
    kim.get_by_role("button", name=f"Approve v{version}").click()
    expect(kim.get_by_text("Approved by Dr. Kim").first).to_be_visible()  # the status says it
    expect(kim.get_by_text("2 of 2 approvals")).to_be_visible()
    expect(kim.get_by_text("Audit trail verified")).to_be_visible()
    with kim.expect_download() as download:
        kim.get_by_role("button", name="Export approved draft (Markdown)").click()
    exported = Path(download.value.path()).read_text()
    assert "Approved by Dr. Lee (unverified)" in exported
    assert "Approved by Dr. Kim (unverified)" in exported
    assert "Approval policy met" in exported and "(2 of 2 approvals)" in exported
    kim.get_by_role("tab", name="Audit trail").click()
    _shot(kim, artifacts, "two-person-4-approved")
    kim_ctx.close()
    assert get_run(run_id).status == "approved"


def test_the_start_form_says_which_contact_details_were_taken_out(  # type: ignore[no-untyped-def]
        browser, app: AppServer, artifacts: Path) -> None:
    from engine.run_list import list_runs

    ctx, page = _tab(browser, app, "Dr. Lee")
    page.get_by_role("textbox", name="What should the exercise help with?").fill(
        "Help Jane Roe (jane.roe@example.org, +1 415 555 0134) manage exam panic")
    page.get_by_role("button", name="Start drafting").click()
    expect(page.get_by_text("1 email address and 1 phone number").first).to_be_visible()
    expect(page.get_by_text("intent: Help Jane Roe ([email], [phone])")).to_be_visible()
    _shot(page, artifacts, "pii-start-notice")
    page.get_by_role("button", name="Open run").click()
    page.wait_for_url("**/run?run=*")
    expect(page.get_by_role("heading", name="Help Jane Roe ([email], [phone])")).to_be_visible()
    ctx.close()
    assert "jane.roe" not in list_runs(limit=1)[0].title
