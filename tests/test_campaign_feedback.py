"""Issue 14 items 3-4 for campaigns: a reviewer's comment on the outreach messages is applied
by the offline drafter when it can be (a fee within the budget rules, a fact for every message,
a sign-off), listed under "Open points" with why when it cannot, and the feedback-coverage
check reads fee and sign-off comments off the messages themselves, so a fee put on the wrong
creator or a model that ignores the comment is "not addressed" and never "thresholds met"."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from engine import views
from engine.checks.campaign_consistency import campaign_findings
from engine.checks.feedback_coverage import Comment, feedback_findings
from engine.llm.offline.campaign.common import mentions_in
from engine.pipelines.campaign.requests import fee_ask, is_fee_comment, other_form, sign_off
from testkit.fake_openai import example_from_schema, find_schema, running
from tests.test_campaign_open_points import detail, latest, open_points, to_outreach
from tests.test_follow_loop import cli, use_fake_server
from tools import evaluate_fresh as fresh

CREATORS = [("@maya.brews", "Maya Levi"), ("@labcoat.latte", "Dr. Amir Haddad"),
            ("@derm.notes.de", "Dr. Lena Vogel")]


@pytest.mark.parametrize(("comment", "handles", "amount", "change"), [
    ("Can the second creator get $720? He has the bigger following.", ["@labcoat.latte"], 720,
     "set"),
    ("Make Amir's fee 900 USD", ["@labcoat.latte"], 900, "set"),
    ("@derm.notes.de asked for 1.1k, fine by me, pay it", ["@derm.notes.de"], 1100, "set"),
    ("Up Maya's fee by $75", ["@maya.brews"], 75, "raise"),
    ("the last creator's rate is too high, lower it by 50 dollars", ["@derm.notes.de"], 50,
     "lower"),
    ("Offer both of them $400", [h for h, _ in CREATORS], 400, "set"),
    ("Cap every fee at $350", [h for h, _ in CREATORS], 350, "set"),
    ("Can we go to $700 for the top creator?", ["@maya.brews"], 700, "set"),
    ("lead creator gets 900 USD flat", ["@maya.brews"], 900, "set"),
])
def test_a_fee_comment_is_read_for_its_creator_and_amount(
        comment: str, handles: list[str], amount: int, change: str) -> None:
    ask = fee_ask(comment, CREATORS)
    assert ask is not None and (ask.handles, ask.amount, ask.change) == (handles, amount, change)


@pytest.mark.parametrize("comment", [
    "Mention that the pastry box costs $25",  # a price to say, not a fee
    "Add the 20% discount code ALMA20",
    "Offer Sarah $500",  # no such creator on the shortlist
    "Say we offer 20% off to the first creator's followers",  # what the brand offers readers
])
def test_what_is_no_fee_for_a_shortlisted_creator(comment: str) -> None:
    assert fee_ask(comment, CREATORS) is None
    assert is_fee_comment(comment) == comment.startswith("Offer Sarah")


def test_a_fee_for_her_is_the_only_creators_fee() -> None:
    ask = fee_ask("Offer her $500, she asked for it", CREATORS[:1])
    assert ask is not None and ask.handles == ["@maya.brews"]
    assert fee_ask("Offer her $500, she asked for it", CREATORS) is None  # which "her"?


@pytest.mark.parametrize(("comment", "said"), [
    ("Include the booking link alma.cafe/brunch", ["the booking link alma.cafe/brunch"]),
    ("Make sure they know we're closed on Mondays", ["we're closed on Mondays"]),
    ("Don't mention the price, just the free tasting", []),
    ("mention the discount code ALMA15 in every message", ["the discount code ALMA15"]),
])
def test_what_a_comment_asks_the_messages_to_say(comment: str, said: list[str]) -> None:
    assert mentions_in([comment]) == said


def test_a_sign_off_and_a_form_no_text_can_take() -> None:
    assert sign_off("Please sign these from Dr. Tal Cohen, our clinic lead") == (
        "Dr. Tal Cohen", "clinic lead")
    assert sign_off("sign-off should be Yossi (store manager)") == ("Yossi", "store manager")
    assert sign_off("sign them from the whole team") is None
    assert other_form("Send each of them a voice note instead")
    assert other_form("Could you translate the messages into Spanish?")
    assert not other_form("Mention the video we posted last week")


OUTREACH = """# Outreach messages: Alma Cafe

## @maya.brews · Maya Levi

### Email

Hi Maya, we'd pay {a} for one reel about our oat-milk latte. {sign}

## @labcoat.latte · Dr. Amir Haddad

### Email

Hi Amir, we'd pay {b} for one reel about our oat-milk latte. The Alma Cafe team
"""


def _missed(comment: str, before: str, after: str) -> list[str]:
    return [f.text for f in feedback_findings("campaign", after, before, [Comment(text=comment)])]


def test_the_check_reads_a_fee_off_the_creators_own_message() -> None:
    before = OUTREACH.format(a="$300", b="$300", sign="The Alma Cafe team")
    comment = "Offer the first creator $650 instead"
    wrong = OUTREACH.format(a="$300", b="$650", sign="The Alma Cafe team")
    assert _missed(comment, before, wrong) == [comment]  # the amount is there, on Amir
    right = OUTREACH.format(a="$650", b="$300", sign="The Alma Cafe team")
    assert _missed(comment, before, right) == []
    raised = "Raise Amir's fee by $100"
    assert _missed(raised, before, OUTREACH.format(a="$300", b="$400",
                                                   sign="The Alma Cafe team")) == []
    assert _missed(raised, before, OUTREACH.format(a="$400", b="$300",
                                                   sign="The Alma Cafe team")) == [raised]


def test_a_comment_listed_as_not_applied_is_not_answered_by_other_changes() -> None:
    before = OUTREACH.format(a="$300", b="$300", sign="The Alma Cafe team")
    comment = "Don't mention the price anywhere"
    after = (OUTREACH.format(a="$300", b="$300", sign="Cheers, the Alma Cafe team")
             + f'\n## Open points\n\n- Not applied: "{comment}" (no rule for this).\n')
    assert _missed(comment, before, after) == [comment]


def test_the_check_wants_the_sign_off_in_every_message() -> None:
    before = OUTREACH.format(a="$300", b="$300", sign="The Alma Cafe team")
    comment = "Sign them off from Noa, our events manager."
    once = OUTREACH.format(a="$300", b="$300", sign="Noa, events manager")
    assert _missed(comment, before, once) == [comment]
    both = once.replace("The Alma Cafe team", "Noa, events manager")
    assert _missed(comment, before, both) == []


def test_a_fee_a_person_raised_is_their_decision_not_an_overrun() -> None:
    text = OUTREACH.format(a="$800", b="$300", sign="The Alma Cafe team")
    goal = {"goal": "Promote the oat-milk latte", "budget": 1000, "num_creators": 2}

    def over(asked: list[str]) -> list[str]:
        return [f.category for f in campaign_findings("outreach", text, goal, {}, asked)
                if f.category == "fee_over_budget"]
    assert over([]) == ["fee_over_budget"]  # $800 against $350 a creator
    assert over(["Up Maya's fee by $500, she is our best fit"]) == []
    assert over(["Up Amir's fee by $500"]) == ["fee_over_budget"]  # not Maya's


def _case(comment: str, **extra: Any) -> dict[str, Any]:
    return {"brand": "Stride Lab", "goal": "Get runners into the Saturday run club this spring",
            "channels": ["instagram_dm"], "budget": 2000, "num_creators": 2,
            "comment": comment} | extra


def _messages_after(case: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The evaluator's judgement and the final outreach, each creator's part by handle."""
    got = fresh.campaign_feedback_case(case)
    text = views.get_run(1).current.content  # type: ignore[union-attr]  # the only run
    parts = {m.group(1): m.group(2) for m in re.finditer(r"^## (@\S+).*?\n(.*?)(?=^## |\Z)",
                                                         text, re.M | re.S)}
    return got, parts


@pytest.mark.parametrize(("case", "where", "said"), [
    (_case("The second creator's fee should be $800, he asked for it"), [1], "$800"),
    (_case("Make the first creator's fee 900 USD please"), [0], "$900"),
    (_case("Tell them the club starts from the shop at 7:45am every Saturday",
           channels=["sms", "whatsapp"], expect=["7:45am"]), [0, 1], "7:45am"),
    (_case("Have Yossi, our head coach, sign every message", channels=["email", "whatsapp"],
           expect=["Yossi"]), [0, 1], "Yossi, head coach at Stride Lab"),
])
def test_offline_outreach_applies_the_comment(db_url: str, case: dict[str, Any],
                                              where: list[int], said: str) -> None:
    got, parts = _messages_after(case | ({} if "expect" in case or "expect_fee" in case
                                         else {"expect": [said]}))
    assert got["right"], got["why"]
    assert got["flag_right"] and not got["flagged"]
    assert got["halt"] == "thresholds_met"
    bodies = list(parts.values())
    assert [k for k, body in enumerate(bodies) if said in body] == where
    if "sign" in case["comment"]:  # every message, on every channel, signed by him
        assert all(body.count("Yossi") == body.count("### ") for body in bodies)


@pytest.mark.parametrize(("comment", "why"), [
    ("Pay the first creator $5,000, she is worth it", "over the campaign's"),
    ("Record it as a short voice note instead of text", "no rule for this request"),
])
def test_offline_outreach_says_why_it_did_not_apply(
        db_url: str, comment: str, why: str) -> None:
    got = fresh.campaign_feedback_case(_case(comment, expect="NOTE"))
    assert got["right"], got["why"]  # reported under Open points ...
    assert got["flagged"] == [f"not addressed: {comment}"]  # ... and still not addressed
    assert got["halt"] != "thresholds_met"


class PaysTheWrongCreator:
    """Writes one email per shortlisted creator offering $300 (every other answer is the
    schema's example); asked for a fee, it puts the amount on the second creator instead."""

    def __init__(self, comment: str, amount: str) -> None:
        self.comment, self.amount = comment, amount

    def __call__(self, request: dict[str, Any]) -> dict[str, Any] | None:
        schema = find_schema(request)
        props = (schema or {}).get("properties", {})
        prompt = json.dumps(request["messages"])
        handles = list(dict.fromkeys(re.findall(r"@[a-z0-9_.]*[a-z0-9_]", prompt)))[:2]
        if "picks" in props:  # the shortlist: the first two candidates it is shown
            return example_from_schema(schema) | {  # type: ignore[no-any-return]
                "picks": [{"handle": h, "match_pct": 90, "reasons": "Coffee creator nearby"}
                          for h in handles], "also_considered": []}
        if "messages" not in props:
            return None
        asked = self.comment in prompt
        messages = [{"creator_handle": h, "creator_name": "", "channel": "email",
                     "subject": "Paid collaboration with Alma Cafe",
                     "body": f"Hi, we would pay {self.amount if asked and k == 1 else '$300'} "
                             "for one reel about our oat-milk cold brew. Posts carry #ad. "
                             "Reply to this email if you are interested."}
                    for k, h in enumerate(handles)]
        return example_from_schema(schema) | {  # type: ignore[no-any-return]
            "brand_name": "Alma Cafe", "creators": handles, "messages": messages,
            "open_points": []}


def test_a_scripted_model_paying_the_wrong_creator_is_not_addressed(
        db_url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    comment = "Offer the first creator $650 instead"
    with running(responder=PaysTheWrongCreator(comment, "$650")) as server:
        use_fake_server(monkeypatch, server.url)
        to_outreach(capsys)
        cli(capsys, "revise", "1", "--comment", comment)
    d = detail(capsys)
    last = latest(d)
    assert "$650" in last["content"].split("## @")[2]  # on the second creator
    assert not open_points(last["content"])
    assert comment in last["not_addressed"]
    assert d["halt_reason"] != "thresholds_met"
