"""Stopping `python -m engine worker` (issue 16's leftover), with a real worker process against
the fake model server: the first SIGTERM stops it taking runs and lets the run in flight finish
the step it is in, then the worker hands the run back and exits 0; a second signal, or the grace
running out while the model still answers, ends it at once (exit 1) with the lease handed back.
Either way nothing committed is lost, and another worker carries the run on from there."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

from db.models import Draft, Run, Step
from db.session import session_scope
from engine import service
from engine.run_state import RunStatus
from testkit.fake_openai import FakeOpenAI
from testkit.protocol_team import ProtocolTeam

INPUT = {"intent": "Help a university student manage exam panic", "audience": "adult students"}
WAIT_S = 180.0  # how long to wait for a process on a loaded machine (never a timed assertion)


class HeldDrafter:
    """The protocol team; the drafter's answers wait until `release` is set."""

    def __init__(self) -> None:
        self.team = ProtocolTeam([0.9])
        self.release = threading.Event()
        self.drafting = threading.Event()

    def __call__(self, request: dict[str, Any]) -> Any:
        if "You are the Drafter" in str(request["messages"][0]["content"]):
            self.drafting.set()
            self.release.wait(WAIT_S)
        return self.team(request)


@pytest.fixture
def server() -> Iterator[tuple[FakeOpenAI, HeldDrafter]]:
    team = HeldDrafter()
    with FakeOpenAI(responder=team) as fake:
        yield fake, team
        team.release.set()


def _worker(url: str, base_url: str, log: Path, *args: str) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env.update(DATABASE_URL=url, DRAFTROOM_BACKEND="openai", OPENAI_BASE_URL=base_url,
               OPENAI_API_KEY="sk-fake-stop-test-0000", DRAFTROOM_WORKER_CONCURRENCY="1",
               DRAFTROOM_LLM_TIMEOUT="300", PYTHONUNBUFFERED="1")
    with log.open("ab") as out:
        return subprocess.Popen([sys.executable, "-m", "engine", "worker", "--poll", "0.1",
                                 *args], env=env, stdout=out, stderr=subprocess.STDOUT)


def _until(what: str, check: Any, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + WAIT_S
    while not check():
        assert proc.poll() is None, f"the worker ended before {what}:\n{log.read_text()}"
        assert time.monotonic() < deadline, f"no {what} after {WAIT_S:g} s:\n{log.read_text()}"
        time.sleep(0.1)


def _drafting(run_id: int) -> bool:
    with session_scope() as s:
        return s.exec(select(Step).where(Step.run_id == run_id, Step.node == "draft",
                                         Step.status == "running")).first() is not None


def _state(run_id: int) -> dict[str, Any]:
    with session_scope() as s:
        run = s.get(Run, run_id)
        assert run is not None
        steps = s.exec(select(Step).where(Step.run_id == run_id).order_by(Step.seq)).all()
        drafts = s.exec(select(Draft).where(Draft.run_id == run_id)).all()
        return {"status": run.status, "owner": run.lease_owner, "next": run.next_node,
                "steps": [(st.node, st.status) for st in steps],
                "versions": sorted(d.version for d in drafts)}


def _started(db_url: str, n: int) -> list[int]:
    return [service.start_run(kind="protocol", actor="dr. lee", input=INPUT) for _ in range(n)]


def _finish_with_a_new_worker(db_url: str, base_url: str, log: Path) -> None:
    again = _worker(db_url, base_url, log, "--once")
    assert again.wait(WAIT_S) == 0, log.read_text()


def test_sigterm_lets_the_step_in_flight_commit_then_hands_the_run_back(
        db_url: str, server: tuple[FakeOpenAI, HeldDrafter], tmp_path: Path) -> None:
    fake, team = server
    first, second = _started(db_url, 2)
    log = tmp_path / "worker.log"
    proc = _worker(db_url, fake.url, log)
    try:
        _until("draft step of the first run", lambda: _drafting(first) and team.drafting.is_set(),
               proc, log)
        proc.send_signal(signal.SIGTERM)
        _until("word of the stop", lambda: "taking no new runs" in log.read_text(), proc, log)
        team.release.set()  # the model answers after the stop: the step still commits
        assert proc.wait(WAIT_S) == 0, log.read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
    # The draft step committed its version; no next step was opened; the run is back in the
    # queue for the review, held by nobody. The second run was never taken.
    assert _state(first) == {"status": RunStatus.QUEUED, "owner": None, "next": "review",
                             "steps": [("draft", "done")], "versions": [1]}
    assert _state(second) == {"status": RunStatus.QUEUED, "owner": None, "next": "draft",
                              "steps": [], "versions": []}
    # Another worker carries both on from there: v1 is not written again.
    _finish_with_a_new_worker(db_url, fake.url, log)
    done = _state(first)
    assert done["status"] == RunStatus.REVIEW and done["versions"] == [1]
    assert done["steps"][:2] == [("draft", "done"), ("review", "done")]
    assert _state(second)["status"] == RunStatus.REVIEW


@pytest.mark.slow
@pytest.mark.parametrize("how", ["grace", "second signal"])
def test_the_grace_running_out_or_a_second_signal_ends_it_now_and_loses_nothing(
        db_url: str, server: tuple[FakeOpenAI, HeldDrafter], tmp_path: Path, how: str) -> None:
    fake, team = server
    (run_id,) = _started(db_url, 1)
    log = tmp_path / "worker.log"
    proc = _worker(db_url, fake.url, log, "--grace", "1" if how == "grace" else "600")
    try:
        _until("draft step", lambda: _drafting(run_id) and team.drafting.is_set(), proc, log)
        proc.send_signal(signal.SIGTERM)
        if how == "second signal":
            _until("word of the stop", lambda: "taking no new runs" in log.read_text(), proc, log)
            proc.send_signal(signal.SIGINT)
        # The model never answers meanwhile: the worker ends without waiting for it.
        assert proc.wait(WAIT_S) == 1, log.read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
    assert ("grace ran out" if how == "grace" else "a second signal") in log.read_text()
    # The lease was handed back (no wait for it to expire); the unfinished step wrote nothing.
    left = _state(run_id)
    assert left == {"status": RunStatus.QUEUED, "owner": None, "next": "draft",
                    "steps": [("draft", "running")], "versions": []}
    team.release.set()
    _finish_with_a_new_worker(db_url, fake.url, log)
    done = _state(run_id)
    assert done["status"] == RunStatus.REVIEW and done["versions"] == [1]
    assert done["steps"][0] == ("draft", "abandoned")  # done again by the new worker
