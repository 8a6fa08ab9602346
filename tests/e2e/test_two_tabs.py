"""Two reviewers in two browser tabs on the same run, in a real Chromium: whoever acts second on
the version they saw is told "This run changed since you opened it", keeps their unsaved text,
and nothing the first one did is overwritten (checked in the database)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from testkit.app_server import AppServer, app_sharing_database, playwright_expect, wait_status
from testkit.browser import full_page_shot, sign_in

expect = playwright_expect()
WAIT = 30_000
STALE = "This run changed since you opened it"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    with app_sharing_database(tmp_path_factory.mktemp("two-tabs")) as server:
        yield server




@pytest.fixture
def tabs(browser, app: AppServer,  # type: ignore[no-untyped-def]
         worker_started: None) -> Iterator[tuple[object, object]]:
    """Two tabs of one browser (as one person with two tabs, or two people at one desk)."""
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    one, two = ctx.new_page(), ctx.new_page()
    for tab in (one, two):
        tab.set_default_timeout(WAIT)
    yield one, two
    ctx.close()


def _reviewed_run(intent: str) -> int:
    from engine import service

    run_id = service.start_run(kind="protocol", actor="seed",
                               input={"intent": intent, "audience": "adults"})
    wait_status(run_id, "awaiting_review", timeout=90)  # the app's in-app worker drives it
    return run_id




def _open(tab, app: AppServer, run_id: int, name: str) -> None:  # type: ignore[no-untyped-def]
    tab.goto(f"{app.url}/run?run={run_id}")
    sign_in(tab, name)
    expect(tab.get_by_text("Waiting for your review")).to_be_visible()


def _shot(tab, artifacts: Path, name: str) -> None:  # type: ignore[no-untyped-def]
    full_page_shot(tab, artifacts / f"{name}.png")


def test_two_edits_of_the_same_version_the_second_is_refused_and_kept(  # type: ignore[no-untyped-def]
        app: AppServer, tabs, artifacts: Path) -> None:
    from engine.views import get_run

    one, two = tabs
    run_id = _reviewed_run("Manage worry before a job interview")
    _open(one, app, run_id, "Ana")
    _open(two, app, run_id, "Ben")
    before = get_run(run_id)
    v, nxt = before.current.version, max(d.version for d in before.drafts) + 1  # type: ignore[union-attr]
    for tab in (one, two):
        tab.get_by_text("Edit", exact=True).click()
    ana, ben = (tab.get_by_role("textbox", name=f"Editing v{v}") for tab in (one, two))
    base = ana.input_value()
    ana.fill(base + "\n\nAna: write the worry down, then close the notebook.")
    ben.fill(base + "\n\nBen: take a slow walk before the interview.")
    one.get_by_role("button", name=f"Save as v{nxt}").click()
    # "Saved vN..." stays while the critics re-score it, which the in-app worker may finish
    # before a look: either the message or the new version on screen.
    expect(one.get_by_text(re.compile(rf"Saved v{nxt}\.|^Draft v{nxt}$")).first).to_be_visible()

    two.get_by_role("button", name=f"Save as v{nxt}").click()
    expect(two.get_by_text(STALE).first).to_be_visible()
    two.get_by_text("Your unsaved text").click()  # kept, to copy before reloading
    expect(two.get_by_text("Ben: take a slow walk").first).to_be_visible()
    _shot(two, artifacts, "two-tabs-stale-edit")

    drafts = get_run(run_id).drafts
    assert [d.version for d in drafts] == [*range(1, nxt + 1)]
    assert drafts[-1].author == "Ana"
    assert drafts[-1].content.endswith("Ana: write the worry down, then close the notebook.")
    assert [(d.id, d.content) for d in drafts[:-1]] == \
        [(d.id, d.content) for d in before.drafts]  # nothing earlier rewritten
    assert not any("Ben" in d.content for d in drafts)
    assert [(a.actor, a.action) for a in get_run(run_id).actions] == [("Ana", "edit")]


def test_two_approvals_of_the_same_version_one_lands(  # type: ignore[no-untyped-def]
        app: AppServer, tabs, artifacts: Path) -> None:
    from engine.views import get_run

    one, two = tabs
    run_id = _reviewed_run("Sleep better before exams")
    _open(one, app, run_id, "Ana")
    _open(two, app, run_id, "Ben")
    v = get_run(run_id).current.version  # type: ignore[union-attr]
    one.get_by_role("button", name=f"Approve v{v}").click()
    expect(one.get_by_text("Approved by Ana").first).to_be_visible()  # the status says it
    two.get_by_role("button", name=f"Approve v{v}").click()
    expect(two.get_by_text(STALE).first).to_be_visible()
    _shot(two, artifacts, "two-tabs-stale-approve")
    two.get_by_role("button", name="Reload").click()
    expect(two.get_by_text("Approved by Ana")).to_be_visible()
    d = get_run(run_id)
    assert d.status == "approved"
    assert [(a.actor, a.action) for a in d.actions] == [("Ana", "approve")]
