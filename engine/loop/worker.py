"""A worker claims queued runs from the database and drives them with the supervisor, up to
`concurrency` runs at once (issue 16 item 6: with a real model a run takes 20-30 s, mostly
waiting on the server, so one process drives many). The same class runs as
`python -m engine worker` and as the app's in-process thread.

Each run is driven by one thread of a bounded pool, the synchronous engine and the sync openai
client as they are: a drive spends nearly all its time waiting on the model's HTTP answer,
with the GIL released. Each pool thread has its own Supervisor (its held connection and its
critics' threads are per drive). One dispatcher fills free slots: it hands a slot to a pool
thread, which claims the oldest queued run and drives it; when a claim finds the queue empty,
the dispatcher waits `poll_seconds` before asking again, so an idle worker costs one claim
query per poll, not one per slot.

Stopping (`StopSignals`, SIGTERM or SIGINT): the worker takes no new run, and each run in flight
ends its drive after the step it is in commits (no next step is opened); then every lease is
handed back, so another worker carries on from the committed state at once. A second signal, or
the grace running out while a model still answers, ends the process now: the leases are handed
back first (the handing back bumps each run's version, so a step still in flight cannot commit
afterwards), and the unfinished step is done again by whoever takes the run."""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from engine.config import setting
from engine.llm.base import LLMBackend
from engine.loop.clock import SYSTEM_CLOCK, Clock
from engine.loop.leases import (
    heartbeat_many,
    lease_owner,
    lease_seconds,
    new_worker_id,
    release_all,
)
from engine.loop.steps import StepEvent
from engine.loop.supervisor import Supervisor
from engine.redact import install_log_redaction

log = logging.getLogger("draftroom.worker")
GRACE_SECONDS = 30.0
"""How long a stopping worker lets its runs' current steps finish (a model's answer can take
a minute: after this the step is done again by the next worker instead)."""


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
        concurrency: int | None = None,
    ) -> None:
        install_log_redaction()  # no key or PII in a worker's logs, whoever logs it
        self.worker_id = worker_id or new_worker_id()
        self.backend = backend or _default_backend()
        self.poll_seconds = poll_seconds
        self.clock = clock  # what leases are measured by (tests move it on)
        self.on_event = on_event
        self.concurrency = max(1, concurrency or int(setting("worker_concurrency")))
        """How many runs this worker drives at once (run_forever; run_given drives one)."""
        self._stop: threading.Event | None = None  # run_forever's: set, drives end after a step
        self.supervisor = self._new_supervisor()
        self._local = threading.local()  # .supervisor: a pool thread's own
        self.runs_done = 0
        self.leases_lost = 0
        self._beat_lock = threading.Lock()
        self._driving_now: dict[int, int] = {}  # run id -> which drive (a counter)
        self._drives = 0
        self._beater: threading.Thread | None = None

    def _new_supervisor(self) -> Supervisor:
        return Supervisor(self.backend, self.worker_id, on_event=self.on_event,
                          clock=self.clock, stopping=self._stopping)

    def _supervisor(self) -> Supervisor:
        """The calling thread's supervisor: the worker's own in the thread that made it, a
        new one in each pool thread (a supervisor's critic threads serve one drive at a time;
        shared, the runs' critics would queue behind each other)."""
        sup = getattr(self._local, "supervisor", None)
        if sup is None:
            sup = self._new_supervisor() if getattr(self._local, "pool", False) else self.supervisor
            self._local.supervisor = sup
        return sup

    def _stopping(self) -> bool:
        return self._stop is not None and self._stop.is_set()

    @property
    def driving(self) -> list[int]:
        """The runs this worker is driving now."""
        with self._beat_lock:
            return sorted(self._driving_now)

    # -- the leases' heartbeat -----------------------------------------------------------
    # One thread per worker, not per run: it renews every run the worker drives in one
    # statement, and ends itself once a whole interval passes with nothing to drive.

    def _start_drive(self, run_id: int) -> int:
        with self._beat_lock:
            self._drives += 1
            self._driving_now[run_id] = self._drives
            if self._beater is None:
                self._beater = threading.Thread(target=self._beat, daemon=True,
                                                name=f"heartbeat-{self.worker_id}")
                self._beater.start()
            return self._drives

    def _end_drive(self, run_id: int, drive: int) -> None:
        with self._beat_lock:
            if self._driving_now.get(run_id) == drive:
                del self._driving_now[run_id]

    def _beat(self) -> None:
        interval = max(0.2, lease_seconds() / 3)
        lost: set[int] = set()  # drives whose lease went to another worker: no more beats
        while True:
            time.sleep(interval)
            with self._beat_lock:
                if not self._driving_now:
                    self._beater = None  # under the lock: the next drive starts a new one
                    return
                beating = {r: d for r, d in self._driving_now.items() if d not in lost}
            if not beating:
                continue
            try:
                held = heartbeat_many(list(beating), self.worker_id, self.clock)
            except Exception:  # a heartbeat that fails once is retried at the next beat
                log.exception("heartbeat failed for runs %s", sorted(beating))
                continue
            for run_id in set(beating) - held:
                lost.add(beating[run_id])
                self._lost(run_id)

    def _lost(self, run_id: int) -> None:
        """Say so when another worker took the run over (this process stalled longer than
        its lease): what this one is doing now will not be committed, and it stops after."""
        owner = lease_owner(run_id)
        if owner is not None and owner != self.worker_id:
            with self._beat_lock:
                self.leases_lost += 1
            log.warning("worker %s: lease on run %s lost to %s; its current step will be "
                        "discarded", self.worker_id, run_id, owner)

    # -- driving -------------------------------------------------------------------------

    def run_once(self) -> int | None:
        """Claim and drive one run in this thread; None when the queue is empty."""
        got = self._claim_and_drive(None)
        return got[0] if got is not None else None

    def run_given(self, run_id: int) -> str | None:
        """Claim one particular run (queued, or its lease expired) and drive it; None when
        it could not be claimed."""
        got = self._claim_and_drive(run_id)
        return got[1] if got is not None else None

    def _claim_and_drive(self, run_id: int | None,
                         on_claimed: Callable[[int], None] | None = None
                         ) -> tuple[int, str] | None:
        drive: list[tuple[int, int]] = []

        def claimed(rid: int) -> None:
            drive.append((rid, self._start_drive(rid)))
            if on_claimed is not None:
                on_claimed(rid)

        try:
            got = self._supervisor().claim_and_run(run_id, on_claimed=claimed)
        finally:
            for rid, d in drive:
                self._end_drive(rid, d)
        if got is not None:
            with self._beat_lock:
                self.runs_done += 1
        return got

    def run_forever(self, stop: threading.Event, *, exit_when_idle: bool = False) -> None:
        """Drive queued runs, up to `concurrency` at once, until `stop` is set (then finish
        the steps in flight and give back every lease), or with `exit_when_idle` until the
        queue is empty and nothing is being driven."""
        from db.migrate import on_start

        on_start()  # SQLite: migrate now; PostgreSQL: refuse to work on an old schema
        _warm_up()
        self._stop = stop
        _Dispatcher(self, stop, exit_when_idle).run()


class StopSignals:
    """SIGTERM and SIGINT for a worker process (`python -m engine worker`). The first sets
    `stop`: no new runs, the steps in flight finish (for at most `grace` seconds), the leases
    are handed back, run_forever returns. A second signal, or the grace running out, hands the
    leases back and ends the process at once (exit code 1)."""

    def __init__(self, worker: Worker, grace: float = GRACE_SECONDS) -> None:
        self.worker, self.grace = worker, grace
        self.stop = threading.Event()
        self.signals = 0

    def install(self) -> StopSignals:
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, self._on_signal)
        return self

    def _on_signal(self, signum: int, _frame: object) -> None:
        self.signals += 1
        name = signal.Signals(signum).name
        if self.signals > 1:
            self._end_now(f"a second signal ({name})")
        driving = self.worker.driving
        if driving:
            log.info("worker %s: %s: taking no new runs; runs %s finish their current step (up "
                     "to %g s), then go back to the queue", self.worker.worker_id, name, driving,
                     self.grace)
        else:
            log.info("worker %s: %s: taking no new runs; none in flight, stopping",
                     self.worker.worker_id, name)
        self.stop.set()
        threading.Thread(target=self._grace, daemon=True, name="worker-grace").start()

    def _grace(self) -> None:
        time.sleep(self.grace)
        if self.worker.driving:  # (none: the drives ended, the worker is on its way out)
            self._end_now(f"the {self.grace:g} s grace ran out")

    def _end_now(self, why: str) -> None:
        w = self.worker
        try:
            handed = release_all(w.worker_id)
        except Exception:  # the leases then expire (DRAFTROOM_LEASE_SECONDS) instead
            log.exception("worker %s: could not hand back its leases", w.worker_id)
            handed = 0
        log.warning("worker %s: %s: stopping now; %d run(s) in flight went back to the queue "
                    "(their current step is done again; nothing committed is lost)",
                    w.worker_id, why, handed)
        logging.shutdown()
        os._exit(1)


def _warm_up() -> None:
    """Load what the checks load on first use (the safety screen's model) before the first
    claim: else the first runs of a fresh process wait for it, each pool thread loading it at
    once, and their leases run while they do."""
    from engine.checks.screen import screen

    try:
        screen("protocol", "Warming up the deterministic checks.")
    except Exception:  # a check that cannot load says so when a run needs it
        log.warning("the checks did not warm up", exc_info=True)


class _Claim:
    """One slot's claim attempt, as the dispatcher waits for it."""

    def __init__(self) -> None:
        self.answered = threading.Event()
        self.found = False

    def claimed(self, _run_id: int) -> None:
        self.found = True
        self.answered.set()


class _Dispatcher:
    """Fills the worker's free slots with claims, one at a time, each in a pool thread."""

    def __init__(self, worker: Worker, stop: threading.Event, exit_when_idle: bool) -> None:
        self.w, self.stop, self.exit_when_idle = worker, stop, exit_when_idle
        self.free = threading.Semaphore(worker.concurrency)
        self.busy = 0  # slots taken (claiming or driving)
        self.changed = threading.Condition()  # a slot ended

    def run(self) -> None:
        w = self.w
        pool = ThreadPoolExecutor(max_workers=w.concurrency,
                                  thread_name_prefix=f"drive-{w.worker_id}",
                                  initializer=self._pool_thread)
        try:
            while not self.stop.is_set():
                if not self.free.acquire(timeout=w.poll_seconds):
                    continue  # every slot busy: look again (or at `stop`) in a moment
                if self.stop.is_set():  # stopped while it waited for a slot: claim nothing
                    self.free.release()
                    break
                with self.changed:
                    self.busy += 1
                claim = _Claim()
                pool.submit(self._slot, claim)
                claim.answered.wait()
                if claim.found:
                    continue  # a run was claimed: try to fill the next slot at once
                if self.exit_when_idle:
                    with self.changed:
                        if not self.busy:
                            return  # the queue is empty and nothing is in flight
                        self.changed.wait()  # a drive ended: look at the queue again
                    continue
                self.stop.wait(w.poll_seconds)
        finally:
            pool.shutdown(wait=True)  # the drives in flight end their step (or lose it)
            release_all(w.worker_id)

    def _pool_thread(self) -> None:
        self.w._local.pool = True

    def _slot(self, claim: _Claim) -> None:
        """One slot's turn: claim the oldest queued run and drive it to its end."""
        try:
            if not self.stop.is_set():  # (a stop between the hand-over and here: no claim)
                self.w._claim_and_drive(None, on_claimed=claim.claimed)
        except Exception:
            log.exception("worker %s: run failed unexpectedly", self.w.worker_id)
        finally:
            with self.changed:
                self.busy -= 1
                self.changed.notify_all()
            self.free.release()
            claim.answered.set()  # (again, harmlessly, when the claim had set it)
