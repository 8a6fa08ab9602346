"""Issue 14 item 3 for campaigns: a reviewer's comment on the outreach messages that the
drafter cannot apply is said so ("Open points" after the messages, never inside one), and the
feedback-coverage check reports it as not addressed, on the offline backend and with a
scripted model that ignores feedback (the fake OpenAI server)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.pipelines.campaign.outreach import parse_outreach
from testkit.fake_openai import example_from_schema, find_schema, running
from tests.test_follow_loop import OAT, cli

DANA = "Sign the messages from our head barista Dana instead of the team"
KIT = "Ask each creator for their media kit before we agree anything"
REFILL = "Mention the free refill on launch day"


def detail(capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    return json.loads(cli(capsys, "show", "1", "--json"))  # type: ignore[no-any-return]


def latest(d: dict[str, Any]) -> dict[str, Any]:
    return max(d["drafts"], key=lambda x: x["version"])  # type: ignore[no-any-return]


def to_outreach(capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, "run", "campaign", "--input-json", OAT)
    # A scripted model's brief promotes no oat milk: "off product" binds approval, so these
    # tests of the outreach stage approve it with a reason (the offline brief needs none).
    reason = "Testing the outreach stage: the brief's product is not under test here."
    cli(capsys, "approve", "1", "--override", reason)  # the brief
    cli(capsys, "approve", "1", "--override", reason)  # the creators
    assert latest(detail(capsys))["stage"] == "outreach"


def open_points(content: str) -> str:
    return content.split("## Open points", 1)[1] if "## Open points" in content else ""


def test_offline_outreach_says_what_it_could_not_apply(
        db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    to_outreach(capsys)
    before = latest(detail(capsys))["content"]
    assert not open_points(before)
    cli(capsys, "revise", "1", "--comment", KIT)
    last = latest(detail(capsys))
    # Said where the reviewer reads it, not silently the same text ...
    assert KIT in open_points(last["content"])
    assert last["content"] != before
    # ... never inside a creator-facing message ...
    assert all("media kit" not in m.body and "Open points" not in m.body
               for m in parse_outreach(last["content"]).messages)
    # ... and the check still reports the comment as not addressed: a note is no answer.
    assert KIT in last["not_addressed"]
    assert f'NOT ADDRESSED: "{KIT}"' in cli(capsys, "show", "1")


def test_offline_outreach_applies_a_mention_and_lists_only_the_rest(
        db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    to_outreach(capsys)
    cli(capsys, "revise", "1", "--comment", REFILL)
    last = latest(detail(capsys))
    assert "free refill on launch day" in last["content"].lower()
    assert not open_points(last["content"]) and REFILL not in last["not_addressed"]


class IgnoresFeedback:
    """Answers every call with the schema's example; on the outreach messages it copies any
    reviewer comment it is shown into open_points and changes nothing else (a model that
    claims a comment instead of applying it)."""

    def __call__(self, request: dict[str, Any]) -> dict[str, Any] | None:
        schema = find_schema(request)
        if not schema or "open_points" not in schema.get("properties", {}) \
                or "messages" not in schema.get("properties", {}):
            return None
        answer = example_from_schema(schema)
        prompt = json.dumps(request["messages"])
        answer["open_points"] = [f"Could not apply: {DANA}"] if DANA in prompt else []
        return answer  # type: ignore[no-any-return]


def test_a_scripted_model_that_ignores_feedback_is_not_addressed(
        db_url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    with running(responder=IgnoresFeedback()) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-open-points-000000")
        monkeypatch.setenv("DRAFTROOM_BACKEND", "openai")
        to_outreach(capsys)
        cli(capsys, "revise", "1", "--comment", DANA)
    last = latest(detail(capsys))
    assert DANA in open_points(last["content"])  # the model only claimed it
    assert DANA in last["not_addressed"]
    assert detail(capsys)["halt_reason"] != "thresholds_met"
