""""Add a line about the free tasting on Friday" on outreach: the offline drafter writes that
line ("There's also the free tasting on Friday."), not the comment's own words pasted in ("A
line about the free tasting on Friday.", seen in session 7 by camp8), and the comment counts as
answered."""

from __future__ import annotations

import json

import pytest

from engine.llm.offline.campaign.common import mentions_in, said_as_sentence
from tests.test_campaign_open_points import detail, latest
from tests.test_follow_loop import cli

RYE = {"brand_id": 1, "brand_name": "Alma Cafe", "audience": "local families",
       "goal": "Sell 400 loaves a week of our new sourdough rye bread by the end of February",
       "budget": 3000, "channels": ["email"], "num_creators": 2}


@pytest.mark.parametrize(("comment", "line"), [
    ("Add a line about the free tasting on Friday.", "There's also the free tasting on Friday."),
    ("Include a sentence on our new opening hours", "There's also our new opening hours."),
    ("Mention that we are closed on Mondays", "We are closed on Mondays."),
])
def test_what_to_say_is_said_as_a_sentence(comment: str, line: str) -> None:
    assert [said_as_sentence(m, True) for m in mentions_in([comment])] == [line]


def test_the_outreach_says_the_line_and_the_comment_is_answered(
        db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, "run", "campaign", "--input-json", json.dumps(RYE))
    cli(capsys, "approve", "1")
    cli(capsys, "approve", "1")
    cli(capsys, "revise", "1", "--comment", "Add a line about the free tasting on Friday.")
    outreach = latest(detail(capsys))
    assert outreach["stage"] == "outreach"
    assert "also the free tasting on Friday." in outreach["content"]
    assert "line about" not in outreach["content"].lower()
    assert not [f for f in outreach["flags"] if f["category"] == "not_addressed"]
