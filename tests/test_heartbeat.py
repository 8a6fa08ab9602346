"""The worker's lease heartbeat: a step longer than the lease keeps its run, and one thread
per worker beats for every run it drives (not one thread per run)."""

from __future__ import annotations

import threading
import time

import pytest

from engine import service
from engine.llm.base import AgentCall, LLMResponse, T
from engine.llm.offline.backend import OfflineBackend
from engine.loop import worker as worker_module
from engine.loop.leases import claim_run, lease_owner
from engine.loop.worker import Worker
from engine.views import get_run
from tests.factories import INTENT


class SlowBackend(OfflineBackend):
    """The offline backend, with every call taking `delay` seconds (a slow model)."""

    def __init__(self, delay: float) -> None:
        self.delay = delay

    def generate(self, call: AgentCall[T]) -> LLMResponse[T]:
        time.sleep(self.delay)
        return super().generate(call)


def beaters() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("heartbeat-")]


def test_a_step_longer_than_the_lease_keeps_its_run(db_url: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DRAFTROOM_LEASE_SECONDS", "0.6")  # beats every 0.2 s
    run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
    worker = Worker(backend=SlowBackend(1.2), worker_id="slow")
    t = threading.Thread(target=worker.run_given, args=(run_id,))
    t.start()
    try:
        while lease_owner(run_id) != "slow":  # the worker has claimed it
            assert t.is_alive()
            time.sleep(0.01)
        deadline = time.monotonic() + 2.5  # about four leases' worth, inside one step
        while time.monotonic() < deadline:
            assert not claim_run(run_id, "thief"), "the lease expired while its step ran"
            time.sleep(0.1)
    finally:
        t.join(60)
    assert get_run(run_id).status == "awaiting_review"
    assert worker.leases_lost == 0


def test_one_heartbeat_thread_serves_every_run_and_ends_when_idle(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DRAFTROOM_LEASE_SECONDS", "0.6")
    started: list[threading.Thread] = []

    class Counted(threading.Thread):
        def start(self) -> None:
            started.append(self)
            super().start()

    monkeypatch.setattr(worker_module.threading, "Thread", Counted)
    worker = Worker(backend=OfflineBackend(), worker_id="many")
    for _ in range(5):
        run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
        assert worker.run_given(run_id) == "awaiting_review"
    assert len(started) == 1, f"{len(started)} heartbeat threads for 5 runs"
    deadline = time.monotonic() + 5
    while any(t.name == "heartbeat-many" for t in beaters()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(t.name == "heartbeat-many" for t in beaters()), "idle beater did not end"
    # A later run starts a new one.
    run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
    assert worker.run_given(run_id) == "awaiting_review"
    assert len(started) == 2
