"""The browser remembers the reviewer's typed name: a reload or a new tab starts a new
Streamlit session, and a person should not have to type their name again. A hostile name is
stored and shown as text, never run."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from testkit.app_server import AppServer, playwright_expect, streamlit_app

expect = playwright_expect()
WAIT = 30_000


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    with streamlit_app(tmp_path_factory.mktemp("reviewer"),
                       env={"DRAFTROOM_INAPP_WORKER": "0"}) as server:
        yield server


@pytest.fixture
def context(browser):  # type: ignore[no-untyped-def]
    ctx = browser.new_context(viewport={"width": 1300, "height": 900})
    yield ctx
    ctx.close()


def _name_box(page):  # type: ignore[no-untyped-def]
    return page.get_by_role("textbox", name="Reviewer")


def _type_name(page, name: str) -> None:  # type: ignore[no-untyped-def]
    box = _name_box(page)
    box.fill(name)
    box.press("Enter")


@pytest.mark.parametrize("name", ["Dr. Ana Rivera",
                                  "</script><img src=x onerror=alert(1)>\"'; x=1 & y"])
def test_a_typed_name_survives_a_reload_and_a_new_tab(context, app: AppServer,  # type: ignore[no-untyped-def]
                                                      name: str) -> None:
    dialogs: list[str] = []
    page = context.new_page()
    page.set_default_timeout(WAIT)
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(app.url)
    _type_name(page, name)
    expect(page.get_by_text("Needed before you start")).to_have_count(0, timeout=WAIT)
    # The cookie is written by the page; give the script its moment.
    page.wait_for_function("document.cookie.includes('draftroom_reviewer=')", timeout=WAIT)
    page.reload()
    expect(_name_box(page)).to_have_value(name, timeout=WAIT)
    other = context.new_page()
    other.goto(f"{app.url}/queue")
    expect(_name_box(other)).to_have_value(name, timeout=WAIT)
    assert not dialogs, f"a script in the name ran: {dialogs}"


def test_clearing_the_name_forgets_it(context, app: AppServer) -> None:  # type: ignore[no-untyped-def]
    page = context.new_page()
    page.set_default_timeout(WAIT)
    page.goto(app.url)
    _type_name(page, "Ben")
    page.wait_for_function("document.cookie.includes('draftroom_reviewer=Ben')", timeout=WAIT)
    _type_name(page, "")
    page.wait_for_function("!document.cookie.includes('draftroom_reviewer=')", timeout=WAIT)
    page.reload()
    expect(page.get_by_text("Needed before you start")).to_be_visible(timeout=WAIT)
    expect(_name_box(page)).to_have_value("", timeout=WAIT)
