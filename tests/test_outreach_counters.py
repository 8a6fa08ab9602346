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


OUTREACH = """# Outreach

## @pastry.notes (Lior)

### Email

Hi Lior, a fee of $300 for one post about our cold brew. #ad

## @maya.brews (Maya)

### SMS

Hi Maya, a fee of $250 for one post about our cold brew. #ad
"""


def test_each_ask_of_a_campaign_comment_is_judged() -> None:
    """Before, only the first ask was: a raised fee hid the move and the line left out."""
    from engine.checks.feedback_coverage import _verdict
    fee_only = OUTREACH.replace("$300", "$650")
    three = "Raise Lior's fee to $650. Move Maya to Instagram DM. Add a line about the tasting."
    assert _verdict("campaign", three, OUTREACH, fee_only) == "not_addressed"
    all_done = fee_only.replace("### SMS", "### Instagram DM").replace(
        "#ad\n\n## @maya", "Come to our free tasting on Friday. #ad\n\n## @maya")
    assert _verdict("campaign", three, OUTREACH, all_done) == "answered"
    # A sentence that asks nothing is context, not an ask left open.
    assert _verdict("campaign", "Raise Lior's fee to $650. Thanks!", OUTREACH,
                    fee_only) == "answered"
