"""Demo drafts are about their own run (the tester's finding 16 in session 6: run "Face the body
sensations of panic" held "Paced breathing for exam panic (v161)")."""

from __future__ import annotations

from demo.data import GOALS, INTENTS
from demo.drafts import draft_text, protocol_versions


def test_a_protocol_demo_draft_is_the_offline_drafter_s_answer_to_its_own_request() -> None:
    for intent in INTENTS:
        first = draft_text("protocol", "draft", intent, 1)
        heading = first.splitlines()[0]
        assert heading.startswith("# ") and "(v" not in heading
        assert first == protocol_versions(intent)[0]
        chain = protocol_versions(intent)  # each revision changes the text
        assert all(a != b for a, b in zip(chain, chain[1:], strict=False))
    assert draft_text("protocol", "draft", INTENTS[0], 500) == protocol_versions(INTENTS[0])[-1]


def test_a_campaign_demo_draft_names_its_goal_and_versions_differ() -> None:
    goal = GOALS[0]
    v1, v2 = (draft_text("campaign", "brief", goal, v) for v in (1, 2))
    assert v1.startswith(f"# Brief: {goal}") and goal in v1 and "(v" not in v1
    assert v1 != v2
