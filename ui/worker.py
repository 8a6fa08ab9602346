"""The in-app worker: one thread per Streamlit process that claims queued runs from the
database and drives them (engine.loop.worker.Worker). It never calls st.*; pages only read the
database. Runs left "running" by a process that died are reclaimed once their lease
expires, so restarting the app resumes them.

DRAFTROOM_INAPP_WORKER=0 turns it off, for deployments that run `python -m engine worker`;
an app started by `make run` (engine/interfaces/serve.py) has a worker process beside it
(DRAFTROOM_SERVE_WORKER_PID) and starts none of its own either."""

from __future__ import annotations

import atexit
import logging
import os
import threading
from dataclasses import dataclass

import streamlit as st

from engine.config import settings
from engine.loop.worker import Worker

log = logging.getLogger("draftroom.ui.worker")


def inapp_worker_enabled() -> bool:
    s = settings()
    return s.inapp_worker and s.serve_worker_pid is None


def serve_worker_alive(pid: int) -> bool:
    """Whether the worker process `make run` started beside this app still runs."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, as another user
        return True
    return True


@dataclass
class WorkerStatus:
    enabled: bool
    alive: bool
    process: int | None = None
    """The pid of the worker process `make run` started beside the app (then not enabled:
    the app runs no worker thread of its own)."""
    worker_id: str | None = None
    runs_done: int = 0
    error: str | None = None


class InAppWorker:
    """Owns one Worker thread for the process; restarts it if it ever dies."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.worker: Worker | None = None
        self.error: str | None = None
        atexit.register(self.stop)

    def ensure_running(self) -> None:
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            if self._stop.is_set():
                return
            try:
                self.worker = Worker(concurrency=settings().inapp_concurrency)
            except Exception as exc:  # e.g. the openai backend forced without a key
                self.error = str(exc)
                log.exception("in-app worker cannot start")
                return
            self.error = None
            self._thread = threading.Thread(target=self._run, args=(self.worker,),
                                            name="draftroom-worker", daemon=True)
            self._thread.start()

    def _run(self, worker: Worker) -> None:
        try:
            worker.run_forever(self._stop)
        except Exception as exc:  # run_forever catches per-run errors; this is the rest
            self.error = f"{type(exc).__name__}: {exc}"
            log.exception("in-app worker stopped")

    def stop(self, timeout: float = 5.0) -> None:
        """Ask the loop to stop and give back the runs it holds (on process exit): the steps in
        flight get `timeout` seconds to commit; the runs of those still out are handed back
        unfinished (their step is done again by the next worker, not after their lease)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=timeout)
            if self._thread.is_alive() and self.worker is not None:
                from engine.loop.leases import release_all

                release_all(self.worker.worker_id)

    def status(self) -> WorkerStatus:
        alive = self._thread is not None and self._thread.is_alive()
        return WorkerStatus(enabled=True, alive=alive,
                            worker_id=self.worker.worker_id if self.worker else None,
                            runs_done=self.worker.runs_done if self.worker else 0,
                            error=self.error)


@st.cache_resource(show_spinner=False)
def _in_app_worker() -> InAppWorker:
    return InAppWorker()


def ensure_worker() -> WorkerStatus:
    """Start the process's worker thread unless disabled; called on every script run (cheap)."""
    pid = settings().serve_worker_pid
    if pid is not None:
        return WorkerStatus(enabled=False, alive=serve_worker_alive(pid), process=pid)
    if not inapp_worker_enabled():
        return WorkerStatus(enabled=False, alive=False)
    manager = _in_app_worker()
    manager.ensure_running()
    return manager.status()
