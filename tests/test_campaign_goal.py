"""Issue 14 items 3-4 for campaigns: the goal is read the same way by the drafters and the
checks (engine/pipelines/campaign/goal.py), every number it counts and every month it names
(written with "%", thousands separators, "k", spans and lists of months), and a fee in a
creator message is not the goal's count leaking. On the offline backend and with a scripted
model (the fake OpenAI server) whose brief leaves the goal's dates out."""

from __future__ import annotations

from typing import Any

import pytest

from engine import service, views
from engine.checks.campaign_consistency import campaign_findings
from engine.pipelines.campaign.goal import goal_months, goal_targets, goal_window
from testkit.fake_openai import example_from_schema, find_schema, running
from tests.test_follow_binding import _drive, _use
from tools import evaluate_fresh as fresh


@pytest.mark.parametrize(("goal", "values", "months", "window"), [
    ("Sell 2,500 tins of the winter blend and lift repeat orders to 40% by the end of March",
     ["2500", "40"], ["March"], "by the end of March"),
    ("Get 75 new members and a 12% trial-to-paid rate over September\u2013November",
     ["75", "12"], ["September", "November"], "from September to November"),
    ("Launch the cocoa scrub with 3 creators over 6 weeks and sell 600 jars, july + aug",
     ["600"], ["July", "August"], "in July and August"),
    ("Book 150 tables between 3 and 24 December 2026", ["150"], ["December"], "in December"),
    ("Reach 50k followers so customers may come back", ["50000"], [], None),
    ("Introduce the No. 7 hand balm to gardeners; goal: 1,200 orders before 1 May",
     ["1200"], ["May"], "before 1 May"),
    ("Double weekday covers from 120 to 240 by mid-March with 2 local food bloggers",
     ["240"], ["March"], "by mid-March"),
    ("Get 500+ followers for women over 40; top 3 in local search", ["500"], [], None),
])
def test_the_goal_gives_every_count_and_month(goal: str, values: list[str], months: list[str],
                                              window: str | None) -> None:
    assert [t.value for t in goal_targets(goal)] == values
    assert goal_months(goal) == months
    assert goal_window(goal) == window


def test_a_target_keeps_what_it_counts_as_the_goal_writes_it() -> None:
    got = goal_targets("Drive 1,800 sample requests and 25% of them to a full-size order in Q3")
    assert [t.phrase for t in got] == ["1,800 sample requests", "25% of them to a full-size order"]
    assert goal_targets("Promote our mineral SPF 50 to surfers; 900 units") [0].value == "900"
    assert [t.value for t in goal_targets("Promote our mineral SPF 50 to surfers")] == []


BRIEF = """# Campaign brief: Stride Lab

## Key messages

- The trail socks: dry feet on wet fells

## Deliverables

- 2 creators, each with one reel featuring the trail socks

## Timeline

{timeline}

## Success metrics

{metrics}
"""
GOAL = {"goal": "Promote the trail socks from July to September; target 2,500 pairs and 12% "
                "repeat buyers", "brand_name": "Stride Lab", "num_creators": 2, "budget": 2000}


def _cats(text: str, stage: str = "brief", goal: dict[str, Any] = GOAL) -> list[str]:
    return sorted(f.category for f in campaign_findings(stage, text, goal, {}))


def test_the_brief_must_carry_every_month_and_count_of_the_goal() -> None:
    good = BRIEF.format(timeline="- Jul: outreach\n- Aug-Sept: posts live",
                        metrics="- Pairs: 2,500\n- Repeat buyers: 12%")
    assert _cats(good) == []
    only_july = BRIEF.format(timeline="- July: outreach and posts",
                             metrics="- Pairs: 2,500\n- Repeat buyers: 12%")
    assert _cats(only_july) == ["timeline_mismatch"]
    no_share = BRIEF.format(timeline="- July to September: posts",
                            metrics="- Pairs: 2,500\n- Engagement rate: 3.5%")
    assert _cats(no_share) == ["metric_mismatch"]


OUTREACH = """# Outreach messages: Alma Cafe

## @maya.brews · Maya Levi

### WhatsApp

Hi Maya! {body} Interested? Reply and we'll send the details.
"""
CROISSANT = {"goal": "Launch the pistachio croissant; aim for 250 preorders",
             "brand_name": "Alma Cafe", "num_creators": 2, "budget": 600}


def test_a_fee_equal_to_the_goals_count_is_no_kpi_in_the_message() -> None:
    fee = OUTREACH.format(body="We'd like to pay you **$250** for a reel about our pistachio "
                               "croissant.")
    assert "kpi_in_message" not in _cats(fee, "outreach", CROISSANT)  # nor "roi" in croissant
    leak = OUTREACH.format(body="We'd love 250 preorders of our pistachio croissant from it.")
    assert "kpi_in_message" in _cats(leak, "outreach", CROISSANT)
    money = {"goal": "Promote the pistachio croissant to reach $5,000 in sales",
             "brand_name": "Alma Cafe"}
    said = OUTREACH.format(body="Help us reach $5,000 with our pistachio croissant.")
    assert "kpi_in_message" in _cats(said, "outreach", money)  # the goal counts that money
    assert "kpi_in_message" not in _cats(fee, "outreach", money)


def test_a_number_in_the_products_name_is_no_kpi() -> None:
    goal = {"goal": "Promote our mineral SPF 50 to surfers in June; 900 units",
            "brand_name": "Lumen Skin"}
    text = OUTREACH.format(body="We're getting the word out about our mineral SPF 50.")
    assert "kpi_in_message" not in _cats(text, "outreach", goal)


@pytest.mark.parametrize("case", [
    {"brand": "Stride Lab", "goal": "Get runners into the Saturday run club: 60 new regulars "
     "and a 25% return rate, March through May", "product": "saturday run club",
     "numbers": ["60", "25%"], "dates": ["March", "May"]},
    {"brand": "Lumen Skin", "goal": "Introduce the barrier repair cream to cyclists; we want "
     "1,500 orders and 8,000 page views, nov + dec", "product": "barrier repair cream",
     "numbers": ["1,500", "8,000"], "dates": ["November", "December"]},
    {"brand": "Alma Cafe", "goal": "Sell the sourdough pastry box to 40% of our office "
     "customers by the end of February", "product": "sourdough pastry box",
     "numbers": ["40%"], "dates": ["February"]},
])
def test_offline_campaign_carries_the_goals_dates_and_counts(
        db_url: str, case: dict[str, Any]) -> None:
    got = fresh.campaign_case(case | {"channels": ["email", "instagram_dm"], "budget": 2400,
                                      "num_creators": 2})
    assert got["right"], got["why"]
    assert not got["flagged"], got["flagged"]


class UndatedBrief:
    """A model whose brief keeps to the product and the count but dates only the campaign's
    first month (every other answer is the schema's example)."""

    def __init__(self, timeline: list[str]) -> None:
        self.timeline = timeline

    def __call__(self, request: dict[str, Any]) -> dict[str, Any] | None:
        schema = find_schema(request)
        if not schema or "timeline" not in schema.get("properties", {}):
            return None
        return example_from_schema(schema) | {  # type: ignore[no-any-return]
            "key_messages": ["The trail shoe range: grip for wet fells"],
            "deliverables": ["2 creators, each with one reel featuring the trail shoe range"],
            "timeline": self.timeline, "success_metrics": ["Pairs sold: 200"],
            "open_points": []}


@pytest.mark.parametrize(("timeline", "flagged"), [
    (["September: creators contacted", "September: posts live"], True),
    (["September: creators contacted", "October: posts live"], False),
])
def test_a_scripted_model_leaving_a_month_out_is_flagged(
        db_url: str, monkeypatch: pytest.MonkeyPatch, timeline: list[str], flagged: bool) -> None:
    case = {"brand": "Stride Lab", "goal": "Launch the trail shoe range, september + october, "
            "200 pairs sold", "channels": ["email"], "budget": 3000, "num_creators": 2}
    with running(responder=UndatedBrief(timeline)) as server:
        _use(monkeypatch, server.url)
        run_id = service.start_run(kind="campaign", actor="mia",
                                   input=fresh._campaign_input(case))
        d = _drive(run_id, configured=True)
    assert d.current.stage == "brief"  # type: ignore[union-attr]
    cats = {f.category for f in d.current.flags if f.check == "campaign_consistency"}  # type: ignore[union-attr]
    assert ("timeline_mismatch" in cats) is flagged
    assert "metric_mismatch" not in cats
    if flagged:
        assert d.halt_reason != "thresholds_met"
        assert views.get_run(run_id).current.scores["completion"] <= 0.5  # type: ignore[union-attr]


def test_a_number_in_a_brand_products_name_is_no_target(db_url: str) -> None:
    goal = "Tempo 3 trainers: 500 pairs by the end of June, $60k revenue"
    assert [t.value for t in goal_targets(goal, ["Tempo 3 trainers"])] == ["500", "60000"]
    got = fresh.campaign_case({"brand": "Stride Lab", "goal": goal, "channels": ["instagram_dm"],
                               "budget": 5000, "num_creators": 3, "product": "tempo 3 trainers",
                               "numbers": ["500", "$60k"], "dates": ["June"]})
    assert not got["flagged"], got["flagged"]  # "our Tempo 3 trainers" leaks no count
    assert got["right"], got["why"]  # nor does the evaluator count the product's "3"


def test_a_small_budget_offers_no_fee_above_the_per_creator_share(db_url: str) -> None:
    """$900 for 2 creators is $315 each: rounded to tens the offer was $320, and its own
    check flagged it as over the budget."""
    got = fresh.campaign_case({"brand": "Stride Lab", "budget": 900, "num_creators": 2,
                               "goal": "Get 40 runners to sign up for the 10k training plan "
                                       "by 1 March", "channels": ["email", "sms"],
                               "product": "10k training plan", "numbers": ["40"],
                               "dates": ["March"]})
    assert got["right"], got["why"]
    assert not got["flagged"], got["flagged"]



@pytest.mark.parametrize(("goal", "product"), [
    ("push the sourdough pastry box as a holiday gift, sell 200 boxes in September",
     "sourdough pastry box"),  # not "boxes": what it pushes, before what it counts
    ("new product: a soothing overnight mask. want 1 creator to review it",
     "soothing overnight mask"),
    ("summer push for mineral SPF 30 with sensitive-skin creators", None),  # "push for": no object
])
def test_the_product_a_goal_pushes_or_announces(goal: str, product: str | None) -> None:
    from engine.pipelines.campaign.goal import goal_product

    assert goal_product(goal) == product
