"""The checks that follow the text (engine/checks/follow.py and its parts), as pure functions:
the labelled set's score, and one test per check with the issue's own examples."""

from __future__ import annotations

import json
from pathlib import Path

from engine.checks.feedback_coverage import Comment, answered, no_change
from engine.checks.follow import FollowInput, follow_checks, merge
from engine.checks.safety import screen_protocol
from tools.evaluate_coverage import score

CASES = Path(__file__).parent / "data" / "coverage_cases.jsonl"
PASTED = """# Facing fears step by step

## Purpose

Avoiding what we fear keeps the fear going. It was written with this situation in mind:
exposure hierarchy for a man afraid of elevators.

## Steps

1. Write down the situation you avoid and what you fear might happen.
2. List eight to ten steps toward it, from easiest to hardest.
3. Stay with each step until your anxiety eases a little.
4. Write down what happened compared with what you feared.
"""
ELEVATOR = {"intent": "Exposure hierarchy for a man afraid of elevators", "audience": "adults"}


def _cats(result, check: str | None = None) -> list[str]:  # type: ignore[no-untyped-def]
    return [f.category for f in result.findings if check is None or f.check == check]


def test_the_labelled_set_scores_as_reported() -> None:
    cases = [json.loads(line) for line in CASES.read_text().splitlines() if line]
    assert len(cases) >= 60
    result = score(cases)
    assert result["accuracy"] >= 0.95, result["errors"]
    for cat, s in result["per_category"].items():
        assert s["recall"] >= 0.9, (cat, s)


def test_request_coverage_sees_a_request_pasted_into_a_template() -> None:
    result = follow_checks("protocol", "draft", PASTED, ELEVATOR)
    assert _cats(result, "request_coverage") == ["request_not_covered"]
    assert [(f.score, f.cap) for f in result.findings] == [("clinical", 0.5)]
    assert result.caps == {"clinical": 0.5}  # binding: a pasted request never meets thresholds
    assert result.notes[0][0] == "critical" and "elevator" in result.notes[0][1]
    worked = PASTED.replace("2. List eight", "2. Ride an elevator one floor with a friend.\n"
                            "3. Ride the elevator alone for three floors.\n4. List eight")
    assert _cats(follow_checks("protocol", "draft", worked, ELEVATOR)) == []


def test_request_coverage_needs_the_elements_of_a_self_harm_request() -> None:
    ask = {"intent": "A teen who self-harms by cutting: cope with urges", "audience": "teens"}
    draft = ("# Urges\n\n## Steps\n\n1. When the urge to cut comes, rate it.\n"
             "2. Notice where you feel the urge to self-harm in your body.\n")
    notes = [text for _, text in follow_checks("protocol", "draft", draft, ask).notes]
    assert any("delay" in n for n in notes) and any("safety plan" in n for n in notes)


def test_feedback_coverage_the_issue_examples() -> None:
    drift = PASTED.replace("4. Write down",
                           "4. Tell a friend how the exercise went.\n5. Write down")
    comment = "Add a step about riding one floor in an elevator with a friend"
    assert not answered(comment, PASTED, drift)
    assert not answered("Make it specific to elevators", PASTED, PASTED)
    done = PASTED.replace("4. Write down", "4. Ride one floor in an elevator with a friend.\n"
                          "5. Write down")
    assert answered(comment, PASTED, done)
    fee = ("## @dr.vogel.skin · Dr. Katrin Vogel\n\n### Email\n\nHi Katrin,\n\n"
           "Would you post a video for a fee of $420?\n")
    pasted = fee + "\nThat the cream is fragrance-free.\n"
    assert not answered("Offer Dr. Vogel her usual fee of 1800 dollars", fee, pasted)
    assert not answered("Mention that the cream is fragrance-free", fee, pasted)
    assert answered("Offer Dr. Vogel her usual fee of 1800 dollars", fee,
                    fee.replace("a fee of $420", "your usual fee of $1,800"))


def test_feedback_coverage_gives_a_not_addressed_flag_and_caps_the_score() -> None:
    comment = Comment(text="Make it specific to elevators", before=PASTED)
    other = PASTED.replace("eight to ten steps", "six to eight steps")
    result = follow_checks("campaign", "outreach", other, {"channels": []},
                           FollowInput(previous=PASTED, comments=[comment]))
    flags = [f for f in result.flags if f.category == "not_addressed"]
    assert [f.text for f in flags] == ["Make it specific to elevators"]
    assert not flags[0].blocking and result.caps["completion"] <= 0.5
    # A person's own edit is their answer: no comment is held against it.
    human = follow_checks("campaign", "outreach", PASTED, {"channels": []},
                          FollowInput(previous=PASTED, comments=[comment], author_kind="human"))
    assert not [f for f in human.flags if f.category in ("not_addressed", "no_change")]


def test_no_change_revisions() -> None:
    assert no_change(PASTED, PASTED)
    assert no_change(PASTED, PASTED.replace("step by step", "step-by-step").replace("\n", "\n\n"))
    assert not no_change(PASTED, PASTED.replace("eight to ten", "five"))  # a number moved
    result = follow_checks("protocol", "draft", PASTED, ELEVATOR, FollowInput(previous=PASTED))
    assert "no_change" in _cats(result)


def test_clinical_harm_lowers_the_clinical_score_from_the_safety_screens_flags() -> None:
    text = PASTED + "5. Stop taking your sertraline if it makes you feel flat.\n"
    screen = screen_protocol(text)
    assert [f.category for f in screen.flags] == ["medication"]
    result = follow_checks("protocol", "draft", text, ELEVATOR, safety_flags=screen.flags)
    assert _cats(result, "clinical_harm") == ["clinical_harm"]
    assert result.caps["clinical"] <= 0.2
    assert not [f for f in result.flags if f.check == "clinical_harm"]  # the screen flags it


def test_campaign_consistency_oat_milk_goal_with_an_espresso_brief() -> None:
    goal = {"brand_name": "Alma Cafe", "goal": "Launch our oat-milk cold brew",
            "budget": 5000, "num_creators": 2, "channels": ["email"]}
    brief = ("# Campaign brief: Alma Cafe\n\n## Objective\n\nLaunch our oat-milk cold brew.\n\n"
             "## Key messages\n\n- Why Alma Cafe: single-origin espresso, oat-milk latte\n\n"
             "## Deliverables\n\n- 2 creators post about single-origin espresso\n")
    brand = FollowInput(context={"brand": {"products": [
        "single-origin espresso", "oat-milk latte", "weekend brunch"]}})
    result = follow_checks("campaign", "brief", brief, goal, brand)
    assert _cats(result) == ["off_product"] and result.findings[0].score == "completion"
    assert result.findings[0].cap == 0.5 and result.caps == {"completion": 0.5}
    fixed = brief.replace("single-origin espresso", "our new oat-milk cold brew")
    assert _cats(follow_checks("campaign", "brief", fixed, goal, brand)) == []


def test_campaign_goal_naming_what_it_sells_and_a_brand_product() -> None:
    """"Sell 80 new 10-class passes for our oat-milk latte club": promoting the passes or
    the latte is on the goal, espresso is not; the 10 of "10-class" is a name, not a KPI."""
    goal = {"brand_name": "Alma Cafe", "goal": "Sell 80 new 10-class passes for our oat-milk "
            "latte club by March 31", "budget": 4000, "num_creators": 2, "channels": ["email"]}
    brand = FollowInput(context={"brand": {"products": [
        "single-origin espresso", "oat-milk latte", "weekend brunch"]}})
    brief = ("# Campaign brief: Alma Cafe\n\n## Key messages\n\n- Why Alma Cafe: {x}\n\n"
             "## Deliverables\n\n- 2 creators post about {x}\n")
    for on in ("10-class passes", "the oat-milk latte"):
        assert "off_product" not in _cats(follow_checks("campaign", "brief", brief.format(x=on),
                                                        goal, brand))
    assert "off_product" in _cats(follow_checks("campaign", "brief",
                                                brief.format(x="single-origin espresso"),
                                                goal, brand))
    outreach = ("# Outreach\n\n## @maya.brews\n\n### Email\n\nHi Maya! We'd love a reel about "
                "our 10-class passes. It's a paid partnership (#ad).\n")
    assert "kpi_in_message" not in _cats(follow_checks("campaign", "outreach", outreach, goal,
                                                       brand))


def test_merge_keeps_the_lower_cap_and_every_flag() -> None:
    from engine.checks.base import CheckResult, FlagOut

    base = CheckResult(caps={"clinical": 0.3}, flags=[FlagOut(category="x", text="t", start=0,
                                                              end=1)])
    extra = follow_checks("protocol", "draft", PASTED, ELEVATOR)
    merged = merge(base, extra)
    assert merged.caps["clinical"] == 0.3 and len(merged.flags) == 1 + len(extra.flags)


def test_the_same_kpi_sentence_in_two_messages_is_flagged_in_each_place() -> None:
    from engine.checks.campaign_consistency import campaign_findings

    text = ("# Outreach\n\n## @a\n\n### Email\n\nHi A!\n\nOur goal is 300 sign-ups.\n\n"
            "## @b\n\n### Email\n\nHi B!\n\nOur goal is 300 sign-ups.\n")
    flags = [f for f in campaign_findings("outreach", text, {"goal": "Get 300 sign-ups"}, {})
             if f.category == "kpi_in_message"]
    assert len(flags) == 2 and flags[0].start < text.index("## @b") < flags[1].start
    assert all(text[f.start:f.end] == "Our goal is 300 sign-ups." for f in flags)
