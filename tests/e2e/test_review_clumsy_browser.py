"""Issue 15's clumsy review-desk items, in Chromium (what they look like matters): an override
approval is orange on the Run page and in the queue, not the green "Approved" / red "1 flag" of
a clean or unresolved run. Screenshots go to test-artifacts/review-*.png."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from testkit.app_server import AppServer, app_sharing_database, playwright_expect
from testkit.browser import full_page_shot, settled, sign_in

expect = playwright_expect()
WAIT = 30_000


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    # No in-app worker: this process drives the runs, so the pages hold still for the shots.
    with app_sharing_database(tmp_path_factory.mktemp("review-clumsy"),
                              env={"DRAFTROOM_INAPP_WORKER": "0"}) as server:
        yield server


def _drive() -> None:
    from engine.loop.worker import Worker

    worker = Worker()
    while worker.run_once() is not None:
        pass


def _page(browser, name: str = "Dr. Lee"):  # type: ignore[no-untyped-def]
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    page = ctx.new_page()
    page.set_default_timeout(WAIT)
    return ctx, page


def _sign(page, app: AppServer, name: str = "Dr. Lee") -> None:  # type: ignore[no-untyped-def]
    page.goto(app.url)
    sign_in(page, name)


def _shot(page, artifacts: Path, name: str) -> None:  # type: ignore[no-untyped-def]
    full_page_shot(page, artifacts / f"{name}.png", max_height=5000)


FLAGGED = ("# Sleep plan\n\n## Steps\n\n1. Keep a regular bedtime.\n"
           "2. Stop taking your medication if it makes you drowsy.\n\n"
           "## Safety note\n\nIf you feel unsafe, call or text 988.\n")


def test_an_override_approval_is_orange_on_the_run_page_and_in_the_queue(  # type: ignore[no-untyped-def]
        browser, app: AppServer, artifacts: Path) -> None:
    from engine import service

    over = service.start_run(kind="protocol", actor="seed",
                             input={"intent": "Help a nurse sleep after night shifts",
                                    "audience": "adults"})
    _drive()
    service.edit(run_id=over, actor="seed", content=FLAGGED)
    _drive()
    service.approve(run_id=over, actor="Dr. Lee",
                    override_reason="Quoted from the prescriber's own plan; discussed with her.")
    clean = service.start_run(kind="protocol", actor="seed",
                              input={"intent": "Help a student manage exam panic",
                                     "audience": "students"})
    _drive()
    service.approve(run_id=clean, actor="Dr. Lee")

    ctx, page = _page(browser)
    try:
        _sign(page, app)
        page.goto(f"{app.url}/run?run={over}")
        banner = page.get_by_text("Approved with an override").first
        expect(banner).to_be_visible()
        expect(page.get_by_text("Approved by", exact=False)).to_have_count(0)
        alert = page.locator("[data-testid=stAlertContentWarning]").filter(
            has_text="Approved with an override")
        expect(alert).to_have_count(1)
        _shot(page, artifacts, "review-1-override-run-page")

        page.goto(f"{app.url}/run?run={clean}")
        expect(page.locator("[data-testid=stAlertContentSuccess]").filter(
            has_text="Approved by")).to_have_count(1)

        page.goto(f"{app.url}/queue")
        chip = page.get_by_text("approved over 1 flag").first
        expect(chip).to_be_visible()
        expect(page.get_by_text("1 flag", exact=True)).to_have_count(0)
        _shot(page, artifacts, "review-2-override-queue")
    finally:
        ctx.close()


def test_counters_one_message_flagged_edit_warning_and_the_pdf_handout(  # type: ignore[no-untyped-def]
        browser, app: AppServer, artifacts: Path) -> None:
    from engine import service
    from engine.views import get_run

    run_id = service.start_run(kind="protocol", actor="seed",
                               input={"intent": "Help a teacher unwind after parent evenings",
                                      "audience": "adults"})
    _drive()
    ctx, page = _page(browser)
    try:
        _sign(page, app)  # on the Start page
        # The Start form counts as the person types (Streamlit's max_chars counter).
        intent = page.get_by_role("textbox", name="What should the exercise help with?")
        intent.fill("Help a nurse sleep after night shifts")
        expect(page.get_by_text("37/2000")).to_be_visible()
        _shot(page, artifacts, "review-3-start-counter")

        # A clean draft: no override box; the comment box counts too.
        page.goto(f"{app.url}/run?run={run_id}")
        expect(page.get_by_role("button", name="Request revision")).to_be_visible()
        expect(page.get_by_role("textbox", name="Override reason (required)")).to_have_count(0)
        page.get_by_role("textbox", name="What should change?").fill("Shorter steps, please.")
        expect(page.get_by_text("22/5000")).to_be_visible()
        _shot(page, artifacts, "review-4-clean-draft-form")

        # A person's edit the checks flag: an orange warning, and now the override box.
        service.edit(run_id=run_id, actor="Dr. Lee", content=FLAGGED)
        _drive()
        page.goto(f"{app.url}/run?run={run_id}")
        expect(page.locator("[data-testid=stAlertContentWarning]").filter(
            has_text="a person's edit was re-scored")).to_have_count(1)
        expect(page.locator("[data-testid=stAlertContentInfo]").filter(
            has_text="Waiting for your review")).to_have_count(0)
        expect(page.get_by_role("textbox", name="Override reason (required)")).to_be_visible()
        _shot(page, artifacts, "review-5-flagged-edit-warning")

        # Approve it over the flag: one message (the orange banner), and the PDF handout.
        page.get_by_role("textbox", name="Override reason (required)").fill(
            "The prescriber wrote this line; discussed in session.")
        version = get_run(run_id).current.version  # type: ignore[union-attr]
        page.get_by_role("button", name=f"Approve v{version}").click()
        expect(page.get_by_text("Approved with an override").first).to_be_visible()
        expect(page.locator("[data-testid=stAlertContentSuccess]")).to_have_count(0)
        expect(page.locator("[data-testid=stToast]")).to_have_count(0)
        with page.expect_download() as info:
            page.get_by_role("button", name="Export handout (PDF)").click()
        data = Path(info.value.path()).read_bytes()
        assert data[:5] == b"%PDF-" and info.value.suggested_filename.endswith(".pdf")
        _shot(page, artifacts, "review-6-approved-pdf-button")
    finally:
        ctx.close()


def test_the_clinic_region_picks_the_crisis_lines(  # type: ignore[no-untyped-def]
        browser, app: AppServer, artifacts: Path) -> None:
    from engine import service
    from engine.views import get_run

    ctx, page = _page(browser)
    try:
        _sign(page, app, "admin")
        page.goto(f"{app.url}/settings")
        expect(page.get_by_text("Crisis resources by region")).to_be_visible()
        settled(page)
        page.get_by_role("combobox", name="Clinic default").click()
        page.keyboard.type("United Kingdom")
        page.keyboard.press("Enter")
        expect(page.get_by_role("combobox", name="Clinic default")).to_have_value(
            "United Kingdom (UK)")
        page.get_by_role("button", name="Save regions").click()
        expect(page.get_by_text("the clinic's region is United Kingdom (UK)")).to_be_visible()
        _shot(page, artifacts, "review-7-settings-regions")

        run_id = service.start_run(kind="protocol", actor="seed", input={
            "intent": "A safety plan for a young man with suicidal thoughts",
            "audience": "adults"})
        _drive()
        detail = get_run(run_id)
        assert detail.input["region"] == "uk"
        page.goto(f"{app.url}/run?run={run_id}")
        expect(page.get_by_text("crisis lines for United Kingdom")).to_be_visible()
        expect(page.get_by_text("Samaritans on 116 123", exact=False).first).to_be_visible()
        expect(page.get_by_text("988", exact=False)).to_have_count(0)
        _shot(page, artifacts, "review-8-run-uk-crisis-lines")
    finally:
        ctx.close()
