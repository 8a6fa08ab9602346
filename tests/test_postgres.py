"""Claims, leases and storage on both databases (SQLite's conditional UPDATE, PostgreSQL's
FOR UPDATE SKIP LOCKED), and what only PostgreSQL has: JSONB and timestamptz columns, a fresh
database set up by `python -m engine migrate`, a worker that outlives a server restart."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections import Counter
from datetime import UTC
from pathlib import Path

import pytest
from sqlalchemy import inspect, text
from sqlmodel import select

from db.models import Run, Step
from db.session import get_engine, reset_engines, session_scope
from engine import service, views
from engine.llm.offline.backend import OfflineBackend
from engine.loop.leases import claim_next, claim_run, heartbeat, release_all
from engine.loop.supervisor import Supervisor
from engine.loop.worker import Worker
from engine.run_state import RunStatus
from tests.factories import INTENT
from tests.utils.clock import ManualClock

ROOT = Path(__file__).resolve().parent.parent


def queue(n: int) -> list[int]:
    return [service.start_run(kind="protocol", input=INTENT | {"intent": f"Exam panic {i}"},
                              actor="dr. lee") for i in range(n)]


def test_claims_are_exclusive_under_contention(db_any: str) -> None:
    ids = queue(60)
    claims: list[tuple[str, int]] = []
    lock = threading.Lock()
    start = threading.Barrier(8)

    def claimer(i: int) -> None:
        start.wait()
        while (run_id := claim_next(f"w{i}")) is not None:
            with lock:
                claims.append((f"w{i}", run_id))

    threads = [threading.Thread(target=claimer, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    per_run = Counter(run_id for _, run_id in claims)
    assert sorted(per_run) == ids and set(per_run.values()) == {1}, per_run.most_common(3)
    with session_scope() as s:
        owners = {r.id: r.lease_owner for r in s.exec(select(Run))}
    assert all(owners[run_id] == w for w, run_id in claims)
    assert len({w for w, _ in claims}) > 1  # the work was really shared


def test_an_expired_lease_moves_and_the_old_owner_cannot_commit(
    db_any: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DRAFTROOM_LEASE_SECONDS", "30")
    clock = ManualClock()  # leases run out when the test moves it on
    (run_id,) = queue(1)
    assert claim_next("slow", clock) == run_id
    assert claim_next("other", clock) is None  # the lease holds while it is fresh
    clock.advance(31)
    assert heartbeat(run_id, "slow", clock) is True  # nobody took it: a late beat still extends
    assert claim_next("other", clock) is None
    clock.advance(31)
    assert claim_run(run_id, "fast", clock)  # expired: another worker takes it over
    assert heartbeat(run_id, "slow", clock) is False
    assert Supervisor(OfflineBackend(), "slow").advance(run_id) is False  # refused, no step
    with session_scope() as s:
        assert not s.exec(select(Step).where(Step.run_id == run_id)).all()
    assert Supervisor(OfflineBackend(), "fast", clock=clock).run_until_idle(run_id) == (
        RunStatus.REVIEW)
    with session_scope() as s:
        assert {st.worker for st in s.exec(select(Step).where(Step.run_id == run_id))} == {"fast"}


def test_a_clean_exit_gives_leases_back(db_any: str) -> None:
    ids = queue(3)
    assert claim_next("leaving") == ids[0]
    assert claim_next("leaving") == ids[1]
    assert release_all("leaving") == 2
    with session_scope() as s:
        runs = s.exec(select(Run).where(Run.id.in_(ids))).all()  # type: ignore[union-attr]
    assert {r.status for r in runs} == {RunStatus.QUEUED} and not any(r.lease_owner for r in runs)
    assert claim_next("next") == ids[0]  # oldest first, at once: no lease to wait out


@pytest.mark.postgres
def test_jsonb_and_timestamptz_round_trip(pg_url: str) -> None:
    intent = "Exam panic — مرحبا 😀 «quotes» \"and\" 'these' \\ back\\slash"
    run_id = service.start_run(kind="protocol", actor="dr. lee",
                               input={"intent": intent, "audience": "שלום"})
    d = views.get_run(run_id)
    assert d.input["intent"] == intent and d.input["audience"] == "שלום"
    assert d.created_at.tzinfo is not None and d.created_at.utcoffset() == UTC.utcoffset(None)
    with get_engine().connect() as conn:
        cols = {c["name"]: c["type"] for c in inspect(conn).get_columns("run")}
        assert str(cols["input"]) == "JSONB" and cols["created_at"].timezone is True
        # JSONB is queryable as such: the intent, by key.
        found = conn.execute(text("SELECT input->>'intent' FROM run WHERE id = :i"),
                             {"i": run_id}).scalar_one()
    assert found == intent


@pytest.mark.postgres
def test_cli_migrates_a_fresh_database_and_runs_on_it(pg_server) -> None:  # type: ignore[no-untyped-def]
    url = pg_server.create_database()
    env = dict(os.environ, DATABASE_URL=url, DRAFTROOM_BACKEND="offline")
    try:
        for argv in (["migrate"], ["run", "protocol", "--intent", "Help with exam panic",
                                   "--actor", "dr. lee"]):
            p = subprocess.run([sys.executable, "-m", "engine", *argv], cwd=ROOT, env=env,
                               capture_output=True, text=True, timeout=180)
            assert p.returncode == 0, p.stderr[-2000:]
        assert "database ready: postgresql" in subprocess.run(
            [sys.executable, "-m", "engine", "migrate"], cwd=ROOT, env=env,
            capture_output=True, text=True, timeout=120).stdout
        assert "status: awaiting_review" in p.stdout
    finally:
        pg_server.drop_database(url)


@pytest.mark.postgres
def test_a_worker_outlives_a_database_restart(pg_server, pg_url: str) -> None:  # type: ignore[no-untyped-def]
    worker = Worker(backend=OfflineBackend(), poll_seconds=0.1)
    stop = threading.Event()
    thread = threading.Thread(target=worker.run_forever, args=(stop,), daemon=True)
    thread.start()
    try:
        (first,) = queue(1)
        _wait_for_review(first)
        pg_server.restart()  # every pooled connection is cut
        reset_engines()  # this test's own engine; the worker keeps the one it has
        (second,) = queue(1)
        _wait_for_review(second)
    finally:
        stop.set()
        thread.join(timeout=30)
    assert worker.runs_done >= 2


def _wait_for_review(run_id: int, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if views.get_run(run_id).status == RunStatus.REVIEW:
                return
        except Exception:  # noqa: BLE001  (the server is coming back)
            pass
        time.sleep(0.2)
    raise AssertionError(f"run {run_id} did not reach review in {seconds}s")


def test_a_connection_cut_while_a_step_runs_is_replaced_and_nothing_doubles(
        pg_url: str) -> None:
    """A worker holds one connection for a run's steps; it sits idle while a model answers.
    If the server drops it then, the step's commit finds out, is tried again on a new
    connection, and the run goes on: every step once, every call recorded once."""
    (run_id,) = queue(1)
    cut: list[int] = []

    def cut_the_held_connection(event) -> None:  # type: ignore[no-untyped-def]
        if event.node == "review" and event.status == "started" and not cut:
            with get_engine().connect() as admin:
                cut.append(admin.execute(text(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid() "
                    "AND state = 'idle'")).scalar_one())

    assert claim_run(run_id, "w1")
    sup = Supervisor(OfflineBackend(), "w1", on_event=cut_the_held_connection)
    assert sup.run_until_idle(run_id) == RunStatus.REVIEW
    assert cut and cut[0] >= 1  # the held connection (idle between steps) was among them
    d = views.get_run(run_id)
    seqs = [s.seq for s in d.steps]
    assert seqs == list(range(1, len(seqs) + 1)) and all(s.status == "done" for s in d.steps)
    with session_scope() as s:
        calls = s.exec(text("SELECT step_id, agent FROM llmcall WHERE run_id = :r"),  # type: ignore[call-overload]
                       params={"r": run_id}).all()
    assert len(calls) == len(set(calls))  # no call recorded twice
