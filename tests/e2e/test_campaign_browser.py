"""A marketer takes a sample brand from goal to approved plan in a real Chromium: brand form
errors, start a campaign, approve BRIEF, change the CREATORS shortlist and approve it, check
the OUTREACH messages on their channels, approve the PLAN, download the exports.
Screenshots go to test-artifacts/campaign-*.png; stage timings to campaign-timings.txt."""

from __future__ import annotations

import csv
import io
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from testkit.app_server import CHROMIUM, CHROMIUM_ARGS, AppServer, playwright_expect, streamlit_app
from testkit.browser import click_until, full_page_shot, sign_in

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_expect()

MARKETER = "Mia Levin"
ADDED = "@photo.walks.rehovot"
GOAL = "Bring 300 more students in for weekend brunch this spring"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    with streamlit_app(tmp_path_factory.mktemp("e2e-campaign")) as server:
        yield server


@pytest.fixture
def page(app: AppServer, artifacts: Path, request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        ctx = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
        pg = ctx.new_page()
        pg.set_default_timeout(30_000)
        failed_before = request.session.testsfailed
        yield pg
        if request.session.testsfailed > failed_before:  # what the browser showed at the end
            pg.screenshot(path=str(artifacts / "campaign-failure.png"), full_page=True)
        ctx.close()
        browser.close()


def _shot(page, artifacts: Path, name: str) -> None:  # type: ignore[no-untyped-def]
    full_page_shot(page, artifacts / f"campaign-{name}.png", max_height=7000)


def _pick(page, widget, option: str | re.Pattern[str], search: str = "") -> None:  # type: ignore[no-untyped-def]
    """Choose an option of a multiselect. A page rerun (the run page reloads itself when the
    run changes) can close an open dropdown, so opening it is retried."""
    box = widget.locator("input")
    for attempt in range(4):
        box.click()
        if search:  # long option lists are virtualised: filter to bring the option in
            box.fill(search)
        choice = page.get_by_role("option", name=option)
        try:
            choice.click(timeout=5_000)
            break
        except playwright_api.TimeoutError:
            if attempt == 3:
                raise
            page.keyboard.press("Escape")
    page.keyboard.press("Escape")


def _waiting(page, stage: str, versions: str = "") -> None:  # type: ignore[no-untyped-def]
    """The stage history says the stage waits for review (after the first approval)."""
    expect(page.get_by_text(f"{stage}: waiting for your review · {versions}")).to_be_visible()


def _approve(page) -> None:  # type: ignore[no-untyped-def]
    """Approve the version on screen. A click that lands while the page reruns can be lost
    (seen about once in ten runs): click that same version's button again, never another's.
    While the page reruns into a new stage, the last stage's approve form can still be on
    screen (faded) for a moment: wait until one approve button is left."""
    first = page.get_by_role("button", name=re.compile(r"Approve v\d+$"))
    expect(first).to_have_count(1)
    version = re.search(r"Approve v(\d+)", first.inner_text()).group(1)  # type: ignore[union-attr]
    button = page.get_by_role("button", name=re.compile(rf"Approve v{version}$"))
    # A stage's approval says "Approved vN."; the last one's, the status banner.
    click_until(button, page.get_by_text(re.compile(rf"^Approved v{version}\.$|^Approved by "))
                .first, timeout_ms=10_000)


def test_sample_brand_from_goal_to_approved_plan(page, app: AppServer, artifacts: Path) -> None:  # type: ignore[no-untyped-def]
    timings: list[str] = []
    t0 = time.monotonic()

    def lap(what: str) -> None:
        nonlocal t0
        timings.append(f"{what}: {time.monotonic() - t0:.1f}s")
        t0 = time.monotonic()

    page.goto(app.url)
    sign_in(page, MARKETER)

    # Brands: a malformed profile gets errors under its fields; then the sample brand.
    page.get_by_role("link", name="Brands").click()
    expect(page.get_by_role("heading", name="Brands")).to_be_visible()
    expect(page.get_by_role("heading", name="Edit Alma Cafe")).to_be_visible()
    page.get_by_test_id("stSelectbox").first.click()
    page.get_by_role("option", name="+ New brand").click()
    expect(page.get_by_role("heading", name="New brand")).to_be_visible()
    expect(page.get_by_role("textbox", name="Name")).to_have_value("")
    expect(page.get_by_role("textbox", name="Website")).to_have_value("")
    page.get_by_role("textbox", name="Website").fill("almacafe dot com")
    page.get_by_role("button", name="Create brand").click()
    expect(page.get_by_text("Name is required.")).to_be_visible()
    expect(page.get_by_text("Website must be a web address such as")).to_be_visible()
    _shot(page, artifacts, "01-brand-errors")
    page.get_by_test_id("stSelectbox").first.click()
    page.get_by_role("option", name="Alma Cafe (sample)").click()
    page.get_by_role("button", name="Use for a campaign").click()
    lap("brand page")

    # Start: the campaign form is open, with the brand picked on the Brands page.
    expect(page.get_by_role("heading", name="Start a draft")).to_be_visible()
    expect(page.get_by_text("Never says: cheap, hipster")).to_be_visible()
    page.get_by_role("textbox", name="Goal").fill(GOAL)
    _pick(page, page.get_by_test_id("stMultiSelect").filter(has_text="Email"), "WhatsApp")
    _shot(page, artifacts, "02-start")
    page.get_by_role("button", name="Start campaign").click()
    page.wait_for_url("**/run?run=*")
    expect(page.get_by_text("Waiting for your review:")).to_be_visible()
    expect(page.get_by_role("heading", name="Campaign brief: Alma Cafe")).to_be_visible()
    lap("start -> brief ready")
    _shot(page, artifacts, "03-brief")

    # BRIEF -> CREATORS, only on approval.
    _approve(page)
    _waiting(page, "Creators", "1 version")
    lap("approve brief -> shortlist ready")
    first = page.get_by_text(re.compile(r"^1\. @")).inner_text().split()[1]
    assert first != ADDED

    # The person's choice: remove the top creator, add one from the directory.
    editor = page.get_by_test_id("stForm").filter(has_text="Change the shortlist")
    _pick(page, editor.get_by_test_id("stMultiSelect").filter(has_text="Remove"), first)
    _pick(page, editor.get_by_test_id("stMultiSelect").filter(has_text="Add from"),
          re.compile(re.escape(ADDED)), search=ADDED[1:])
    # Saved: its message (gone at the page's next rerun) or the new version in the history.
    click_until(editor.get_by_role("button", name="Save shortlist"), page.get_by_text(
        re.compile(r"^Saved your shortlist|Creators: waiting for your review · 2 versions")).first)
    _waiting(page, "Creators", "2 versions")
    expect(page.get_by_text(re.compile(r"^3\. " + re.escape(ADDED)))).to_be_visible()
    expect(page.get_by_text(re.compile(r"^\d\. " + re.escape(first) + r"\b"))).to_have_count(0)
    lap("change shortlist -> re-scored")
    _shot(page, artifacts, "04-creators")

    # CREATORS -> OUTREACH: messages for exactly the chosen creators, on each channel.
    _approve(page)
    _waiting(page, "Outreach")
    lap("approve shortlist -> outreach ready")
    tabs = page.get_by_role("tab", name=re.compile(r"^@"))
    # all() reads the page as it is: wait until the tabs are drawn (an empty list once, in a
    # fresh clone's first browser test, with the stage already "waiting for your review")
    expect(tabs).to_have_count(3)
    handles = [t.inner_text() for t in tabs.all()]
    assert ADDED in handles and first not in handles and len(handles) == 3
    tabs.filter(has_text=ADDED).click()
    panel = page.get_by_role("tabpanel").filter(has_text="To Yonatan Israeli")
    expect(panel.get_by_text(re.compile(r"\(1/\d\)$"))).to_be_visible()  # SMS in parts
    expect(panel.get_by_text("Subject:")).to_be_visible()
    expect(panel.get_by_text("WhatsApp", exact=True)).to_be_visible()
    _shot(page, artifacts, "05-outreach")

    # OUTREACH -> PLAN -> approved.
    _approve(page)
    _waiting(page, "Plan", "1 version")
    expect(page.get_by_role("heading", name="Campaign plan: Alma Cafe")).to_be_visible()
    lap("approve outreach -> plan ready")
    _approve(page)
    expect(page.get_by_text(f"Approved by {MARKETER} on")).to_be_visible()
    lap("approve plan")
    _shot(page, artifacts, "06-plan-approved")

    # Exports: the plan with every message, and the messages per creator and channel.
    with page.expect_download() as md:
        page.get_by_role("button", name="Export approved draft (Markdown)").click()
    text = Path(md.value.path()).read_text()
    assert text.startswith("# Campaign plan: Alma Cafe")
    assert "## Messages" in text and f"### {ADDED}" in text and f"### {first} " not in text
    for stage in ("Brief", "Creators", "Outreach", "Plan"):
        assert f"- {stage}: v" in text and f"approved by {MARKETER}" in text
    with page.expect_download() as sheet:
        page.get_by_role("button", name="Messages as CSV (per creator and channel)").click()
    rows = list(csv.DictReader(io.StringIO(Path(sheet.value.path()).read_text())))
    assert {(r["creator_handle"], r["channel"]) for r in rows} == {
        (h, c) for h in handles for c in ("Email", "SMS", "WhatsApp")}
    assert all(r["approved"] == "yes" for r in rows)
    (artifacts / "campaign-export.md").write_text(text)
    (artifacts / "campaign-timings.txt").write_text("\n".join(timings) + "\n")
