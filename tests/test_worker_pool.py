"""Issue 16 item 6: one worker drives many runs at once (a bounded pool of threads, leases and a
heartbeat per run), on SQLite and PostgreSQL. Concurrency is shown by a barrier the model calls
must all reach together, never by timing; the limit by the most calls ever in flight; two
workers by every run having exactly one driver; a killed worker process by its runs reaching
review through another, with nothing lost or done twice."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from sqlmodel import select

from db.migrate import migrate
from db.models import Run, Step
from db.session import session_scope
from engine import service
from engine.config import ConfigError, settings
from engine.llm.base import AgentCall, LLMResponse, T
from engine.llm.offline.backend import OfflineBackend
from engine.loop.leases import claim_run, heartbeat_many
from engine.loop.worker import Worker
from engine.run_state import RunStatus
from testkit.fake_openai import FakeOpenAI
from tests.factories import INTENT
from tests.test_workers import ROOT, check_invariants, leased_pids, worker_env
from tests.utils.clock import ManualClock
from tests.utils.team import ProtocolTeam

WAIT = 60  # seconds a barrier or a test waits at most: a failure, not a measurement


class Gate(OfflineBackend):
    """The offline backend whose first drafter calls wait at a barrier until `parties` of them
    are in flight together (so the test passes only if that many runs are driven at once), and
    which counts the most calls ever in flight."""

    def __init__(self, parties: int) -> None:
        self.barrier = threading.Barrier(parties, timeout=WAIT)
        self.met = False
        self.lock = threading.Lock()
        self.in_flight = 0
        self.most = 0
        self.threads: set[str] = set()

    def generate(self, call: AgentCall[T]) -> LLMResponse[T]:
        with self.lock:
            self.in_flight += 1
            self.most = max(self.most, self.in_flight)
            self.threads.add(threading.current_thread().name)
        try:
            if call.agent == "drafter" and not self.met:
                self.barrier.wait()  # raises (the run fails) when they never meet
                self.met = True  # one round shows it; later calls pass on their own
            return super().generate(call)
        finally:
            with self.lock:
                self.in_flight -= 1


def queue(n: int, label: str = "") -> list[int]:
    return [service.start_run(kind="protocol", actor="dr. lee",
                              input={**INTENT, "intent": f"{INTENT['intent']} {label}{i}"})
            for i in range(n)]


def statuses(ids: list[int]) -> dict[int, str]:
    with session_scope() as s:
        return dict(s.exec(select(Run.id, Run.status).where(Run.id.in_(ids))).all())  # type: ignore[union-attr,arg-type]


def drive_until_idle(worker: Worker) -> None:
    t = threading.Thread(target=worker.run_forever, args=(threading.Event(),),
                         kwargs={"exit_when_idle": True})
    t.start()
    t.join(WAIT * 2)
    assert not t.is_alive(), "the worker did not finish the queue"


def test_a_worker_drives_as_many_runs_at_once_as_its_concurrency(db_any: str) -> None:
    ids = queue(6)
    backend = Gate(parties=3)
    worker = Worker(backend=backend, worker_id="pool", concurrency=3, poll_seconds=0.05)
    drive_until_idle(worker)
    # Three drafter calls met at the barrier: three runs were in flight together ...
    assert not backend.barrier.broken, "three runs were never driven at the same time"
    # ... and never more than the concurrency (the offline critics run in the drive's thread).
    assert backend.most == 3
    assert len(backend.threads) == 3
    assert set(statuses(ids).values()) == {RunStatus.REVIEW}
    # (At least the three that met: an in-app worker thread another test's AppTest left in
    # this process may take some of the queue too; the Gate counts only this worker's calls.)
    assert 3 <= worker.runs_done <= 6
    with session_scope() as s:
        held = s.exec(select(Run.id).where(Run.lease_owner.is_not(None))).all()  # type: ignore[union-attr]
    assert not held, "a clean end gives every lease back"


def test_concurrency_one_drives_one_run_at_a_time(db_url: str) -> None:
    ids = queue(3)
    backend = Gate(parties=1)
    drive_until_idle(Worker(backend=backend, worker_id="one", concurrency=1, poll_seconds=0.05))
    assert backend.most == 1
    assert set(statuses(ids).values()) == {RunStatus.REVIEW}


def test_two_workers_share_the_queue_and_never_a_run(db_any: str) -> None:
    ids = queue(12, "shared ")
    a = Worker(backend=OfflineBackend(), worker_id="a", concurrency=4, poll_seconds=0.05)
    b = Worker(backend=OfflineBackend(), worker_id="b", concurrency=4, poll_seconds=0.05)
    threads = [threading.Thread(target=w.run_forever, args=(threading.Event(),),
                                kwargs={"exit_when_idle": True}) for w in (a, b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT * 2)
    assert set(statuses(ids).values()) == {RunStatus.REVIEW}
    assert 0 < a.runs_done + b.runs_done <= len(ids)  # (a stray in-app thread may take some)
    with session_scope() as s:
        steps = s.exec(select(Step.run_id, Step.worker).where(Step.run_id.in_(ids))).all()  # type: ignore[union-attr]
    drivers: dict[int, set[str | None]] = {}
    for run_id, worker in steps:
        drivers.setdefault(run_id, set()).add(worker)
    assert all(len(w) == 1 for w in drivers.values()), drivers


def test_one_beat_renews_every_lease_the_worker_holds_and_no_other(db_any: str) -> None:
    clock = ManualClock()
    mine = queue(3, "mine ")
    theirs = queue(1, "theirs ")
    for run_id in mine:
        assert claim_run(run_id, "me", clock)
    assert claim_run(theirs[0], "them", clock)
    clock.advance(20)
    assert heartbeat_many([*mine, theirs[0]], "me", clock) == set(mine)
    clock.advance(20)  # 40 s after the claims: past the 30 s lease but for the beat
    assert not any(claim_run(r, "thief", clock) for r in mine)
    assert claim_run(theirs[0], "thief", clock), "an unrenewed lease runs out"
    assert heartbeat_many([], "me", clock) == set()


def test_concurrency_settings_are_validated(monkeypatch: pytest.MonkeyPatch) -> None:
    assert settings().worker_concurrency == 16 and settings().inapp_concurrency == 4
    monkeypatch.setenv("DRAFTROOM_WORKER_CONCURRENCY", "0")
    with pytest.raises(ConfigError, match="DRAFTROOM_WORKER_CONCURRENCY must be a whole number"):
        settings()
    monkeypatch.setenv("DRAFTROOM_WORKER_CONCURRENCY", "8")
    assert Worker(backend=OfflineBackend()).concurrency == 8


@pytest.mark.slow
def test_a_worker_killed_with_many_runs_in_flight_loses_nothing(
        db_any: str, tmp_path: Path) -> None:
    """SIGKILL a worker process while it drives several runs at once; a second worker takes
    every one of them over once their leases run out, and the rows show each run's steps done
    once, by one worker at a time, every draft and score there."""
    migrate(db_any)
    ids = queue(16, "killed ")
    with FakeOpenAI(latency=0.3, responder=ProtocolTeam()) as server:
        env = worker_env(db_any, server.url) | {"DRAFTROOM_WORKER_CONCURRENCY": "8"}
        logs = [open(tmp_path / f"w{i}.log", "wb") for i in range(2)]  # noqa: SIM115
        cmd = [sys.executable, "-m", "engine", "worker", "--poll", "0.1"]
        first = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=logs[0], stderr=subprocess.STDOUT)
        deadline = time.monotonic() + WAIT
        # Kill it once it holds several leases at once (and has finished some steps).
        while time.monotonic() < deadline:
            with session_scope() as s:
                held = s.exec(select(Run.id).where(Run.status == RunStatus.RUNNING,
                                                   Run.id.in_(ids))).all()  # type: ignore[union-attr]
            if len(held) >= 4 and first.pid in leased_pids():
                break
            time.sleep(0.05)
        first.send_signal(signal.SIGKILL)
        first.wait()
        assert len(held) >= 4, "the worker never held several runs at once"
        second = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=logs[1],
                                  stderr=subprocess.STDOUT)
        try:
            while time.monotonic() < deadline + WAIT * 2:
                if not set(statuses(ids).values()) & set(RunStatus.ACTIVE):
                    break
                time.sleep(0.1)
            second.send_signal(signal.SIGTERM)
            second.wait(timeout=WAIT)
        finally:
            if second.poll() is None:
                second.kill()
            for f in logs:
                f.close()
    log = (tmp_path / "w1.log").read_text(errors="replace")
    assert second.returncode == 0, log[-3000:]
    assert "run failed unexpectedly" not in log, log[-3000:]
    figures = check_invariants(ids)
    assert figures["runs_taken_over"] >= 1, figures
