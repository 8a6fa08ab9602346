"""Helpers the browser tests share (Playwright pages driven against testkit.app_server)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

# Streamlit scrolls inside its main block, not the document: the page's own height is the
# viewport's, so a full_page screenshot would cut everything below the fold.
_MAIN_HEIGHT = ("() => Math.max(...[...document.querySelectorAll("
                "'[data-testid=stMain], [data-testid=stMainBlockContainer]')]"
                ".map(e => e.scrollHeight), 0)")


def full_page_shot(page: Any, path: Path, *, max_height: int = 7000, settle_ms: int = 400) -> None:
    """Screenshot the whole Streamlit page: the viewport is made as tall as the main block
    (up to max_height) for the picture, then restored."""
    page.wait_for_timeout(settle_ms)  # let charts and fonts settle
    size = page.viewport_size
    tall = page.evaluate(_MAIN_HEIGHT)
    page.set_viewport_size({"width": size["width"],
                            "height": max(size["height"], min(tall + 80, max_height))})
    page.wait_for_timeout(300)
    page.screenshot(path=str(path))
    page.set_viewport_size(size)


# The sidebar's line under the name once the app has taken it (ui/sidebar.py, roles_line).
_TAKEN = re.compile(r"No roles are set up yet|Roles: |No role yet")
_RUNNING = "!document.querySelector('[data-testid=\"stStatusWidget\"]')"


def sign_in(page: Any, name: str) -> None:
    """Type a reviewer name in the sidebar and wait until the app has taken it and finished the
    rerun. Clicking on (a tab, a button) while that rerun still draws can land on an element
    the rerun then replaces, and the click is lost: a flaky test on a loaded machine."""
    from playwright.sync_api import expect

    box = page.get_by_role("textbox", name="Reviewer")
    box.fill(name)
    box.press("Enter")
    expect(page.get_by_test_id("stSidebar").get_by_text(_TAKEN)).to_be_visible()
    settled(page)


def settled(page: Any) -> None:
    """Wait until the page's script run has ended: a widget used while the page still draws
    can be replaced by the run (a dropdown opened, then closed under the test's typing)."""
    page.wait_for_function(_RUNNING)


def click_until(button: Any, shown: Any, *, timeout_ms: int = 15_000, tries: int = 3) -> None:
    """Click, and again while what the click brings is not shown: a click that lands while the
    page reruns (a run page redraws itself when its run changes) can be lost. Only for acts
    the page confirms on screen and whose button goes away once done, so a second click never
    repeats an act that took."""
    from playwright.sync_api import expect

    for attempt in range(tries):
        button.click()
        try:
            expect(shown).to_be_visible(timeout=timeout_ms)
            return
        except AssertionError:
            if attempt == tries - 1 or button.count() == 0:
                raise
