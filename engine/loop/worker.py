"""A worker claims queued runs from the database and drives them with the supervisor.
The same class runs as `python -m engine worker` and as the app's in-process thread."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from engine.llm.base import LLMBackend
from engine.loop.clock import SYSTEM_CLOCK, Clock
from engine.loop.leases import (
    heartbeat,
    lease_owner,
    lease_seconds,
    new_worker_id,
    release_all,
)
from engine.loop.steps import StepEvent
from engine.loop.supervisor import Supervisor
from engine.redact import install_log_redaction

log = logging.getLogger("draftroom.worker")


def _default_backend() -> LLMBackend:
    from engine.llm.factory import backend_from_env

    return backend_from_env()


class Worker:
    def __init__(
        self,
        *,
        backend: LLMBackend | None = None,
        worker_id: str | None = None,
        poll_seconds: float = 0.5,
        on_event: Callable[[StepEvent], None] | None = None,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        install_log_redaction()  # no key or PII in a worker's logs, whoever logs it
        self.worker_id = worker_id or new_worker_id()
        self.backend = backend or _default_backend()
        self.poll_seconds = poll_seconds
        self.clock = clock  # what leases are measured by (tests move it on)
        self.supervisor = Supervisor(self.backend, self.worker_id, on_event=on_event,
                                     clock=clock)
        self.runs_done = 0
        self.leases_lost = 0
        self._beat_lock = threading.Lock()
        self._current: int | None = None
        self._drives = 0
        self._beater: threading.Thread | None = None

    # -- the lease's heartbeat -----------------------------------------------------------
    # One thread per worker, not per run: a thread started and joined for every run cost
    # 0.1 ms of CPU and, on a busy machine, milliseconds of waiting for a core to run it. It
    # beats whichever run the worker is driving and ends itself once a whole interval passes
    # with nothing to drive.

    def _driving(self, run_id: int | None) -> None:
        with self._beat_lock:
            self._current = run_id
            self._drives += 1
            if run_id is not None and self._beater is None:
                self._beater = threading.Thread(target=self._beat, daemon=True,
                                                name=f"heartbeat-{self.worker_id}")
                self._beater.start()

    def _beat(self) -> None:
        interval = max(0.2, lease_seconds() / 3)
        lost = -1  # which drive's lease went to another worker: no more beats for it
        while True:
            time.sleep(interval)
            with self._beat_lock:
                run_id, drive = self._current, self._drives
                if run_id is None:
                    self._beater = None  # under the lock: the next drive starts a new one
                    return
            if drive == lost:
                continue
            try:
                if not heartbeat(run_id, self.worker_id, self.clock):
                    lost = drive
                    self._lost(run_id)
            except Exception:  # a heartbeat that fails once is retried at the next beat
                log.exception("heartbeat failed for run %s", run_id)

    def _lost(self, run_id: int) -> None:
        """Say so when another worker took the run over (this process stalled longer than
        its lease): what this one is doing now will not be committed, and it stops after."""
        owner = lease_owner(run_id)
        if owner is not None and owner != self.worker_id:
            self.leases_lost += 1
            log.warning("worker %s: lease on run %s lost to %s; its current step will be "
                        "discarded", self.worker_id, run_id, owner)

    def run_once(self) -> int | None:
        """Claim and drive one run; None when the queue is empty."""
        got = self._claim_and_drive(None)
        return got[0] if got is not None else None

    def run_given(self, run_id: int) -> str | None:
        """Claim one particular run (queued, or its lease expired) and drive it; None when
        it could not be claimed."""
        got = self._claim_and_drive(run_id)
        return got[1] if got is not None else None

    def _claim_and_drive(self, run_id: int | None) -> tuple[int, str] | None:
        try:
            got = self.supervisor.claim_and_run(run_id, on_claimed=self._driving)
        finally:
            self._driving(None)
        if got is not None:
            self.runs_done += 1
        return got

    def run_forever(self, stop: threading.Event, *, exit_when_idle: bool = False) -> None:
        from db.migrate import on_start

        on_start()  # SQLite: migrate now; PostgreSQL: refuse to work on an old schema
        try:
            while not stop.is_set():
                try:
                    got = self.run_once()
                except Exception:
                    log.exception("worker %s: run failed unexpectedly", self.worker_id)
                    got = None
                if got is None:
                    if exit_when_idle:
                        return
                    stop.wait(self.poll_seconds)
        finally:
            release_all(self.worker_id)
