"""The real-model path through the whole engine, against the fake server configured as the
small local servers of issue 16 are: `response_format: json_schema` answered with HTTP 500 and
a validation message, and answers that are sometimes malformed.

- the refusal is paid for once per (server, model) per database, whoever sends it: concurrent
  critics, a second worker, a later process;
- every request that produced tokens is recorded, and a run's tokens equal the sum of the usage
  the server reported, to the token;
- refused parameters are learned the same way; the Settings page's forget asks again;
- a budget counts a call's requests already made; a halt stops waiting for the model.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from sqlmodel import select

from db.models import LLMAttempt, LLMCall
from db.session import session_scope
from engine import service, views
from engine.llm import capabilities
from engine.llm.capabilities import Capabilities
from engine.llm.openai_backend import OpenAIBackend
from engine.loop.leases import claim_run
from engine.loop.supervisor import Supervisor
from engine.run_state import RunStatus
from testkit.fake_openai import FakeOpenAI, Plan, Reply
from tests.utils.team import SECOND_DRAFT, ProtocolTeam

INTENT = {"intent": f"Help a student with exam panic {SECOND_DRAFT}", "audience": "adult students"}
REJECTION = Reply.reject_json_schema(500)


class ReportingServer(FakeOpenAI):
    """The fake server, keeping the usage block of every answer it sent."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.reported: list[dict[str, int]] = []

    def completion(self, request, message, finish, plan):  # type: ignore[no-untyped-def]
        body = super().completion(request, message, finish, plan)
        if "usage" in body:
            u = body["usage"]
            self.reported.append({
                "prompt": u["prompt_tokens"], "completion": u["completion_tokens"],
                "cached": u["prompt_tokens_details"]["cached_tokens"]})
        return body


class Team:
    """The protocol team, on a server without structured outputs; `faults` are served first
    (each to the next request whose system prompt names the agent)."""

    def __init__(self) -> None:
        self.team = ProtocolTeam()
        self.faults: list[tuple[str, Plan]] = []
        self.lock = threading.Lock()

    def __call__(self, request: dict[str, Any]) -> Any:
        if (request.get("response_format") or {}).get("type") == "json_schema":
            return REJECTION
        system = str(request["messages"][0].get("content") or "")
        repair = request["messages"][-1]["role"] == "user" and "could not be used" in str(
            request["messages"][-1]["content"])
        with self.lock:
            for i, (agent, plan) in enumerate(self.faults):
                if agent in system and not repair:
                    del self.faults[i]
                    return plan
        return self.team(request)


@pytest.fixture
def server() -> Any:
    team = Team()
    with ReportingServer(responder=team) as s:
        s.team = team  # type: ignore[attr-defined]
        yield s


def _backend(server: FakeOpenAI, model: str = "gpt-4.1-mini") -> OpenAIBackend:
    b = OpenAIBackend(base_url=server.url, api_key="sk-test-realmodel", model=model,
                      max_retries=3, timeout=5.0)
    b.caps = Capabilities(b.base_url, b.model, db=True)
    return b


def _drive(run_id: int, backend: OpenAIBackend, worker: str) -> str:
    assert claim_run(run_id, worker)
    return Supervisor(backend, worker).run_until_idle(run_id)


def _schema_requests(server: FakeOpenAI) -> int:
    return sum(r.response_format_type == "json_schema" for r in server.chat_requests)


def test_a_refused_json_schema_is_paid_for_once_per_server_and_model(
    db_url: str, server: FakeOpenAI
) -> None:
    run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
    assert _drive(run_id, _backend(server), "w1") == RunStatus.REVIEW
    assert views.get_run(run_id).halt_reason == "thresholds_met"
    # Two iterations: two drafts, four critic calls (two at a time), one refusal in all.
    assert _schema_requests(server) == 1
    calls = len(server.chat_requests)

    # Another worker (a new backend, as another process builds) reads what was learned.
    other = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
    assert _drive(other, _backend(server), "w2") == RunStatus.REVIEW
    assert _schema_requests(server) == 1
    assert len(server.chat_requests) > calls

    # The refusal is one attempt of the first call: a first try that was refused, then the
    # fallback; never the SDK's three retries of a 500.
    with session_scope() as s:
        first = s.exec(select(LLMAttempt).order_by(LLMAttempt.id)).first()
        assert first is not None
        kinds = [(a.kind, a.outcome, a.http_status, a.mode) for a in s.exec(
            select(LLMAttempt).where(LLMAttempt.call_key == first.call_key)
            .order_by(LLMAttempt.seq))]
    assert kinds == [("first", "unsupported", 500, "schema"),
                     ("fallback", "ok", 200, "json_object")]

    # Another model on the same server is asked for itself.
    third = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
    _drive(third, _backend(server, model="gpt-4.1-nano"), "w3")
    assert _schema_requests(server) == 2

    rows = {(r.model, r.feature): r.supported for r in capabilities.list_capabilities()}
    assert rows[("gpt-4.1-mini", "json_schema")] is False
    assert rows[("gpt-4.1-mini", "json_object")] is True
    assert rows[("gpt-4.1-nano", "json_schema")] is False


def test_forgetting_a_capability_asks_the_server_again(db_url: str, server: FakeOpenAI) -> None:
    from tests.test_openai_backend import review_call

    b = _backend(server)
    b.generate(review_call())
    assert _schema_requests(server) == 1 and b.mode == "json_object"
    (row,) = [r for r in capabilities.list_capabilities() if r.feature == "json_schema"]
    assert "response_format" in (row.detail or "")
    assert capabilities.forget(ids=[row.id]) == 1
    fresh = _backend(server)  # a worker that starts now
    assert fresh.mode == "schema"
    fresh.generate(review_call())
    assert _schema_requests(server) == 2


def test_tokens_recorded_for_a_run_equal_the_usage_the_server_reported(
    db_url: str, server: FakeOpenAI
) -> None:
    team: Team = server.team  # type: ignore[attr-defined]
    team.faults = [("Drafter", Reply.malformed()), ("Clinical Critic", Reply.not_json()),
                   ("Safety Guardian", Reply.schema_violation())]
    run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
    assert _drive(run_id, _backend(server), "w1") == RunStatus.REVIEW
    assert not team.faults  # every malformed answer was served, and repaired

    reported = server.reported  # type: ignore[attr-defined]
    with session_scope() as s:
        calls = s.exec(select(LLMCall).where(LLMCall.run_id == run_id)).all()
        attempts = s.exec(select(LLMAttempt).where(LLMAttempt.run_id == run_id)).all()
    assert sum(c.prompt_tokens for c in calls) == sum(r["prompt"] for r in reported)
    assert sum(c.completion_tokens for c in calls) == sum(r["completion"] for r in reported)
    assert sum(c.cached_tokens for c in calls) == sum(r["cached"] for r in reported)
    assert sum(a.prompt_tokens for a in attempts) == sum(r["prompt"] for r in reported)
    assert sum(a.outcome == "malformed" for a in attempts) == 3
    assert sum(a.kind == "repair" for a in attempts) == 3
    # Each call's cost is its requests' cost.
    for c in calls:
        mine = [a for a in attempts if a.call_key == c.call_key]
        assert c.cost_usd == pytest.approx(sum(a.cost_usd or 0 for a in mine))
        assert c.attempts == len(mine)
    assert views.get_run(run_id).cost_usd == pytest.approx(sum(c.cost_usd or 0 for c in calls))


def test_a_malformed_answer_that_fails_twice_is_still_paid_for(
    db_url: str, server: FakeOpenAI
) -> None:
    team: Team = server.team  # type: ignore[attr-defined]
    run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
    team.faults = [("Drafter", Reply.malformed())]
    b = _backend(server)
    b.caps.learn("json_schema", False)
    # The repair is malformed too: the step fails, and both requests' tokens are on the call.
    real = team.team
    team.team = lambda r: Plan("content", text="not json at all")  # type: ignore[assignment]
    assert _drive(run_id, b, "w1") == RunStatus.FAILED
    team.team = real
    with session_scope() as s:
        (call,) = s.exec(select(LLMCall).where(LLMCall.run_id == run_id)).all()
    assert call.status == "error" and call.attempts == 2
    assert call.prompt_tokens == sum(r["prompt"] for r in server.reported)  # type: ignore[attr-defined]
    assert call.completion_tokens > 0 and call.cost_usd and call.cost_usd > 0


def test_a_refused_parameter_is_dropped_and_remembered(db_url: str) -> None:
    from tests.test_openai_backend import review_call

    def responder(request: dict[str, Any]) -> Any:
        if "max_completion_tokens" in request:
            return Reply.status(400, "Unsupported parameter: 'max_completion_tokens' is not "
                                     "supported by this server.")
        return None

    with FakeOpenAI(responder=responder) as srv:
        b = _backend(srv)
        assert b.generate(review_call()).output.scores
        assert b.generate(review_call()).output.scores
        sent = [("max_completion_tokens" in r.body, "max_tokens" in r.body)
                for r in srv.chat_requests]
    assert sent == [(True, False), (False, True), (False, True)]
    rows = {r.feature: r.supported for r in capabilities.list_capabilities()}
    assert rows["max_completion_tokens"] is False


def test_the_budget_counts_the_requests_a_call_already_made(
    db_url: str, server: FakeOpenAI
) -> None:
    team: Team = server.team  # type: ignore[attr-defined]
    b = _backend(server)
    b.caps.learn("json_schema", False)
    # A call is estimated at ~$0.002 (gpt-4.1-mini), so it may start; its first answer is
    # 5,000 tokens of prose ($0.008): the repair would go over, and is never sent.
    team.faults = [("Drafter", Plan("content", text="Sure! " * 3334))]
    run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee",
                               params={"budget_usd": 0.005})
    assert _drive(run_id, b, "w1") == RunStatus.REVIEW
    d = views.get_run(run_id)
    assert d.halt_reason == "budget_reached"
    with session_scope() as s:
        (call,) = s.exec(select(LLMCall).where(LLMCall.run_id == run_id)).all()
    assert call.attempts == 1 and call.prompt_tokens > 0  # the malformed answer, recorded
    assert len(server.chat_requests) == 1  # no repair was sent


def test_a_halt_stops_waiting_for_the_model(db_url: str, server: FakeOpenAI) -> None:
    team: Team = server.team  # type: ignore[attr-defined]
    team.faults = [("Drafter", Reply.delay(60))]
    b = _backend(server)
    b.timeout = 120.0
    b.client = b.client.with_options(timeout=120.0)
    b.caps.learn("json_schema", False)
    run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
    assert claim_run(run_id, "w1")
    sup = Supervisor(b, "w1")
    done = threading.Event()
    worker = threading.Thread(target=lambda: (sup.run_until_idle(run_id), done.set()),
                              daemon=True)
    worker.start()
    while not server.chat_requests:
        threading.Event().wait(0.05)
    service.halt(run_id=run_id, actor="dr. lee")
    # The model would answer in 60 s; the worker stops waiting within a few polls.
    assert done.wait(20), "the worker still waits for the model after the halt"
    d = views.get_run(run_id)
    assert d.status == RunStatus.REVIEW and d.halt_reason == "halted"
    with session_scope() as s:
        (attempt,) = s.exec(select(LLMAttempt).where(LLMAttempt.run_id == run_id)).all()
    assert attempt.outcome == "cancelled"


def test_every_request_starts_with_its_agents_byte_identical_stable_part(
    db_url: str, server: FakeOpenAI
) -> None:
    """System prompt (with the rubric) and schema first, the same bytes at every call of an
    agent, so a provider's prompt cache hits: the fake server caches prefixes as OpenAI does."""
    run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
    assert _drive(run_id, _backend(server), "w1") == RunStatus.REVIEW
    by_system: dict[str, list[Any]] = {}
    for r in server.chat_requests:
        if r.response_format_type == "json_schema":
            continue  # the one refused request
        assert r.messages[0]["role"] == "system"
        by_system.setdefault(r.messages[0]["content"][:40], []).append(r)
    assert len(by_system) == 3  # drafter, safety guardian, clinical critic
    for requests in by_system.values():
        assert len({json.dumps(r.messages[0]) + json.dumps(r.body.get("response_format"))
                    for r in requests}) == 1
    with session_scope() as s:
        calls = s.exec(select(LLMCall).where(LLMCall.run_id == run_id)
                       .order_by(LLMCall.started_at)).all()
    later = list(calls[3:])  # each agent's second call and after
    assert later and all(c.cached_tokens > 0 for c in later)


def test_a_drafter_input_over_the_context_window_is_trimmed_and_said(
    db_url: str, server: FakeOpenAI
) -> None:
    """A server whose context the revision's notes overflow: the drafter's call is refused
    once with a context-length error, sent again without the notes, and both are recorded."""
    team: Team = server.team  # type: ignore[attr-defined]
    real = team.team

    def small_context(request: dict[str, Any]) -> Any:
        user = str(request["messages"][-1].get("content") or "")
        if "Drafter" in str(request["messages"][0]["content"]) and "Notes for you" in user:
            return Reply.status(400, "This model's maximum context length is 2048 tokens. "
                                     "However, your messages resulted in 2301 tokens.",
                                error_code="context_length_exceeded")
        return real(request)

    team.team = small_context  # type: ignore[assignment]
    run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
    assert _drive(run_id, _backend(server), "w1") == RunStatus.REVIEW
    d = views.get_run(run_id)
    assert d.halt_reason == "thresholds_met" and len(d.drafts) == 2
    with session_scope() as s:
        drafter = s.exec(select(LLMCall).where(LLMCall.run_id == run_id,
                                               LLMCall.agent == "drafter")
                         .order_by(LLMCall.id)).all()
    assert [c.status for c in drafter] == ["ok", "error", "ok"]
    assert "context window" in (drafter[1].error or "")
    assert drafter[2].request["trimmed"] == ["warning notes"]
    assert "Notes for you" not in drafter[2].request["messages"][-1]["content"]
