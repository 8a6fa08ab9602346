"""A real model's brief whose timeline runs another length than the goal gives ("in the next
90 days") is flagged for every backend, as the offline one's would be: a scripted model (the
fake OpenAI server) writes a fixed five-week timeline and the brief shows "timeline mismatch"."""

from __future__ import annotations

import json
from typing import Any

import pytest

from testkit.fake_openai import example_from_schema, find_schema, running
from tests.test_campaign_open_points import detail, latest
from tests.test_follow_loop import cli

GOAL = "Grow sign-ups for the winter yoga pass by 2,000 in the next 90 days"
INPUT = json.dumps({"brand_id": 1, "brand_name": "Alma Cafe", "goal": GOAL,
                    "audience": "young professionals", "budget": 3000,
                    "channels": ["email"], "num_creators": 2})
FIVE_WEEKS = ["Week 1: creators contacted", "Weeks 2-4: posts go live",
              "Week 5: results gathered"]


class FiveWeeks:
    """Answers every call with the schema's example, a brief with a five-week timeline."""

    def __init__(self, timeline: list[str]) -> None:
        self.timeline = timeline

    def __call__(self, request: dict[str, Any]) -> dict[str, Any] | None:
        schema = find_schema(request)
        if not schema or "timeline" not in schema.get("properties", {}):
            return None
        answer = example_from_schema(schema)
        answer["timeline"] = self.timeline
        return answer  # type: ignore[no-any-return]


@pytest.mark.parametrize(("timeline", "flagged"), [
    (FIVE_WEEKS, True),
    ([*FIVE_WEEKS[:2], "Weeks 5-12: second wave", "Week 13: results gathered"], False),
])
def test_a_model_s_brief_is_held_to_the_goal_s_length(
        db_url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        timeline: list[str], flagged: bool) -> None:
    with running(responder=FiveWeeks(timeline)) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-span-model-0000000")
        monkeypatch.setenv("DRAFTROOM_BACKEND", "openai")
        cli(capsys, "run", "campaign", "--input-json", INPUT)
    brief = latest(detail(capsys))
    assert brief["stage"] == "brief" and "\n- Week 1: creators contacted" in brief["content"]
    found = [f["text"] for f in brief["flags"] if f["category"] == "timeline_mismatch"]
    assert ("the timeline spans 5 weeks; the goal gives 13" in found) is flagged
    assert not [t for t in found if "spans" in t] or flagged
