"""The outreach header's counters agree with the messages the version holds (the tester's
finding 13 in session 6): a creator moved to another channel by a comment is not "no message
yet" on the old one, and after a send-back the stage line says its iteration count started
again instead of seeming to go backwards."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engine import service
from engine.pipelines.campaign.outreach import parse_outreach
from engine.views import get_run
from tests.test_pages import drive
from ui.campaign_view import stage_history_lines

MOVED = """# Outreach

## @maya.brews (Maya)

### Instagram DM

Hi Maya! A paid post about our cold brew? #ad

## @pastry.notes (Lior)

### SMS

Hi Lior, a paid post about our cold brew? #ad

### Email

Subject: Paid collaboration

Hi Lior, a paid post about our cold brew? #ad
"""


def test_a_creator_moved_to_another_channel_is_not_missing_on_the_old_one() -> None:
    doc = parse_outreach(MOVED)
    assert len(doc.messages) == 3
    # Maya: moved from SMS to Instagram DM; her email is still to write.
    assert doc.missing(["sms", "email"]) == [("@maya.brews", "email")]
    assert parse_outreach(MOVED.replace("### Instagram DM", "### SMS")).missing(
        ["sms", "email"]) == [("@maya.brews", "email")]


@pytest.fixture
def _db(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("DRAFTROOM_INAPP_WORKER", "0")
    yield


@pytest.mark.usefixtures("_db")
def test_after_a_send_back_the_iteration_count_says_it_started_again() -> None:
    run_id = service.start_run(kind="campaign", actor="seed", input={
        "brand_id": 1, "brand_name": "Alma Cafe", "goal": "Launch our oat-milk cold brew",
        "audience": "young professionals", "budget": 3000, "channels": ["email"],
        "num_creators": 2})
    drive()
    line = next(ln for ln in stage_history_lines(get_run(run_id)) if "Brief" in ln)
    assert "iteration 1 of" in line and "since" not in line
    service.request_revision(run_id=run_id, actor="sam", comment="Mention the new oat blend.")
    drive()
    line = next(ln for ln in stage_history_lines(get_run(run_id)) if "Brief" in ln)
    assert "since the last send-back" in line
