"""Model faults through the whole engine: the openai backend against the fake server, which
answers one agent with 429s (with Retry-After), 500s, hangs, connection resets, empty or
malformed JSON and refusals. Retries are bounded in count and time; then the step fails with a
message a person can act on, the run waits for them (status failed, a retry button), no earlier
draft or score changes, and service.retry carries on from the failed step."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

from db.models import Draft, Flag, LLMCall, Note, Score, Step
from db.session import session_scope
from engine import service, views
from engine.llm.openai_backend import OpenAIBackend
from engine.loop.leases import claim_run
from engine.loop.supervisor import Supervisor
from engine.run_state import RunStatus
from testkit.fake_openai import FakeOpenAI, Plan, Reply
from tests.conftest import ARTIFACTS
from tests.utils.team import SECOND_DRAFT, ProtocolTeam

RETRIES = 2  # the SDK's retries per request: three attempts in all
TIMEOUT = 0.5
INTENT = {"intent": f"Help a student with exam panic {SECOND_DRAFT}", "audience": "adult students"}


def _is_revision(request: dict[str, Any]) -> bool:
    system = str(request["messages"][0].get("content") or "")
    return "Drafter" in system and any(
        "Your previous draft" in str(m.get("content") or "") for m in request["messages"])


def _is_clinical(request: dict[str, Any]) -> bool:
    return "Clinical Critic" in str(request["messages"][0].get("content") or "")


class Faulty:
    """The protocol team, except that requests matching `when` get the planned faults first."""

    def __init__(self) -> None:
        self.team = ProtocolTeam()
        self.when: Callable[[dict[str, Any]], bool] = lambda r: False
        self.plans: list[Plan] = []
        self.served = 0
        self.times: list[float] = []
        self._lock = threading.Lock()

    def inject(self, when: Callable[[dict[str, Any]], bool], plans: list[Plan]) -> None:
        with self._lock:
            self.when, self.plans, self.times = when, list(plans), []

    def stop(self) -> None:
        with self._lock:
            self.when, self.plans = (lambda r: False), []

    def __call__(self, request: dict[str, Any]) -> Any:
        with self._lock:
            if self.when(request):
                self.times.append(time.monotonic())
                if self.plans:
                    self.served += 1
                    return self.plans.pop(0)
        return self.team(request)


@pytest.fixture(scope="module")
def fake() -> Any:
    faulty = Faulty()
    with FakeOpenAI(responder=faulty) as server:
        server.faulty = faulty  # type: ignore[attr-defined]
        yield server


@pytest.fixture(scope="module")
def report() -> Any:
    rows: list[dict[str, Any]] = []
    yield rows
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "faults.json").write_text(json.dumps(rows, indent=2))


def backend(server: FakeOpenAI) -> OpenAIBackend:
    return OpenAIBackend(base_url=server.url, api_key="sk-fake-faults-0000", timeout=TIMEOUT,
                         max_retries=RETRIES)


def snapshot(run_id: int) -> dict[str, list[tuple[Any, ...]]]:
    """Everything already decided about a run's versions."""
    with session_scope() as s:
        drafts = s.exec(select(Draft).where(Draft.run_id == run_id)).all()
        ids = [d.id for d in drafts]
        return {
            "drafts": sorted((d.id, d.version, d.content, d.content_hash, d.author)
                             for d in drafts),
            "scores": sorted((x.draft_id, x.name, x.value, x.llm_value, x.check_value) for x in
                             s.exec(select(Score).where(Score.draft_id.in_(ids)))),  # type: ignore[union-attr]
            "flags": sorted((f.draft_id, f.category, f.text) for f in
                            s.exec(select(Flag).where(Flag.draft_id.in_(ids)))),  # type: ignore[union-attr]
            "notes": sorted((n.id, n.text) for n in
                            s.exec(select(Note).where(Note.run_id == run_id))),
        }


def first_iteration(server: FakeOpenAI) -> tuple[int, Supervisor]:
    """A run whose v1 is drafted, scored and sent back: the next step drafts v2."""
    run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
    assert claim_run(run_id, "w1")
    sup = Supervisor(backend(server), "w1")
    for _ in range(2):  # draft; review with the supervisor's decision
        assert sup.advance(run_id)
    d = views.get_run(run_id)
    assert d.status == RunStatus.RUNNING and d.next_node == "draft" and len(d.drafts) == 1
    return run_id, sup


FAULTS = {
    # name: (plans, who gets them, LLMError kind, words the person reads, requests made)
    "429 with Retry-After": ([Reply.rate_limit(0.3)] * 3, _is_revision, "rate_limit",
                             "rate-limiting", 3),
    "429 asking for 10 minutes": ([Reply.rate_limit(600)], _is_revision, "rate_limit",
                                  "rate-limiting", 1),
    "HTTP 500": ([Reply.server_error()] * 3, _is_revision, "server", "HTTP 500", 3),
    "HTTP 503 from a critic": ([Reply.server_error(503, "overloaded")] * 3, _is_clinical,
                               "server", "HTTP 503", 3),
    "timeout": ([Reply.hang(5)] * 3, _is_revision, "timeout", "did not answer within", 3),
    "connection reset": ([Reply.reset()] * 3, _is_revision, "connection", "Could not reach", 3),
    "empty reply": ([Reply.empty()] * 2, _is_revision, "malformed", "even after a repair", 2),
    "malformed JSON": ([Reply.malformed()] * 2, _is_revision, "malformed", "not valid JSON", 2),
    "prose, then the wrong shape": ([Reply.not_json(), Reply.schema_violation()], _is_clinical,
                                    "malformed", "does not match the schema", 2),
    "refusal": ([Reply.refusal()], _is_revision, "refusal", "refused to answer", 1),
    "content filter": ([Reply.content_filter()], _is_clinical, "refusal", "content filter", 1),
}


@pytest.mark.parametrize("name", list(FAULTS))
def test_fault_fails_the_step_clearly_keeps_history_and_retry_continues(
    db_url: str, fake: FakeOpenAI, report: list[dict[str, Any]], name: str
) -> None:
    plans, who, kind, words, requests = FAULTS[name]
    run_id, sup = first_iteration(fake)
    before = snapshot(run_id)
    faulty: Faulty = fake.faulty  # type: ignore[attr-defined]
    faulty.inject(who, plans)
    t0 = time.monotonic()
    if who is _is_clinical:
        assert sup.advance(run_id)  # v2 is drafted fine; the review is what fails
        before = snapshot(run_id)
    assert sup.advance(run_id) is False
    seconds = time.monotonic() - t0
    faulty.stop()

    # Bounded: exactly the retries allowed, in bounded time.
    assert len(faulty.times) == requests, faulty.times
    assert seconds < 15, f"{name}: took {seconds:.1f}s"
    if name == "429 with Retry-After":  # the server's Retry-After is honoured between attempts
        gaps = [b - a for a, b in zip(faulty.times, faulty.times[1:], strict=False)]
        assert all(g >= 0.28 for g in gaps), gaps

    # The run waits for a person with a message they can act on; the failed call is recorded.
    d = views.get_run(run_id)
    assert d.status == RunStatus.FAILED and d.halt_reason == f"error:{kind}"
    assert d.error and words in d.error and "Traceback" not in d.error, d.error
    assert "sk-fake" not in d.error
    with session_scope() as s:
        failed_step = s.exec(select(Step).where(Step.run_id == run_id,
                                                Step.status == "error")).one()
        failed_calls = s.exec(select(LLMCall).where(LLMCall.step_id == failed_step.id,
                                                    LLMCall.status == "error")).all()
    assert failed_step.error == d.error
    assert len(failed_calls) == 1 and failed_calls[0].attempts == requests

    # Nothing decided earlier changed.
    assert snapshot(run_id) == before

    # Retry (the Run page's button) continues from the failed step and finishes the run.
    service.retry(run_id=run_id, actor="dr. lee")
    assert claim_run(run_id, "w2")
    assert Supervisor(backend(fake), "w2").run_until_idle(run_id) == RunStatus.REVIEW
    after = views.get_run(run_id)
    assert after.halt_reason == "thresholds_met" and after.error is None
    assert [(v.version, v.content) for v in after.drafts][:len(before["drafts"])] == \
        [(v[1], v[2]) for v in before["drafts"]]
    assert [dr.version for dr in after.drafts] == [1, 2]
    assert [a.action for a in after.actions] == ["retry"]
    report.append({"fault": name, "injected": len(plans), "requests": len(faulty.times),
                   "seconds_to_fail": round(seconds, 2), "error": d.error, "lost": 0})


@pytest.mark.parametrize("plans", [
    [Reply.rate_limit(0.1), Reply.server_error()],
    [Reply.reset(), Reply.hang(5)],
    [Reply.malformed()],
], ids=["429+500", "reset+timeout", "one malformed reply"])
def test_transient_faults_are_absorbed(db_url: str, fake: FakeOpenAI,
                                       report: list[dict[str, Any]], plans: list[Plan]) -> None:
    """Fewer faults than the retries allow: the step succeeds, and the call records every
    attempt it took."""
    run_id, sup = first_iteration(fake)
    faulty: Faulty = fake.faulty  # type: ignore[attr-defined]
    faulty.inject(_is_revision, plans)
    assert sup.run_until_idle(run_id) == RunStatus.REVIEW
    faulty.stop()
    d = views.get_run(run_id)
    assert d.halt_reason == "thresholds_met" and [dr.version for dr in d.drafts] == [1, 2]
    with session_scope() as s:
        calls = s.exec(select(LLMCall).where(LLMCall.run_id == run_id,
                                             LLMCall.agent == "drafter")).all()
    assert all(c.status == "ok" for c in calls)
    assert max(c.attempts for c in calls) == len(plans) + 1
    report.append({"fault": "transient: " + "+".join(p.kind for p in plans),
                   "injected": len(plans), "requests": len(plans) + 1, "lost": 0})


def test_the_run_page_shows_the_fault_and_its_retry_carries_on(
    db_url: str, fake: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a person sees after a real fault: the message on the Run page, and a retry button
    that queues the failed step again (the in-app worker is off here; a worker drives it)."""
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("DRAFTROOM_INAPP_WORKER", "0")
    run_id, sup = first_iteration(fake)
    faulty: Faulty = fake.faulty  # type: ignore[attr-defined]
    faulty.inject(_is_revision, [Reply.server_error(503, "overloaded")] * 3)
    assert sup.advance(run_id) is False
    faulty.stop()
    error = views.get_run(run_id).error or ""
    at = AppTest.from_file(str(Path(__file__).resolve().parent.parent / "app.py"),
                           default_timeout=30)
    at.session_state["reviewer"] = "Dr. Lee"
    at.run()
    at.query_params["run"] = str(run_id)
    at.switch_page("pages/run.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("HTTP 503" in e.value and error in e.value for e in at.error), \
        [e.value for e in at.error]
    retry = [b for b in at.button if b.label == "Retry the failed step"]
    assert retry, [b.label for b in at.button]
    retry[0].click().run()
    assert not at.exception
    assert views.get_run(run_id).status == RunStatus.QUEUED
    assert claim_run(run_id, "w2")
    assert Supervisor(backend(fake), "w2").run_until_idle(run_id) == RunStatus.REVIEW
