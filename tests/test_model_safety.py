"""Issue 14 item 2: with a real model, the Safety Guardian's own flags join the deterministic
screen's, and a server's moderation endpoint is asked about every sentence for self-harm
(recorded as a call); a server without one is skipped quietly, learned once."""

from __future__ import annotations

import threading
from typing import Any

from sqlmodel import select

from db.models import Draft, Flag, LLMCall
from db.session import session_scope
from engine import service
from engine.llm import capabilities
from testkit.fake_openai import FakeOpenAI
from testkit.fake_openai.handler import Handler as _Handler
from tests.test_realmodel import INTENT, Team, _backend, _drive, server
from tests.utils.team import SECOND_DRAFT

__all__ = ["server"]  # the fixture

UNSAFE_STEP = "Breathe out gently through your mouth for a count of six."


class ModeratingServer(FakeOpenAI):
    """The fake server with /v1/moderations: a sentence is self-harm when it contains
    `self.unsafe` (the moderation model's verdict, scripted)."""

    unsafe = "count of six"

    def start(self) -> FakeOpenAI:
        from http.server import ThreadingHTTPServer

        fake = self

        class Handler(_Handler):
            def do_POST(self) -> None:  # noqa: N802
                if not self.path.rstrip("/").endswith("/moderations"):
                    return super().do_POST()
                body = self._read_json()
                self._record(body)
                self._line = "POST /v1/moderations"
                results = [{
                    "flagged": fake.unsafe in text,
                    "categories": {"self-harm": fake.unsafe in text,
                                   "self-harm/intent": False,
                                   "self-harm/instructions": fake.unsafe in text},
                    "category_scores": {"self-harm": 0.9 if fake.unsafe in text else 0.01},
                } for text in body["input"]]
                self._send(200, {"id": "modr-1", "model": body["model"], "results": results})

        handler = type("H", (Handler,), {"fake": self})
        self._httpd = ThreadingHTTPServer((self.host, self._port), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self


def _flags(run_id: int) -> list[Flag]:
    with session_scope() as s:
        ids = [d.id for d in s.exec(select(Draft).where(Draft.run_id == run_id))]
        return list(s.exec(select(Flag).where(Flag.draft_id.in_(ids))))  # type: ignore[union-attr]


def test_moderation_flags_the_sentence_and_is_recorded_as_a_call(db_url: str) -> None:
    with ModeratingServer(responder=Team()) as server:
        run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
        _drive(run_id, _backend(server), "w1")
        asked = [r for r in server.requests if r.path.endswith("/moderations")]
    assert asked and all(r.body["model"] == "omni-moderation-latest" for r in asked)
    flags = [f for f in _flags(run_id) if f.check == "moderation"]
    assert flags and all(f.text == UNSAFE_STEP and f.blocking for f in flags)
    with session_scope() as s:
        calls = s.exec(select(LLMCall).where(LLMCall.run_id == run_id,
                                             LLMCall.agent == "moderation")).all()
    assert len(calls) == len(asked) and all(c.status == "ok" and c.cost_usd == 0 for c in calls)
    assert calls[0].response["flagged"][0]["sentence"] == UNSAFE_STEP


def test_a_server_without_moderation_is_asked_once_per_database(
    db_url: str, server: FakeOpenAI
) -> None:
    for worker in ("w1", "w2"):
        run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
        _drive(run_id, _backend(server), worker)
    asked = [r for r in server.requests if r.path.endswith("/moderations")]
    assert len(asked) == 1  # four reviews, two workers: one 404, then skipped
    rows = {r.feature: r.supported for r in capabilities.list_capabilities()}
    assert rows["moderation"] is False
    with session_scope() as s:
        assert not s.exec(select(LLMCall).where(LLMCall.agent == "moderation")).all()


def test_the_guardians_critical_note_that_quotes_a_sentence_becomes_a_flag(
    db_url: str, server: FakeOpenAI
) -> None:
    team = server.team  # type: ignore[attr-defined]
    real = team.team

    def guardian(request: dict[str, Any]) -> Any:
        if "Safety Guardian" in str(request["messages"][0]["content"]):
            return {"safety": 0.4, "notes": [{
                "target": "drafter", "priority": "critical",
                "text": f'Remove "{UNSAFE_STEP[:-1]}": it reads as an instruction to harm.'}]}
        return real(request)

    team.team = guardian  # type: ignore[assignment]
    intent = {**INTENT, "intent": INTENT["intent"].replace(SECOND_DRAFT, "")}
    run_id = service.start_run(kind="protocol", input=intent, actor="dr. lee")
    _drive(run_id, _backend(server), "w1")
    flags = [f for f in _flags(run_id) if f.check == "safety_guardian"]
    assert flags and {f.text for f in flags} == {UNSAFE_STEP}
    assert all(f.blocking and f.category == "model_safety" for f in flags)


def test_the_offline_backend_adds_no_model_flags(db_url: str) -> None:
    from engine.loop.worker import Worker

    run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
    Worker().run_given(run_id)
    assert not [f for f in _flags(run_id) if f.check in ("moderation", "safety_guardian")]
