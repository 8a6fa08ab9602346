"""Comments on the outreach messages' form (camp7, issue 14 items 3-4): a channel move, no
exclamation marks, a length cap per message, a sign-off, a fee in pounds or euros, a tone, a
language. Read one way (engine/pipelines/campaign/message_form.py, money.py); applied by the
offline drafter where a template can, listed under "Open points" with why where it cannot; and
judged from the messages by the feedback check, on the offline backend and with a scripted
model that ignores the comment."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from engine.checks.feedback_coverage import Comment, feedback_findings
from engine.pipelines.campaign.message_form import channel_ask, exclamations, language, length_cap
from engine.pipelines.campaign.money import amounts
from engine.pipelines.campaign.outreach import parse_outreach
from engine.pipelines.campaign.requests import fee_ask, sign_off
from testkit.fake_openai import example_from_schema, find_schema, running
from tests.test_campaign_open_points import detail, latest, open_points, to_outreach
from tests.test_follow_loop import cli, use_fake_server
from tools import evaluate_fresh as fresh

CREATORS = [("@maya.brews", "Maya Levi"), ("@labcoat.latte", "Dr. Amir Haddad")]


def test_amounts_are_read_with_their_currency() -> None:
    said = [(a.value, a.currency) for a in amounts(
        "Offer Maya £400, Amir US$1,800 or 1.2k dollars, Lena €600 and 300 GBP")]
    assert said == [(400, "GBP"), (1800, "USD"), (1200, "USD"), (600, "EUR"), (300, "GBP")]
    ask = fee_ask("Offer the first creator £400, she quoted in pounds", CREATORS)
    assert ask is not None and (ask.handles, ask.amount, ask.currency) == (
        ["@maya.brews"], 400, "GBP")
    dollars = fee_ask("first creator's fee should be 350, not what you wrote", CREATORS)
    assert dollars is not None and dollars.currency == "USD"  # a bare number: the budget's


@pytest.mark.parametrize(("comment", "handles", "to", "away"), [
    ("send Maya's by email instead of WhatsApp", ["@maya.brews"], "email", "whatsapp"),
    ("a text feels pushy - reach both creators by email instead", [h for h, _ in CREATORS],
     "email", None),
    ("switch the second creator from SMS to WhatsApp", ["@labcoat.latte"], "whatsapp", "sms"),
    ("use email, not WhatsApp, for Amir", ["@labcoat.latte"], "email", "whatsapp"),
])
def test_a_channel_move_is_read_for_its_creators(comment: str, handles: list[str], to: str,
                                                 away: str | None) -> None:
    ask = channel_ask(comment, CREATORS)
    assert ask is not None and ask[:3] == (handles, to, away) and not ask.also


def test_a_channel_asked_for_too_is_added_beside_theirs() -> None:
    ask = channel_ask("Can we also message them on WhatsApp?", CREATORS)
    assert ask is not None and (ask.to, ask.away, ask.also) == ("whatsapp", None, True)


@pytest.mark.parametrize("comment", [
    "mention that we're on WhatsApp too", "make it a short video pitch instead of text",
    "Add the email address for bookings", "Don't use WhatsApp for Amir",
    "Tell them to reply by email"])
def test_a_channel_named_is_no_move(comment: str) -> None:
    assert channel_ask(comment, CREATORS) is None


def test_exclamations_caps_tone_and_language_are_read() -> None:
    assert exclamations("drop the exclamation marks, they read as shouty") == "none"
    assert exclamations("fewer exclamation points please") == "fewer"
    assert exclamations("add an exclamation mark to the greeting") is None
    assert length_cap("keep the subject line under 50 characters") is None
    assert length_cap("keep each DM under 300 characters") == (300, "characters",
                                                               "instagram_dm")
    assert length_cap("keep the WhatsApp ones to 200 characters max") == (200, "characters",
                                                                          "whatsapp")
    assert length_cap("max 40 words per message") == (40, "words", None)
    assert length_cap("fit each text in one SMS") == (160, "characters", "sms")
    assert language("Can you send the messages in German?") == "German"
    assert sign_off("Put Dana, our head barista, as the sender on all of them") == (
        "Dana", "head barista")


OUTREACH = """# Outreach messages: Alma Cafe

Shortlist: @maya.brews, @labcoat.latte

## @maya.brews · Maya Levi

### {maya}

{body_maya}

## @labcoat.latte · Dr. Amir Haddad

### WhatsApp

{body_amir}
"""
HI = ("Hi {who}! We're Alma Cafe in Rehovot. We'd like to offer you a fee of $250 for one reel "
      "about our oat-milk latte! It's a paid partnership, so posts carry #ad. Interested?")


def _text(maya: str = "WhatsApp", body_maya: str = "", body_amir: str = "") -> str:
    return OUTREACH.format(maya=maya, body_maya=body_maya or HI.format(who="Maya"),
                           body_amir=body_amir or HI.format(who="Amir"))


def _flags(comment: str, before: str, after: str) -> list[str]:
    return [f.category for f in feedback_findings("campaign", after, before,
                                                  [Comment(text=comment)])]


def test_the_check_reads_a_channel_move_off_the_messages() -> None:
    before = _text()
    comment = "send Maya's by email instead of WhatsApp"
    assert _flags(comment, before, _text(maya="Email")) == []
    # Changed, but Maya is still written on WhatsApp (the other message moved instead).
    still = _text(body_amir=HI.format(who="Amir").replace("$250", "$300"))
    assert _flags(comment, before, still) == ["not_addressed"]


def test_the_check_measures_exclamation_marks_and_length() -> None:
    before = _text()
    calm = before.replace("!", ".")
    assert _flags("drop the exclamation marks", before, calm) == []
    assert _flags("drop the exclamation marks", before,
                  before.replace("Interested?", "Interested? Reply!")) == ["not_addressed"]
    short = _text(body_maya="Hi Maya, $250 for one reel? #ad", body_amir="Hi Amir, $250? #ad")
    assert _flags("keep each message under 60 characters", before, short) == []
    assert _flags("keep each message under 25 characters", before, short) == ["not_addressed"]


def test_a_translation_cannot_be_verified_and_english_is_not_one() -> None:
    before = _text()
    comment = "Can you send the messages in German?"
    german = _text(body_maya="Hallo Maya! Wir sind Alma Cafe in Rehovot. Wir bieten dir $250 "
                             "für ein Reel über unseren Hafermilch-Latte. #Anzeige",
                   body_amir="Hallo Amir! Wir bieten dir $250 für ein Reel. #Anzeige")
    assert _flags(comment, before, german) == ["cannot_verify"]
    english = before.replace("Interested?", "Interested? Reply soon.")
    assert _flags(comment, before, english) == ["not_addressed"]


def test_a_tone_is_for_a_person_to_judge_once_the_messages_are_rewritten() -> None:
    before = _text()
    comment = "make them warmer and less salesy"
    closing = before.replace("Interested?", "Fancy it?")
    assert _flags(comment, before, closing) == ["not_addressed"]  # one sentence of four
    warm = _text(body_maya="Hey Maya, we love what you do with latte art. Fancy a reel for $250? "
                           "Posts carry #ad. No pressure at all.",
                 body_amir="Hey Amir, your coffee science posts make our day. Fancy a reel for "
                           "$250? Posts carry #ad. No pressure at all.")
    assert _flags(comment, before, warm) == ["cannot_verify"]


def test_a_fee_in_pounds_is_answered_in_pounds_and_a_dollar_change_cannot_be_verified() -> None:
    before = _text()
    comment = "Offer Maya £400, she quoted in pounds"
    pounds = before.replace("$250", "£400", 1)
    assert _flags(comment, before, pounds) == []
    converted = before.replace("$250", "$505", 1)
    assert _flags(comment, before, converted) == ["cannot_verify"]
    assert _flags(comment, before, before.replace("Interested?", "Keen?")) == ["not_addressed"]


def _case(comment: str, **extra: Any) -> dict[str, Any]:
    return {"brand": "Alma Cafe", "goal": "Fill the weekend brunch tables in May",
            "channels": ["whatsapp", "instagram_dm"], "budget": 1500, "num_creators": 2,
            "comment": comment, "expect": "NOTE_OR_APPLIED"} | extra


def _outreach_after(case: dict[str, Any]) -> tuple[dict[str, Any], str]:
    from engine import views

    got = fresh.campaign_feedback_case(case)
    return got, views.get_run(1).current.content  # type: ignore[union-attr]


@pytest.mark.parametrize(("comment", "gone"), [
    ("send Maya's by email instead of WhatsApp", "whatsapp"),
    ("reach Maya by email instead", "instagram_dm"),  # her own channel, the shortlist's
])
def test_offline_outreach_moves_a_creator_to_another_channel(db_url: str, comment: str,
                                                             gone: str) -> None:
    from engine import service, views

    got, text = _outreach_after(_case(comment, expect=["### Email"]))
    assert got["right"] and got["flag_right"] and not got["flagged"], got
    by = {(m.handle, m.channel) for m in parse_outreach(text).messages}
    assert ("@maya.brews", "email") in by and ("@maya.brews", gone) not in by
    assert {c for h, c in by if h == "@labcoat.latte"} == {"whatsapp", "instagram_dm"}
    assert not [f for f in views.get_run(1).current.flags  # type: ignore[union-attr]
                if f.category == "channel_mismatch"]
    # The plan reaches her on a channel the approved outreach writes to her on, unflagged.
    d = views.get_run(1)
    service.approve(run_id=1, actor="eval (marketer)", expected_version=d.version)
    fresh._drive(1)
    plan = views.get_run(1).current
    assert plan is not None and plan.stage == "plan"
    row = next(line for line in plan.content.splitlines() if line.startswith("| @maya.brews"))
    via = row.rstrip(" |").rsplit("|", 1)[1].strip()
    assert via in {"Email", "Instagram DM", "WhatsApp"} - {
        {"whatsapp": "WhatsApp", "instagram_dm": "Instagram DM"}[gone]}
    assert not [f for f in plan.flags if f.category == "channel_mismatch"]


@pytest.mark.parametrize(("comment", "channel", "limit"), [
    ("keep each DM under 300 characters, nobody reads more on a phone", "instagram_dm", 300),
    ("keep the WhatsApp ones to 200 characters max", "whatsapp", 200),
    # One segment: the disclosure in its short form, the fee and the greeting kept.
    ("the SMS needs to fit in one text", "sms", 160),
])
def test_offline_outreach_keeps_each_message_within_a_cap(
        db_url: str, comment: str, channel: str, limit: int) -> None:
    got, text = _outreach_after(_case(comment, channels=["whatsapp", "instagram_dm", "sms"]))
    assert got["applied"] and got["flag_right"] and not got["flagged"], got
    capped = [m for m in parse_outreach(text).messages if m.channel == channel]
    assert capped and all(len(m.body) <= limit for m in capped)
    # What must stay: the fee and the disclosure.
    assert all(re.search(r"\$\d", m.body) and "#ad" in m.body for m in capped)


def test_offline_outreach_drops_exclamation_marks(db_url: str) -> None:
    got, text = _outreach_after(_case("drop the exclamation marks, they read as shouty"))
    assert got["applied"] and not got["flagged"], got
    assert all("!" not in m.body for m in parse_outreach(text).messages)


@pytest.mark.parametrize(("comment", "why"), [
    ("Offer the first creator £400, she quoted in pounds", "converts no currency"),
    ("make them warmer and less salesy", "cannot change how the messages sound"),
    ("Can you send the messages in German?", "English only"),
])
def test_offline_outreach_says_why_it_leaves_a_comment(db_url: str, comment: str,
                                                       why: str) -> None:
    got, text = _outreach_after(_case(comment, expect="NOTE"))
    assert got["right"] and got["flag_right"], got
    assert why in open_points(text)
    assert got["flagged"] == [f"not addressed: {comment}"]  # a note is no answer
    assert got["halt"] != "thresholds_met"


class Ignores:
    """A model that writes one email per creator, in English, with exclamation marks; shown a
    reviewer's comment it rewrites the closing line and nothing the comment asks for (a
    revision that changed, so only reading the messages shows the comment was ignored)."""

    def __call__(self, request: dict[str, Any]) -> dict[str, Any] | None:
        schema = find_schema(request)
        props = (schema or {}).get("properties", {})
        prompt = json.dumps(request["messages"])
        handles = list(dict.fromkeys(re.findall(r"@[a-z0-9_.]*[a-z0-9_]", prompt)))[:2]
        if "picks" in props:
            return example_from_schema(schema) | {  # type: ignore[no-any-return]
                "picks": [{"handle": h, "match_pct": 90, "reasons": "Coffee creator nearby"}
                          for h in handles], "also_considered": []}
        if "messages" not in props:
            return None
        close = ("Just hit reply and tell us what you think!" if "Human feedback" in prompt
                 else "Reply to this email if you are interested!")
        messages = [{"creator_handle": h, "creator_name": "", "channel": "email",
                     "subject": "Paid collaboration with Alma Cafe",
                     "body": "Hi! We would pay $300 for one reel about our oat-milk cold brew! "
                             f"Posts carry #ad. {close}"}
                    for h in handles]
        return example_from_schema(schema) | {  # type: ignore[no-any-return]
            "brand_name": "Alma Cafe", "creators": handles, "messages": messages,
            "open_points": []}


@pytest.mark.parametrize("comment", [
    "drop the exclamation marks",
    "keep each message under 80 characters",
    "Send the first creator a WhatsApp instead of an email",
    "Could you write the messages in German?",
    "make them warmer and less salesy",
    "Offer the first creator \u00a3400, she quoted in pounds",
])
def test_a_scripted_model_that_ignores_the_comment_is_not_addressed(
        db_url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        comment: str) -> None:
    with running(responder=Ignores()) as server:
        use_fake_server(monkeypatch, server.url)
        to_outreach(capsys)
        cli(capsys, "revise", "1", "--comment", comment)
    d = detail(capsys)
    outreach = [x for x in d["drafts"] if x["stage"] == "outreach"]
    assert outreach[-1]["content"] != outreach[0]["content"]  # it did change something
    assert comment in latest(d)["not_addressed"]
    assert d["halt_reason"] != "thresholds_met"
    assert f'NOT ADDRESSED: "{comment}"' in cli(capsys, "show", "1")


class Translates(Ignores):
    """Shown a comment asking for German, it writes the messages in German."""

    def __call__(self, request: dict[str, Any]) -> dict[str, Any] | None:
        answer = super().__call__(request)
        if answer and "messages" in answer and "German" in json.dumps(request["messages"]):
            for m in answer["messages"]:
                m["body"] = ("Hallo! Wir zahlen dir $300 für ein Reel über unseren Cold Brew "
                             "mit Hafermilch. Beiträge tragen #Anzeige. Schreib uns zurück.")
        return answer


def _flags_app() -> None:
    import streamlit as st

    from engine import views
    from ui.run_view import render_flags

    render_flags(views.get_run(int(st.session_state["run_id"])).current)


def test_a_translation_by_a_model_is_shown_as_cannot_verify(
        db_url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from streamlit.testing.v1 import AppTest

    from ui.markdown import escape_inline

    comment = "Could you write the messages in German?"
    with running(responder=Translates()) as server:
        use_fake_server(monkeypatch, server.url)
        to_outreach(capsys)
        cli(capsys, "revise", "1", "--comment", comment)
    last = latest(detail(capsys))
    assert "Hallo" in last["content"]
    # Neither answered nor silently passed: not "not addressed", but flagged for a person.
    assert comment not in last["not_addressed"]
    assert [f["category"] for f in last["flags"] if f["text"] == comment] == ["cannot_verify"]
    assert f"CANNOT VERIFY: {comment}" in cli(capsys, "show", "1")
    at = AppTest.from_function(_flags_app, default_timeout=30)
    at.session_state["run_id"] = 1
    at.run()
    assert not at.exception
    shown = [w.value for w in at.warning]
    assert f"**Cannot verify**: \u201c{escape_inline(comment)}\u201d" in shown, shown


SHORTLIST = """# Creators

## Shortlist

| # | Creator | Name | Contact |
|---|---|---|---|
| 1 | @maya.brews | Maya Levi | WhatsApp |
| 2 | @labcoat.latte | Dr. Amir Haddad | WhatsApp |
"""
PLAN = """# Campaign plan

## Deliverables per creator

| Creator | Deliverables | Post window | Fee (USD) | Contact via |
|---|---|---|---:|---|
| @maya.brews (Maya Levi) | 1 reel | Week 3 | 250 | {maya} |
| @labcoat.latte (Dr. Amir Haddad) | 1 reel | Week 4 | 250 | WhatsApp |
"""


def test_a_moved_creator_is_no_channel_mismatch_where_a_person_moved_them() -> None:
    from engine.checks.campaign_consistency import campaign_findings

    goal = {"goal": "Fill the weekend brunch tables", "budget": 1000, "num_creators": 2,
            "channels": ["whatsapp"]}
    moved = _text(maya="Email")
    comment = "send Maya's by email instead of WhatsApp"

    def mismatch(stage: str, text: str, context: dict[str, str], asked: list[str]) -> list[str]:
        return [f.text for f in campaign_findings(stage, text, goal, context, asked)
                if f.category == "channel_mismatch"]
    # The outreach: a person's comment moved her; without one, the shortlist binds.
    assert mismatch("outreach", moved, {"shortlist": SHORTLIST}, [comment]) == []
    assert mismatch("outreach", moved, {"shortlist": SHORTLIST}, []) != []
    # The plan: the outreach a person approved is the last word, so the old channel is wrong.
    approved = {"shortlist": SHORTLIST, "outreach": moved}
    assert mismatch("plan", PLAN.format(maya="Email"), approved, []) == []
    assert mismatch("plan", PLAN.format(maya="WhatsApp"), approved, []) == [
        "@maya.brews: outreach used email, plan says whatsapp"]


def test_a_revision_that_only_drops_exclamation_marks_is_a_change() -> None:
    """The loop's stall rule reads words, not punctuation; removing the exclamation marks a
    person asked to drop is still progress, not "no change" (camp7's finding, session 6)."""
    from engine.loop.decide import unchanged
    assert not unchanged("Hi Maya! We love your posts! Fancy a paid post?",
                         "Hi Maya. We love your posts. Fancy a paid post?")
    assert unchanged("Hi Maya. We love your posts.", "Hi Maya, we love your posts.")
