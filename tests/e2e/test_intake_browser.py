"""A marketer plans a campaign in conversation in a real Chromium, from an empty chat to an
approved plan without touching a form; and an abandoned chat is picked up again from the
review queue in a new browser session. Screenshots: test-artifacts/intake-*.png."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from testkit.app_server import CHROMIUM, CHROMIUM_ARGS, AppServer, playwright_expect, streamlit_app
from testkit.browser import click_until, sign_in
from tests.e2e.test_campaign_browser import _shot

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_expect()

MARKETER = "Noa Peretz"
PROMPT = "Tell the agent about the business or the campaign"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    with streamlit_app(tmp_path_factory.mktemp("e2e-intake")) as server:
        yield server


@pytest.fixture
def browser():  # type: ignore[no-untyped-def]
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


def _open(browser, app: AppServer):  # type: ignore[no-untyped-def]
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = ctx.new_page()
    page.set_default_timeout(30_000)
    page.goto(app.url)
    sign_in(page, MARKETER)
    return ctx, page


def _say(page, text: str) -> None:  # type: ignore[no-untyped-def]
    """Send a message and wait for the agent's answer to it (the confirmation gets two)."""
    messages = page.get_by_test_id("stChatMessage")
    before = messages.count()
    box = page.get_by_placeholder(PROMPT)
    box.fill(text)
    box.press("Enter")
    expect(messages.nth(before + 1)).to_be_visible(timeout=30_000)


def _approve(page, then) -> None:  # type: ignore[no-untyped-def]
    """Approve the version on screen and wait for `then` (the next stage waiting, or the
    approval line); a click lost to a rerun is made again on the same version's button."""
    first = page.get_by_role("button", name=re.compile(r"Approve v\d+$"))
    expect(first).to_have_count(1)
    version = re.search(r"Approve v(\d+)", first.inner_text()).group(1)  # type: ignore[union-attr]
    button = page.get_by_role("button", name=re.compile(rf"Approve v{version}$"))
    click_until(button, then, timeout_ms=20_000)


def _shot_intake(page, artifacts: Path, name: str) -> None:  # type: ignore[no-untyped-def]
    page.wait_for_timeout(1500)  # the card column redraws after the chat
    page.screenshot(path=str(artifacts / f"intake-{name}.png"))


def test_from_an_empty_chat_to_an_approved_plan(browser, app: AppServer, artifacts: Path) -> None:  # type: ignore[no-untyped-def]
    ctx, page = _open(browser, app)
    page.get_by_role("link", name="New campaign").click()
    expect(page.get_by_role("heading", name="New campaign")).to_be_visible()
    _shot_intake(page, artifacts, "00-start")
    page.get_by_role("button", name="Start the chat").click()
    expect(page.get_by_text("What is the business called?")).to_be_visible()
    _shot_intake(page, artifacts, "01-empty-chat")

    _say(page, "Hi, I run Juniper Yoga, a small yoga studio in Haifa, Israel.")
    expect(page.get_by_text("3 of 11 filled in")).to_be_visible()
    _say(page, "Our students are office workers aged 30-50; we sound calm and kind, a bit wry")
    _say(page, "We offer the Morning Flow class, the 10-class pass and private sessions.")
    _shot_intake(page, artifacts, "02-card-filling")
    _say(page, "Never claim yoga cures back pain.")
    _say(page, "We want 80 new 10-class passes sold. Budget is lots.")
    expect(page.get_by_text("What is the budget as an amount in US dollars").last).to_be_visible()
    _say(page, "ok, $3,000")
    _say(page, "email and WhatsApp, from 2027-04-01 to 2027-05-31")
    expect(page.get_by_text("Is all of this right?")).to_be_visible()
    _shot_intake(page, artifacts, "03-confirm")
    _say(page, "yes, go ahead")
    expect(page.get_by_test_id("stAlertContentSuccess")).to_contain_text("Campaign started: run")
    _shot_intake(page, artifacts, "04-started")

    page.get_by_role("link", name="Open the campaign").click()
    page.wait_for_url("**/run?run=*")
    expect(page.get_by_text("Waiting for your review:")).to_be_visible(timeout=60_000)
    expect(page.get_by_role("heading", name="Campaign brief: Juniper Yoga")).to_be_visible()
    for stage in ("Creators", "Outreach", "Plan"):
        _approve(page, page.get_by_text(f"{stage}: waiting for your review"))
    _approve(page, page.get_by_text(f"Approved by {MARKETER} on"))
    _shot(page, artifacts, "intake-05-plan-approved")
    ctx.close()


def test_an_abandoned_chat_resumes_from_the_queue(browser, app: AppServer, artifacts: Path) -> None:  # type: ignore[no-untyped-def]
    ctx, page = _open(browser, app)
    page.get_by_role("link", name="New campaign").click()
    page.get_by_role("button", name="Start the chat").click()
    _say(page, "We're Copper Kettle Tea, we sell loose-leaf tea in Leeds, UK")
    expect(page.get_by_text("Copper Kettle Tea").last).to_be_visible()
    ctx.close()  # the person walks away mid-chat

    ctx, page = _open(browser, app)
    page.get_by_role("link", name="Review queue").click()
    page.get_by_text("Campaign chats to resume").click()
    page.get_by_role("link", name="Copper Kettle Tea").click()
    expect(page.get_by_role("heading", name="New campaign")).to_be_visible()
    expect(page.get_by_text("We're Copper Kettle Tea, we sell loose-leaf tea")).to_be_visible()
    expect(page.get_by_text("3 of 11 filled in")).to_be_visible()
    _say(page, "Customers are students and tea nerds; voice: cosy and curious")
    expect(page.get_by_text("5 of 11 filled in")).to_be_visible()
    _shot_intake(page, artifacts, "06-resumed")
    ctx.close()


def test_a_business_kind_and_its_market_as_a_marketer_sees_them(  # type: ignore[no-untyped-def]
        browser, app: AppServer, artifacts: Path) -> None:
    """"We're a small bike shop in Berlin": the card reads what it sells as its trade (never the
    shop itself), and the campaign's Run page names its market, whose disclosure words the
    outreach then uses."""
    ctx, page = _open(browser, app)
    page.get_by_role("link", name="New campaign").click()
    page.get_by_role("button", name="Start the chat").click()
    _say(page, "Hallo! We're a small bike shop in Berlin, Germany, called Kiezrad.")
    card = page.get_by_test_id("stVerticalBlock").filter(has_text="Business card").last
    expect(card).to_contain_text("What it sells: Bike")
    expect(card).not_to_contain_text("Small bike shop")
    _shot_intake(page, artifacts, "07-business-kind")
    _say(page, "We sell refurbished city bikes and repairs.")
    expect(card).to_contain_text("What it sells: Refurbished city bikes")
    _say(page, "Students and commuters. Our voice is friendly and direct.")
    _say(page, "Products: the refurbished Hollandrad and the winter tune-up")
    _say(page, "none")
    _say(page, "Goal: sell 60 bikes. Budget $3,000, email and WhatsApp, April 2027")
    expect(page.get_by_text("Is all of this right?")).to_be_visible()
    _say(page, "yes")
    page.get_by_role("link", name="Open the campaign").click()
    page.wait_for_url("**/run?run=*")
    expect(page.get_by_text("market: Germany: paid posts marked #Anzeige")).to_be_visible()
    expect(page.get_by_text("Waiting for your review:")).to_be_visible(timeout=60_000)
    _shot(page, artifacts, "intake-08-run-market")
    ctx.close()
