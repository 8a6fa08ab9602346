"""The real-model path on the pages (AppTest): Settings says whether the server serves
OPENAI_MODEL and lists what was learned of the server, with forget; Traces shows a call's
HTTP requests under it; Costs shows the prompt cache's share per agent."""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import select

from db.models import LLMCall
from db.session import session_scope
from engine import service
from engine.llm import capabilities
from testkit.fake_openai import FakeOpenAI
from tests.test_ops_pages import open_page
from tests.test_realmodel import INTENT, ReportingServer, Team, _backend, _drive


@pytest.fixture
def server() -> Any:
    with ReportingServer(responder=Team(), models=["gpt-4.1-mini"]) as s:
        yield s


@pytest.fixture
def driven(db_url: str, server: FakeOpenAI) -> int:
    run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
    _drive(run_id, _backend(server), "w1")
    return run_id


def test_settings_lists_what_was_learned_and_forgets_it(
    driven: int, server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DRAFTROOM_BACKEND", "openai")
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    monkeypatch.setenv("OPENAI_MODEL", "gpt-4.1-mini")
    at = open_page("pages/settings.py")
    assert any("gpt-4.1-mini' is served by" in s.body for s in at.success)
    frame = at.dataframe[-1].value
    refused = frame[frame["supported"] == "refused"]
    assert set(refused["model"]) == {"gpt-4.1-mini"}
    said = dict(zip(refused["feature"], refused["server said"], strict=True))
    assert "response_format" in said[capabilities.FEATURES["json_schema"]]
    # The fake server has no /moderations: learned once, skipped quietly after.
    assert said[capabilities.FEATURES["moderation"]] == "HTTP 404"
    next(b for b in at.button if b.label == "Forget everything").click().run()
    assert not at.exception
    assert any(f"Forgot {len(frame)} row(s)" in s.body for s in at.success)
    assert capabilities.list_capabilities() == []


def test_settings_says_clearly_when_the_model_is_not_on_the_server(
    db_url: str, server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DRAFTROOM_BACKEND", "openai")
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    monkeypatch.setenv("OPENAI_MODEL", "gpt-4.1-mino")
    at = open_page("pages/settings.py")
    (err,) = [e.body for e in at.error if "OPENAI_MODEL" in e.body]
    assert "'gpt-4.1-mino' (OPENAI_MODEL) is not served by" in err
    assert "Did you mean 'gpt-4.1-mini'" in err


def test_traces_shows_a_calls_requests_under_it(driven: int) -> None:
    with session_scope() as s:
        first = s.exec(select(LLMCall).where(LLMCall.run_id == driven)
                       .order_by(LLMCall.id)).first()
    assert first is not None and first.attempts == 2
    at = open_page("pages/traces.py", run=str(driven))
    at.selectbox(key="trace_call").set_value(first.id).run()
    assert not at.exception
    assert any("**Requests** (2)" in m.value for m in at.markdown)
    rows = at.dataframe[0].value
    assert list(zip(rows["kind"], rows["outcome"], rows["HTTP"], strict=True)) == [
        ("first", "unsupported", 500), ("fallback", "ok", 200)]
    assert rows["input"].sum() == first.prompt_tokens


def test_costs_shows_the_prompt_cache_share_per_agent(driven: int) -> None:
    at = open_page("pages/costs.py")
    (line,) = [m.value for m in at.markdown if "Prompt cache" in m.value]
    assert "**drafter**" in line and "**safety_guardian**" in line and "%" in line
