"""Issue 16 item 3 (the drafter's part): with a real model the drafter's answer streams in; the
worker writes it to the run's LiveDraft row a few times a second, outside the step's
transaction; the Run page shows it growing while the step runs and the committed version
after; a kill mid-stream leaves no partial text as a version. The fake server streams (SSE) at
a set rate, as a real one does, with the usage in the last chunk."""

from __future__ import annotations

import threading
import time
from typing import Any

from sqlmodel import select

from db.models import Draft, LLMCall
from db.session import session_scope
from engine import service, views
from engine.live_draft import live_draft, poll, readable
from engine.loop.leases import claim_run
from engine.loop.supervisor import Supervisor
from engine.run_state import RunStatus
from testkit.fake_openai.streaming import StreamingFakeOpenAI
from tests.test_realmodel import INTENT, ReportingServer, Team, _backend


class StreamingServer(ReportingServer, StreamingFakeOpenAI):
    """The streaming fake server (testkit), keeping the usage block of every answer it sent."""


def test_partial_json_reads_as_the_fields_so_far() -> None:
    assert readable('{"title": "Exam panic", "steps": ["Sit do') == (
        "**Title**\n\nExam panic\n\n**Steps**\n\n- Sit do")
    assert readable("") == "" and readable('{"ti') == ""


def test_the_drafters_answer_streams_into_the_run_and_is_replaced_by_the_version(
    db_url: str,
) -> None:
    with StreamingServer(responder=Team(), chunk=12, gap=0.05) as server:
        run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
        assert claim_run(run_id, "w1")
        sup = Supervisor(_backend(server), "w1")
        seen: list[str] = []
        done = threading.Event()
        worker = threading.Thread(target=lambda: (sup.run_until_idle(run_id), done.set()),
                                  daemon=True)
        worker.start()
        while not done.wait(0.05):
            live = live_draft(run_id)
            if live is not None and (not seen or live.text != seen[-1]):
                seen.append(live.text)
        streamed = [r for r in server.chat_requests if r.body.get("stream")]
        reported = server.reported  # type: ignore[attr-defined]
    # The text grew while the step ran: several reads, each a longer prefix of the next.
    assert len(seen) >= 3, seen
    assert any("Exam panic" in t for t in seen)
    # Only the drafter streams; the critics' answers come whole.
    assert streamed and all("Drafter" in r.messages[0]["content"] for r in streamed)
    assert views.get_run(run_id).status == RunStatus.REVIEW
    assert live_draft(run_id) is None  # its step is done: the version replaced it
    # A streamed answer's usage (last chunk) is recorded to the token.
    with session_scope() as s:
        calls = s.exec(select(LLMCall).where(LLMCall.run_id == run_id)).all()
    assert sum(c.prompt_tokens for c in calls) == sum(r["prompt"] for r in reported)
    assert sum(c.completion_tokens for c in calls) == sum(r["completion"] for r in reported)


def test_a_kill_mid_stream_leaves_no_partial_version(db_url: str) -> None:
    """Mid-stream, the partial text is in its own row and in no version; when a worker that
    takes the run over abandons the dead worker's step (as resume does), it is no longer
    shown at all."""
    from sqlalchemy import update

    from db.models import Step
    from db.session import get_engine

    # slow enough to look half-way
    with StreamingServer(responder=Team(), chunk=12, gap=0.2) as server:
        run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
        assert claim_run(run_id, "w1")
        sup = Supervisor(_backend(server), "w1")
        worker = threading.Thread(target=lambda: sup.advance(run_id), daemon=True)
        worker.start()
        deadline = time.monotonic() + 30
        partial = None
        while time.monotonic() < deadline and not (partial and partial.text):
            time.sleep(0.05)
            partial = live_draft(run_id)
        assert partial is not None and partial.text
        # The Run page's poll: the run's version and the live row, from one statement.
        polled = poll(run_id)
        assert polled.version == views.run_version(run_id) and polled.live is not None
        assert polled.live.text.startswith(partial.text[:20])
        with session_scope() as s:
            assert s.exec(select(Draft).where(Draft.run_id == run_id)).all() == []
        step_t = Step.__table__  # type: ignore[attr-defined]
        with get_engine().begin() as c:  # what a resuming worker does to a dead one's step
            c.execute(update(step_t).where(step_t.c.run_id == run_id,
                                           step_t.c.status == "running")
                      .values(status="abandoned"))
        assert live_draft(run_id) is None
        assert poll(run_id).live is None and poll(run_id).version is not None
        assert poll(run_id + 1000).version is None  # no such run: nothing to draw
        server.gap = 0.0
        worker.join(60)


def test_critics_scores_appear_one_by_one_while_the_review_runs(db_url: str) -> None:
    """The Clinical Critic is slow: the Safety Guardian's score is shown before the review
    step ends, with the other critic still scoring; then the step commits both."""
    from testkit.fake_openai import Reply

    team = Team()
    real = team.team

    def slow_clinical(request: dict[str, Any]) -> Any:
        if "Clinical Critic" in str(request["messages"][0]["content"]):
            return Reply.delay(2.0, Reply.ok(real(request)))
        return real(request)

    team.team = slow_clinical  # type: ignore[assignment]
    with ReportingServer(responder=team) as server:
        run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
        assert claim_run(run_id, "w1")
        sup = Supervisor(_backend(server), "w1")
        assert sup.advance(run_id)  # the draft
        seen: list[str] = []
        done = threading.Event()
        worker = threading.Thread(target=lambda: (sup.advance(run_id), done.set()),
                                  daemon=True)
        worker.start()
        while not done.wait(0.05):
            live = live_draft(run_id)
            if live is not None and live.agent == "critics" and live.text not in seen:
                seen.append(live.text)
    assert any("**safety guardian**: safety 0.95" in t and "**clinical critic**: _scoring…_"
               in t for t in seen), seen
    assert live_draft(run_id) is None  # the step is done: its scores are the run's now
    assert set(views.get_run(run_id).drafts[0].scores) >= {"safety", "clinical"}
