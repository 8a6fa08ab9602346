"""The app starts its own worker thread only when nothing else drives runs: `make run` starts a
worker process beside it (DRAFTROOM_SERVE_WORKER_PID), and the app alone still gets one."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ui import worker as inapp

ROOT = Path(__file__).resolve().parent.parent


def _worker_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "draftroom-worker"]


def test_beside_serves_worker_process_the_app_starts_none(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DRAFTROOM_SERVE_WORKER_PID", str(os.getpid()))
    before = len(_worker_threads())
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    assert not at.exception
    assert len(_worker_threads()) == before
    status = inapp.ensure_worker()
    assert (status.enabled, status.alive, status.process) == (False, True, os.getpid())
    sidebar = " ".join(c.value for c in at.sidebar.caption)
    assert f"Worker process {os.getpid()} running beside the app" in sidebar


def test_a_stopped_serve_worker_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DRAFTROOM_SERVE_WORKER_PID", str(2**22 + 12345))  # no such process
    status = inapp.ensure_worker()
    assert not status.alive and status.process == 2**22 + 12345


def test_the_app_alone_runs_its_own_worker_at_the_in_app_concurrency(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DRAFTROOM_SERVE_WORKER_PID", raising=False)
    monkeypatch.setenv("DRAFTROOM_INAPP_CONCURRENCY", "3")
    manager = inapp.InAppWorker()
    try:
        manager.ensure_running()
        assert manager.status().alive
        assert manager.worker is not None and manager.worker.concurrency == 3
    finally:
        manager.stop()
    assert not manager.status().alive
