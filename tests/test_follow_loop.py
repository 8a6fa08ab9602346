"""The checks that follow the text in the loop, on both pipelines, with the offline backend and
with a scripted model that ignores feedback (the fake OpenAI server): a comment the revision
does not answer is "not addressed" in `show` and its --json, caps the score so the run does
not report "thresholds met", and the off-request findings are visible warnings."""

from __future__ import annotations

import json

import pytest

from engine.interfaces.cli import main
from testkit.fake_openai import running
from testkit.protocol_team import ProtocolTeam

ELEVATOR = "Exposure hierarchy for a man afraid of elevators"
FRIEND = "Add a step about riding one floor in an elevator with a friend"
VOGEL = "Offer Dr. Vogel her usual fee of 1800 dollars"
SAMARITANS = "Use the UK Samaritans number 116 123 instead of 988"
OAT = json.dumps({"brand_id": 1, "brand_name": "Alma Cafe",
                  "goal": "Launch our oat-milk cold brew in March 2027",
                  "audience": "young professionals", "budget": 5000,
                  "channels": ["email", "sms"], "num_creators": 2})


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    acting = args[0] in ("run", "revise", "approve")
    code = main([*args, "--actor", "tester"] if acting else list(args))
    out = capsys.readouterr().out
    assert code == 0, out
    return out


def show(capsys: pytest.CaptureFixture[str], run: str) -> dict:  # type: ignore[type-arg]
    return json.loads(cli(capsys, "show", run, "--json"))


def latest(detail: dict) -> dict:  # type: ignore[type-arg]
    return max(detail["drafts"], key=lambda d: d["version"])


def use_fake_server(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-follow-000000")
    monkeypatch.setenv("DRAFTROOM_BACKEND", "openai")


def assert_not_addressed(capsys: pytest.CaptureFixture[str], comment: str) -> None:
    detail = show(capsys, "1")
    last = latest(detail)
    assert comment in last["not_addressed"]
    assert detail["halt_reason"] != "thresholds_met"
    assert f'NOT ADDRESSED: "{comment}"' in cli(capsys, "show", "1")
    assert any(n["author"] == "follow_checks" and comment in n["text"] for n in detail["notes"])


def test_protocol_offline_a_comment_not_applied_is_not_addressed(
        db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, "run", "protocol", "--intent", ELEVATOR, "--audience", "adults")
    # The offline drafter applies "add a step about X" (issue 14 item 4) ...
    cli(capsys, "revise", "1", "--comment", FRIEND)
    assert FRIEND not in latest(show(capsys, "1"))["not_addressed"]
    # ... but not a change of crisis line: said so, and the score is capped.
    cli(capsys, "revise", "1", "--comment", SAMARITANS)
    assert_not_addressed(capsys, SAMARITANS)


def test_protocol_scripted_model_that_ignores_feedback(
        db_url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    with running(responder=ProtocolTeam([0.9])) as server:
        use_fake_server(monkeypatch, server.url)
        cli(capsys, "run", "protocol", "--intent", ELEVATOR)
        # It drafts paced breathing for exams whatever is asked: the request binds the score.
        first = show(capsys, "1")
        assert first["halt_reason"] == "max_iterations"
        assert {f["category"] for f in latest(first)["flags"]} == {"request_not_covered"}
        assert latest(first)["scores"]["clinical"] <= 0.5
        cli(capsys, "revise", "1", "--comment", "Make it specific to elevators")
    assert_not_addressed(capsys, "Make it specific to elevators")


def test_campaign_offline_oat_milk_brief_is_flagged(
        db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, "run", "campaign", "--input-json", OAT)
    detail = show(capsys, "1")
    brief = latest(detail)
    # The offline brief promotes the cold brew and dates its timeline by the goal's March.
    assert not [f for f in brief["flags"] if f["check"] == "campaign_consistency"]
    assert "oat-milk cold brew" in brief["content"].split("## Key messages")[1]
    assert "March" in brief["content"].split("## Timeline")[1].split("##")[0]
    assert detail["halt_reason"] == "thresholds_met"


def test_campaign_scripted_model_that_ignores_feedback(
        db_url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    with running() as server:  # answers every call with the same schema-built object
        use_fake_server(monkeypatch, server.url)
        cli(capsys, "run", "campaign", "--input-json", OAT)
        cli(capsys, "revise", "1", "--comment", VOGEL)
    assert_not_addressed(capsys, VOGEL)
