"""The offline drafters answer what was asked (issue 14 item 4): the technique a request names
is the one drafted; an exposure ladder has the feared situation on its rungs; urges to
self-harm get an urge delay and a safety plan; rumination steps name the event; simple
feedback ("add a step about X", "mention Y", "offer Z", "make it specific to W") is applied,
and a comment that cannot be is reported under "Open points" instead of being dropped; a
campaign promotes the product its goal names. Cases: tests/data/offline_requests.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from db.session import session_scope
from engine import service, views
from engine.checks.safety import screen_protocol
from engine.llm.offline.backend import OfflineBackend
from engine.llm.offline.campaign.brief import draft_brief
from engine.llm.offline.campaign.outreach import draft_outreach
from engine.llm.offline.protocol import library as lib
from engine.llm.offline.protocol.drafter import draft_protocol
from engine.loop.leases import claim_run
from engine.loop.supervisor import Supervisor
from engine.pipelines.base import DraftTask
from engine.pipelines.campaign.brands import list_brands
from engine.pipelines.campaign.spec import CAMPAIGN
from engine.pipelines.campaign.text import render_brief, render_outreach_draft
from engine.pipelines.protocol.models import ProtocolDraft
from engine.pipelines.protocol.text import render_protocol

CASES = json.loads((Path(__file__).parent / "data" / "offline_requests.json").read_text())
SETS = ("development", "held_out")


def _cases(kind: str) -> list[Any]:
    return [pytest.param(*c, id=f"{s}:{c[0] if kind != 'campaign' else c[1]}"[:70])
            for s in SETS for c in CASES[s][kind]]


def _draft(intent: str, previous: str | None = None,
           feedback: list[str] | None = None) -> tuple[ProtocolDraft, str]:
    d = draft_protocol(DraftTask(kind="protocol", stage="draft",
                                 input={"intent": intent, "audience": "adults"},
                                 iteration=2 if previous else 1, previous=previous,
                                 feedback=feedback or []))
    return d, render_protocol(d)


def _steps_with(d: ProtocolDraft, word: str) -> int:
    return sum(word.lower() in s.lower() for s in d.steps)


@pytest.mark.parametrize(("intent", "technique", "words"), _cases("technique"))
def test_the_named_technique_is_drafted_around_the_feared_situation(
        intent: str, technique: str, words: list[str]) -> None:
    d, text = _draft(intent)
    assert lib.TEMPLATES[technique]["title"].lower() in d.title.lower()
    for w in words:  # the feared thing on the ladder's rungs, not pasted in one sentence
        assert _steps_with(d, w) >= 3, d.steps
    assert not screen_protocol(text).flags


@pytest.mark.parametrize("intent", [p.values[0] for p in _cases("urges")])
def test_urges_to_self_harm_get_an_urge_delay_and_a_safety_plan(intent: str) -> None:
    d, text = _draft(intent)
    steps = " ".join(d.steps).lower()
    assert "urge" in steps and "wait" in steps and "minutes" in steps
    assert "safety plan" in text.lower()
    assert not screen_protocol(text).flags


@pytest.mark.parametrize(("intent", "words"), _cases("rumination"))
def test_rumination_steps_name_the_event(intent: str, words: list[str]) -> None:
    d, text = _draft(intent)
    for w in words:
        assert _steps_with(d, w) >= 2, d.steps
    assert not screen_protocol(text).flags


@pytest.mark.parametrize(("intent", "comment", "words"), _cases("feedback"))
def test_feedback_is_applied_or_reported(intent: str, comment: str, words: list[str]) -> None:
    _, first = _draft(intent)
    _, revised = _draft(intent, previous=first, feedback=[comment])
    assert revised != first
    if words == ["NOTE"]:
        assert f'Not applied: "{comment}"' in revised.split("## Open points")[1]
    else:
        for w in words:
            assert w.lower() in revised.lower()
        assert "## Open points" not in revised
        assert not screen_protocol(revised).flags


def test_a_later_comment_overrules_an_earlier_one_and_nothing_is_applied_twice() -> None:
    intent = "Help a university student manage exam panic"
    _, first = _draft(intent, feedback=["Add a step about journaling"])
    assert "journal" in first.lower()
    comments = ["Add a step about journaling", "Remove the journal step",
                "Title it 'Calm plan'", "Add a step about calling a friend after the exam"]
    _, second = _draft(intent, previous=first, feedback=comments)
    _, third = _draft(intent, previous=second, feedback=comments)
    assert second.startswith("# Calm plan") and "journal" not in second.lower()
    assert second.lower().count("call a friend after the exam") == 1
    assert third == second  # applying the same comments again changes nothing


@pytest.mark.parametrize(("brand", "goal", "product"), _cases("campaign"))
def test_the_campaign_promotes_the_product_its_goal_names(
        db_url: str, brand: str, goal: str, product: str) -> None:
    b = next(x for x in list_brands() if x.name == brand)
    run_input = {"brand_id": b.id, "brand_name": b.name, "goal": goal, "audience": "locals",
                 "budget": 3000, "channels": ["email", "sms"], "num_creators": 1}
    with session_scope() as s:
        ctx = CAMPAIGN.context_for_review(s, run_input, "brief")
    brief = render_brief(draft_brief(DraftTask(kind="campaign", stage="brief",
                                               input=run_input, iteration=1, context=ctx)))
    creator = {"handle": "@maya", "name": "Maya Cohen", "platform": "instagram",
               "niche": "food", "location": "Rehovot", "fee_usd": 300}
    outreach = render_outreach_draft(draft_outreach(DraftTask(
        kind="campaign", stage="outreach", input=run_input, iteration=1,
        context=ctx | {"shortlist": [creator]})))
    key_messages = brief.split("## Key messages")[1].split("##")[0]
    deliverables = brief.split("## Deliverables")[1].split("##")[0]
    assert product.lower() in key_messages.lower()
    assert product.lower() in deliverables.lower()
    assert outreach.lower().count(product.lower()) >= 2


def test_a_comment_the_drafter_cannot_apply_shows_in_the_run(db_url: str) -> None:
    """End to end: the revision is a new text that says what it did not do, and the loop
    still scores it like any other draft."""
    run_id = service.start_run(kind="protocol", actor="dr. lee", input={
        "intent": "Exposure hierarchy for a man afraid of elevators", "audience": "adults"})
    assert claim_run(run_id, "w")
    Supervisor(OfflineBackend(), "w").run_until_idle(run_id)
    d = views.get_run(run_id)
    first = d.current.content  # type: ignore[union-attr]
    assert sum("elevator" in line.lower() for line in first.splitlines()
               if line[:2].strip().rstrip(".").isdigit()) >= 5
    service.request_revision(run_id=run_id, actor="dr. lee", expected_version=d.version,
                             comment="Add a step about riding one floor in an elevator with a "
                                     "friend. Also translate it into Klingon")
    assert claim_run(run_id, "w")
    Supervisor(OfflineBackend(), "w").run_until_idle(run_id)
    d = views.get_run(run_id)
    text = d.current.content  # type: ignore[union-attr]
    assert text != first
    assert "Ride one floor in an elevator with a friend." in text
    assert 'Not applied: "Also translate it into Klingon"' in text
    # Half done is not done: the comment stays "not addressed" and the run does not report
    # "thresholds met" over it (it stops as stalled when another try changes nothing).
    assert d.current.not_addressed == [  # type: ignore[union-attr]
        "Add a step about riding one floor in an elevator with a friend. Also translate it "
        "into Klingon"]
    assert d.halt_reason != "thresholds_met"


def test_outreach_offers_the_fee_a_person_names_and_mentions_read_as_sentences(
        db_url: str) -> None:
    b = next(x for x in list_brands() if x.name == "Lumen Skin")
    run_input = {"brand_id": b.id, "brand_name": b.name, "goal": "Grow our skincare club",
                 "audience": "locals", "budget": 3000, "channels": ["email", "sms"],
                 "num_creators": 2}
    with session_scope() as s:
        ctx = CAMPAIGN.context_for_review(s, run_input, "outreach")
    shortlist = [{"handle": "@dr.vogel", "name": "Dr. Lena Vogel", "platform": "instagram",
                  "niche": "dermatology", "location": "Berlin", "fee_usd": 420},
                 {"handle": "@maya", "name": "Maya Cohen", "platform": "tiktok",
                  "niche": "skincare", "location": "Haifa", "fee_usd": 300}]

    def draft(previous: str | None, feedback: list[str]) -> str:
        return render_outreach_draft(draft_outreach(DraftTask(
            kind="campaign", stage="outreach", input=run_input, iteration=2 if previous else 1,
            previous=previous, context=ctx | {"shortlist": shortlist, "feedback": feedback})))

    first = draft(None, [])
    revised = draft(first, ["Offer Dr. Vogel her usual fee of 1800 dollars",
                            "Mention that the cream is fragrance-free"])
    vogel = revised.split("## @dr.vogel")[1].split("## @maya")[0]
    maya = revised.split("## @maya")[1]
    assert "$1,800" in vogel and "$420" not in vogel
    assert "$1,800" not in maya  # only the creator named gets the fee
    assert "The cream is fragrance-free." in vogel and "That the cream" not in revised


def test_a_feared_outcome_is_not_made_into_a_ladder_but_a_feared_place_is() -> None:
    d, _ = _draft("I'm scared of losing my job")
    assert not any("losing your job" in s for s in d.steps)  # a worry, not a place to approach
    d, _ = _draft("Graded exposure for social anxiety at work meetings")
    assert _steps_with(d, "work meetings") >= 3
