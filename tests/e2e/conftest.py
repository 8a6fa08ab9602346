"""Fixtures shared by the browser tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from testkit.app_server import CHROMIUM, CHROMIUM_ARGS

HERE = Path(__file__).resolve().parent


@pytest.hookimpl(tryfirst=True)  # before -m "not browser" deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test in this folder is a browser test; all skip with one reason when Debian's
    Chromium is missing."""
    missing = not Path(CHROMIUM).exists()
    for item in items:
        if item.path.resolve().parent == HERE:
            item.add_marker(pytest.mark.browser)
            if missing:
                item.add_marker(pytest.mark.skip(
                    reason=f"{CHROMIUM} is missing: `make system-deps` installs it"))


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """Debian's Chromium driven by Playwright (never a downloaded browser)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def worker_started(browser, app) -> None:  # type: ignore[no-untyped-def]
    """The in-app worker starts with the app's first browser session; tests that queue runs
    from this process need it running before they wait for a run. `app` is the module's."""
    sync_api = pytest.importorskip("playwright.sync_api")
    ctx = browser.new_context()
    page = ctx.new_page()
    page.goto(app.url)
    sync_api.expect(page.get_by_text("In-app worker running")).to_be_visible(timeout=60_000)
    ctx.close()
