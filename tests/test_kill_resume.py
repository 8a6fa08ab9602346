"""A process killed mid-run (SIGKILL) resumes on restart with no lost or duplicated draft."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from sqlmodel import func, select

from db.models import Draft, Run, Step, utcnow
from db.session import reset_engines, session_scope
from engine import service, views
from engine.interfaces.cli import main as cli
from engine.loop.worker import Worker
from testkit.fake_openai import running
from testkit.protocol_team import ProtocolTeam
from tests.factories import INTENT
from tests.utils.clock import ManualClock

ROOT = Path(__file__).resolve().parent.parent


def _env(db_url: str, base_url: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DATABASE_URL=db_url,
        OPENAI_BASE_URL=base_url,
        OPENAI_API_KEY="sk-test-kill-0000",
        DRAFTROOM_BACKEND="openai",
        DRAFTROOM_LEASE_SECONDS="1",
        PYTHONPATH=str(ROOT),
    )
    return env


def _steps(run_id: int) -> int:
    with session_scope() as s:
        return s.exec(select(func.count()).select_from(Step).where(Step.run_id == run_id)).one()


@pytest.mark.slow
def test_sigkill_mid_run_then_resume_loses_and_duplicates_nothing(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with running(latency=0.3, responder=ProtocolTeam([0.5, 0.6, 0.9])) as server:
        env = _env(db_url, server.url)
        cmd = [
            sys.executable,
            "-m",
            "engine",
            "run",
            "protocol",
            "--intent",
            "Help a university student manage exam panic",
            "--audience",
            "students",
        ]
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
        first = proc.stdout.readline()  # type: ignore[union-attr]
        assert first.startswith("run-id: ")
        run_id = int(first.split()[1])
        deadline = time.monotonic() + 30
        while _steps(run_id) < 5 and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        reset_engines()
        with session_scope() as s:
            before = s.exec(
                select(Draft.version, Draft.content_hash).where(Draft.run_id == run_id)
            ).all()
            run = s.get(Run, run_id)
        assert run is not None and run.status == "running"  # killed while holding its lease
        assert len(before) >= 2
        # A worker restarted later: its clock is past the dead process's lease (1 s), so it
        # takes the run over at once instead of the test waiting for the wall clock.
        for name, value in env.items():
            if name.startswith(("OPENAI_", "DRAFTROOM_")):
                monkeypatch.setenv(name, value)
        later = ManualClock(utcnow() + timedelta(seconds=2))
        assert Worker(worker_id="restarted", clock=later).run_given(run_id) == "awaiting_review"
        assert views.get_run(run_id).halt_reason == "thresholds_met"
    reset_engines()
    with session_scope() as s:
        drafts = s.exec(select(Draft).where(Draft.run_id == run_id).order_by(Draft.version)).all()
        steps = s.exec(select(Step).where(Step.run_id == run_id).order_by(Step.seq)).all()
    # Every draft committed before the kill is still there, unchanged.
    assert [(d.version, d.content_hash) for d in drafts][: len(before)] == list(before)
    # One draft per iteration, versions 1..n with no gaps or repeats.
    assert (
        [d.version for d in drafts]
        == list(range(1, len(drafts) + 1))
        == [d.iteration for d in drafts]
    )
    assert len(drafts) == 3
    # No node finished twice for the same iteration; the step cut off was abandoned.
    done = [(st.node, st.iteration) for st in steps if st.status == "done"]
    assert len(done) == len(set(done)) == 9
    assert [st.status for st in steps].count("abandoned") <= 1


def test_resume_drives_a_waiting_run_and_reports_where_it_stopped(
        db_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("DRAFTROOM_BACKEND", "offline")
    run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
    assert cli(["resume", str(run_id)]) == 0
    assert "status: awaiting_review (" in capsys.readouterr().out
