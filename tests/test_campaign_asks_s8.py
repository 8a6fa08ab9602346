"""Issue 14 items 3-4, campaign side (session 8): the goal's product and counts read from more
ways of saying them, outreach comments the offline drafter now applies (a creator named by
their place and any noun, facts said beside an ask or pointed back to, the wording legal asks
for), and the feedback check reading "put that in the messages" as the sentence before it.
Phrasings here are new: none is a development case's words."""

from __future__ import annotations

import json
from datetime import UTC

import pytest

from engine import service, views
from engine.checks.feedback_coverage import Comment, feedback_findings
from engine.llm.offline.campaign.common import mentions_in, said_as_sentence
from engine.pipelines.campaign.goal import goal_product, goal_targets
from engine.pipelines.campaign.requests import fee_ask
from tests.test_campaign_open_points import detail, latest
from tests.test_follow_binding import _drive
from tests.test_follow_loop import cli


@pytest.mark.parametrize(("goal", "product"), [
    ("We're introducing a cherry-blossom face oil for spring gifting", "cherry-blossom face oil"),
    ("Brand is launching an oat flapjack range with gym creators", "oat flapjack range"),
    ("new drop: smoked chilli hot sauce. want 300 bottles sold", "smoked chilli hot sauce"),
    ("Book out the tasting menu seats every Thursday", "tasting menu"),
    ("fill the friday pizza night tables with students", "friday pizza night"),
    ("Launch our folding picnic tables for summer", "folding picnic tables"),  # the product
    ("New trail running vest, ultra runners to test it in June", "trail running vest"),
    ("Honey oat granola launch for busy parents", "honey oat granola"),
    ("Spring launch of the linen sun hat", "linen sun hat"),
    ("Launch for new mums: the night feed lamp", None),  # no object after the verb
])
def test_the_goal_names_its_product_in_more_ways(goal: str, product: str | None) -> None:
    assert goal_product(goal) == product


@pytest.mark.parametrize(("goal", "values", "phrases"), [
    ("Grow the book club from 25 to 90 members by June", ["90"], ["from 25 to 90 members"]),
    ("Take the choir from 12 singers to 30 this autumn", ["30"], ["from 12 singers to 30"]),
    ("Launch the linen apron range in May, goal 1900 orders", ["1900"], ["1900 orders"]),
    ("Reach 2000 subscribers by April", ["2000"], ["2000 subscribers"]),
    ("Sell 300 candles in 2026", ["300"], ["300 candles"]),  # a year is no count
])
def test_a_starting_count_and_a_round_count_are_read(goal: str, values: list[str],
                                                     phrases: list[str]) -> None:
    got = goal_targets(goal)
    assert [t.value for t in got] == values
    assert [t.phrase for t in got] == phrases


CREATORS = [("@a.one", "Ana Ruiz"), ("@b.two", "Ben Ode"), ("@c.three", "Cy Park")]


@pytest.mark.parametrize(("comment", "handles", "amount"), [
    ("the second nurse is underpaid, make it 750 USD", ["@b.two"], 750),
    ("Give the first coach 1200 dollars, she trains pros", ["@a.one"], 1200),
    ("last fee should be 640", ["@c.three"], 640),
])
def test_a_creator_is_named_by_place_and_any_noun(comment: str, handles: list[str],
                                                  amount: int) -> None:
    ask = fee_ask(comment, CREATORS)
    assert ask is not None and ask.handles == handles and ask.amount == amount


def test_a_place_before_a_time_word_names_no_creator() -> None:
    assert fee_ask("pay $500 in the first week", CREATORS[:2]) is None


@pytest.mark.parametrize(("comment", "lines"), [
    ("Tell them the first class is free. Also, parking is behind the studio.",
     ["The first class is free.", "Parking is behind the studio."]),
    ("Name the roast: it's a dark Sumatra. Stick that in every DM.",
     ["The roast is a dark Sumatra."]),
    ("The pop-up runs Friday to Sunday. Add that to each message.",
     ["The pop-up runs Friday to Sunday."]),
    ("Stick the voucher code BAKE20 in all the messages",
     ["There's also the voucher code BAKE20."]),
    ("Compliance won't let us say 'heals'; use 'calms' instead, and add 'vegan formula'.",
     ["On wording, please say 'calms' and 'vegan formula', never 'heals'."]),
    ("we shouldn't mention the price", []),
])
def test_what_a_comment_asks_to_say_is_said(comment: str, lines: list[str]) -> None:
    assert [said_as_sentence(m, True) for m in mentions_in([comment])] == lines


BEFORE = """# Outreach messages: Alma Cafe

## @maya.brews · Maya Levi

### WhatsApp

Hi Maya! We'd like to offer you a fee of **$250** for one reel about our cold brew.
"""


def test_put_that_in_the_messages_asks_for_the_sentence_before_it() -> None:
    comment = "Name the roast: it's a dark Sumatra. Put that in the messages."
    said = BEFORE.replace("cold brew.", "cold brew. The roast is a dark Sumatra.")
    other = BEFORE.replace("cold brew.", "cold brew. We love your posts.")
    c = [Comment(text=comment, before=BEFORE)]
    assert not feedback_findings("campaign", said, BEFORE, c)
    assert [f.category for f in feedback_findings("campaign", other, BEFORE, c)] == \
        ["not_addressed"]


DONUTS = {"brand_id": 1, "brand_name": "Alma Cafe", "audience": "local families",
          "goal": "Fill the Sunday pancake brunch tables", "budget": 900,
          "channels": ["whatsapp"], "num_creators": 1}


def test_a_fact_beside_an_ask_reaches_every_message_and_counts_as_answered(
        db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, "run", "campaign", "--input-json", json.dumps(DONUTS))
    cli(capsys, "approve", "1")
    cli(capsys, "approve", "1")
    first = latest(detail(capsys))["content"]
    assert first.count("Sunday pancake brunch") >= 2, first  # the offer, not its tables
    cli(capsys, "revise", "1", "--comment",
        "Say the kids eat free before 10am. And we're at 4 Bialik Street.")
    outreach = latest(detail(capsys))
    body = outreach["content"]
    assert "The kids eat free before 10am." in body, body
    assert "We're at 4 Bialik Street." in body, body
    assert not [f for f in outreach["flags"] if f["category"] == "not_addressed"]


def test_naming_the_product_of_a_short_goal_is_no_pasted_goal() -> None:
    """A goal that is little more than its product ("Rye sourdough loaf for commuters"): a
    message about "our rye sourdough loaf" names the product; it neither pastes the goal (no
    internal KPI) nor promotes something else (no off-product flag)."""
    from engine.checks.campaign_consistency import campaign_findings

    outreach = ("# Outreach messages: Alma Cafe\n\n## @maya.brews · Maya Levi\n\n### SMS\n\n"
                "Hi Maya! Would you post one reel about our rye sourdough loaf for commuters "
                "for $180? It's a paid partnership (#ad).\n")
    context = {"brand": {"products": ["rye sourdough loaf", "oat-milk latte"]}}
    found = campaign_findings("outreach", outreach,
                              {"goal": "Rye sourdough loaf for commuters"}, context)
    assert not [f.category for f in found if f.category in ("off_product", "kpi_in_message")]
    # A message that pastes a longer goal is still caught.
    pasted = outreach.replace("our rye sourdough loaf for commuters",
                              "how we get commuters at the station to buy the rye sourdough "
                              "loaf every morning,")
    found = campaign_findings("outreach", pasted, {
        "goal": "Get commuters at the station to buy the rye sourdough loaf every morning"},
        context)
    assert "kpi_in_message" in [f.category for f in found]


def test_an_ask_without_a_rule_beside_an_applied_one_is_reported_on_its_own(
        db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Item 2: "thresholds met" is never reported over an unanswered comment, and a comment
    the drafter applied only in part says which part it left."""
    cli(capsys, "run", "campaign", "--input-json", json.dumps(DONUTS))
    cli(capsys, "approve", "1")
    cli(capsys, "approve", "1")
    cli(capsys, "revise", "1", "--comment",
        "Add a line about the free parking. Also push the kickoff call to Thursday.")
    outreach = latest(detail(capsys))
    body = outreach["content"]
    assert "free parking" in body.split("## Open points")[0], body
    assert 'Not applied: "Also push the kickoff call to Thursday."' in body, body
    assert [f for f in outreach["flags"] if f["category"] == "not_addressed"]
    assert detail(capsys)["halt_reason"] != "thresholds_met"


def test_a_brief_comment_of_two_asks_lists_the_one_it_cannot_apply() -> None:
    from engine.llm.offline.campaign.common import unhandled_feedback
    from engine.pipelines.base import DraftTask

    task = DraftTask(kind="campaign", stage="brief", input={}, iteration=2, feedback=[
        "Mention the loyalty card. Also move the launch to the first week of May."])
    assert unhandled_feedback(task) == ["Also move the launch to the first week of May."]


def test_the_checks_count_a_campaigns_dates_from_the_runs_first_day(db_url: str) -> None:
    """The follow checks' context carries the run's creation day as "today" (the drafters
    count from it too), so a run reviewed weeks later is judged against its own dates."""
    from datetime import datetime

    from sqlalchemy import update

    from db.models import Run
    from db.session import get_engine
    from engine.follow_context import load_follow

    run_id = service.start_run(kind="campaign", actor="t", input=DONUTS)
    _drive(run_id)
    draft_id = views.get_run(run_id).current.id  # type: ignore[union-attr]
    with get_engine().begin() as c:
        c.execute(update(Run).where(Run.id == run_id)  # type: ignore[arg-type]
                  .values(created_at=datetime(2026, 1, 5, 9, 30, tzinfo=UTC)))
        got = load_follow(c, run_id=run_id, draft_id=draft_id, kind="campaign",
                          critics=set(), brand_id=1)
    assert got.context["today"] == "2026-01-05"


def test_a_goal_that_names_its_months_has_its_posts_in_them() -> None:
    """"... in February": the brief's posting weeks, the creators' dates and the results fall
    in and after February (not in the weeks after the brief, with "by February" at the end);
    a deadline ("by the end of February") still runs from the first week on."""
    from datetime import date

    from engine.llm.offline.campaign.brief import draft_brief
    from engine.pipelines.base import DraftTask
    from engine.pipelines.campaign.schedule import phases, posts_window, results_label

    start = date(2026, 11, 24)
    goal = "Open rooftop terrace bookings in February, 90 tables"
    assert phases(goal, start)[:3] == ("Week 1", "Week 9", "Weeks 10-14")
    assert posts_window(goal, start) == "between 1 February and 28 February"
    assert results_label(goal, start) == "after 28 February"
    two = "Run the apple-picking promo from September to October"
    assert posts_window(two, start) == "between 1 September and 31 October"
    deadline = "Bake sale push by the end of February"
    assert phases(deadline, start).posts == "Weeks 3-13"
    assert results_label(deadline, start) == "by 28 February 2027"
    brief = draft_brief(DraftTask(kind="campaign", stage="brief", iteration=1, input={
        "goal": goal, "budget": 2000, "num_creators": 2, "channels": ["email"],
        "audience": "couples in town"}, context={"today": start.isoformat()}))
    assert "Weeks 10-14: posts go live, staggered across creators" in brief.timeline
    assert brief.timeline[-1].startswith("Week 15 (after 28 February)")


def test_a_formal_dm_reads_as_one_sentence_and_names_platforms_as_they_do(db_url: str) -> None:
    """Seen reading a run as a user: "Hi Anna, We are Lumen Skin" and "your Tiktok posts"."""
    from engine.pipelines.campaign.brands import list_brands

    lumen = next(b for b in list_brands() if b.name == "Lumen Skin")
    run_id = service.start_run(kind="campaign", actor="t", input={
        "brand_id": lumen.id, "brand_name": lumen.name, "audience": "people with dry skin",
        "goal": "Introduce the barrier repair cream to runners", "budget": 3000,
        "channels": ["instagram_dm"], "num_creators": 3})
    _drive(run_id)
    for _ in range(2):
        d = views.get_run(run_id)
        service.approve(run_id=run_id, actor="t", expected_version=d.version)
        _drive(run_id)
    text = views.get_run(run_id).current.content  # type: ignore[union-attr]
    assert "TikTok posts" in text, text
    assert "Tiktok" not in text and ", We are" not in text, text
    assert ", we are Lumen Skin in Berlin." in text, text


def test_a_plan_comment_the_offline_drafter_cannot_apply_says_so(
        db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Item 2 on the last stage: the offline plan is assembled from the approved stages, so a
    comment on it comes back under Open points, not as the same text reported as done."""
    cli(capsys, "run", "campaign", "--input-json", json.dumps(DONUTS))
    for _ in range(3):
        cli(capsys, "approve", "1")
    cli(capsys, "revise", "1", "--comment", "Put the second wave of posts a week earlier.")
    plan = latest(detail(capsys))
    assert plan["stage"] == "plan"
    assert 'Not applied: "Put the second wave of posts a week earlier."' in plan["content"]
    assert [f for f in plan["flags"] if f["category"] == "not_addressed"]
    assert detail(capsys)["halt_reason"] != "thresholds_met"
