"""Draftroom's own cost per step on the offline backend: protocol runs driven from start to
review in this process, timed end to end; the agents' and checks' time is measured separately
(CPU and wall seconds inside their functions, bench._harness.AgentClock) so that what is left
is the engine: sessions, commits, the LLM-call records, the lease, the step rows."""

from __future__ import annotations

import functools
import importlib
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from bench._harness import (
    AgentClock,
    Row,
    cmd,
    database,
    log,
    median,
    protocol_input,
    sqlite_synchronous,
    sqlite_url,
    timed_protocol,
)


@dataclass
class Batch:
    """One batch of runs, driven to review, by one engine."""

    engine: str
    runs: int
    steps: int
    agent_calls: int
    """Calls of the agents' functions and the checks (equal for equal work)."""
    wall_s: float
    cpu_s: float
    agent_s: float
    """CPU seconds inside the agents and checks."""
    agent_wall_s: float
    """Wall seconds inside the agents and checks (see AgentClock)."""
    per_run_s: list[float] = field(default_factory=list)

    @property
    def overhead_s(self) -> float:
        return max(0.0, self.wall_s - self.agent_wall_s)

    @property
    def overhead_ms_per_step(self) -> float:
        return 1000 * self.overhead_s / max(1, self.steps)

    @property
    def overhead_ms_per_run(self) -> float:
        return 1000 * self.overhead_s / max(1, self.runs)

    @property
    def cpu_overhead_ms_per_run(self) -> float:
        return 1000 * max(0.0, self.cpu_s - self.agent_s) / max(1, self.runs)

    @property
    def cpu_overhead_ms_per_step(self) -> float:
        return 1000 * max(0.0, self.cpu_s - self.agent_s) / max(1, self.steps)

    @property
    def ms_per_step(self) -> float:
        return 1000 * self.wall_s / max(1, self.steps)

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.wall_s if self.wall_s else float("nan")

    @property
    def runs_per_s(self) -> float:
        return self.runs / self.wall_s if self.wall_s else float("nan")


def draftroom_batch(n: int, clock: AgentClock, *, offset: int = 0) -> Batch:
    """Start `n` protocol runs and drive each to review here, one after another. The database
    is whatever DATABASE_URL points at; the pipeline must be `timed_protocol(clock)`."""
    from sqlmodel import func, select

    from db.models import Run, Step
    from db.session import session_scope
    from engine import service
    from engine.llm.offline.backend import OfflineBackend
    from engine.loop.worker import Worker
    from engine.run_state import RunStatus

    worker = Worker(backend=OfflineBackend(), worker_id="bench-overhead")
    clock.reset()
    per_run: list[float] = []
    ids: list[int] = []
    cpu0, t0 = time.process_time(), time.perf_counter()
    for i in range(n):
        r0 = time.perf_counter()
        run_id = service.start_run(kind="protocol", input=protocol_input(offset + i), actor="bench")
        worker.run_given(run_id)
        per_run.append(time.perf_counter() - r0)
        ids.append(run_id)
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    agent_s, agent_wall_s, agent_calls = clock.seconds, clock.wall_seconds, clock.calls
    with session_scope() as s:
        steps = s.exec(select(func.count()).select_from(Step)
                       .where(Step.run_id.in_(ids))).one()  # type: ignore[attr-defined]
        stuck = s.exec(select(func.count()).select_from(Run).where(
            Run.id.in_(ids), Run.status != RunStatus.REVIEW)).one()  # type: ignore[union-attr]
    if stuck:
        raise RuntimeError(f"{stuck} of {n} runs did not reach review")
    return Batch("Draftroom", n, int(steps), agent_calls, wall, cpu, agent_s, agent_wall_s,
                 per_run)


# Where Draftroom's own time goes: (part, module, attribute) timed in CPU seconds on one extra
# batch (the wrappers cost a little, so these are not used for the figures above). A part
# called inside another (a step's call rows inside its commit) counts for itself only.
PARTS = (
    ("step transactions", "engine.loop.supervisor", "Supervisor._begin"),
    ("step transactions", "engine.loop.supervisor", "Supervisor._claim_and_begin"),
    ("step transactions", "engine.loop.supervisor", "Supervisor._commit"),
    ("LLM-call rows", "engine.loop.agents", "_price"),
    ("LLM-call rows", "engine.loop.agents", "save_calls"),
    ("LLM-call rows", "engine.loop.supervisor", "save_calls"),
    ("redaction", "engine.loop.agents", "_redact_request"),
    ("redaction", "engine.loop.agents", "redact"),
    ("queue and lease", "engine.service", "start_run"),
    ("queue and lease", "engine.loop.supervisor", "claim_row"),
)


@contextmanager
def timed_parts(acc: dict[str, float]) -> Iterator[None]:
    """Wrap each PARTS function so its own CPU time (per thread, less the time of wrapped
    functions it calls) adds up in `acc` by part."""
    lock = threading.Lock()
    local = threading.local()
    undo: list[tuple[object, str, object]] = []

    def wrap(part: str, fn: Callable[..., object]) -> Callable[..., object]:
        @functools.wraps(fn)
        def timed(*args: object, **kwargs: object) -> object:
            stack: list[float] = local.__dict__.setdefault("stack", [])
            stack.append(0.0)  # time spent in wrapped callees
            t0 = time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                spent = time.thread_time() - t0
                inner = stack.pop()
                if stack:
                    stack[-1] += spent
                with lock:
                    acc[part] = acc.get(part, 0.0) + spent - inner
        return timed

    for part, module, attr in PARTS:
        owner: object = importlib.import_module(module)
        *path, name = attr.split(".")
        for p in path:
            owner = getattr(owner, p)
        original = owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name)
        undo.append((owner, name, original))
        setattr(owner, name, wrap(part, original))  # type: ignore[arg-type]
    try:
        yield
    finally:
        for owner, name, original in reversed(undo):
            setattr(owner, name, original)


def breakdown(n: int, clock: AgentClock, *, offset: int = 0) -> tuple[dict[str, float], Batch]:
    """CPU ms per run by part, on one instrumented batch (in the current database)."""
    acc: dict[str, float] = {}
    with timed_parts(acc):
        batch = draftroom_batch(n, clock, offset=offset)
    parts = {k: 1000 * v / n for k, v in acc.items()}
    parts["agents and checks"] = 1000 * batch.agent_s / n
    parts["rest"] = max(0.0, 1000 * batch.cpu_s / n - sum(parts.values()))
    return parts, batch


def breakdown_row(parts: dict[str, float], n: int, command: str) -> Row:
    order = ("step transactions", "LLM-call rows", "redaction", "queue and lease",
             "agents and checks", "rest")
    return Row("engine overhead (offline, Draftroom alone)",
               f"CPU per run by part ({n} runs, instrumented)",
               ", ".join(f"{k} {parts.get(k, 0.0):.1f} ms" for k in order)
               + f"; total {sum(parts.values()):.1f} ms", command)


def rows_for(batches: list[Batch], n: int, mode: str, command: str) -> list[Row]:
    b = "engine overhead (offline, Draftroom alone)"
    steps = median([x.steps_per_s for x in batches])
    return [
        Row(b, f"steps/s ({n} runs x {len(batches)} batches, median; {mode})", f"{steps:.0f}",
            command),
        Row(b, "ms per step, all in (agents included)",
            f"{median([x.ms_per_step for x in batches]):.2f} ms", command),
        Row(b, "engine overhead per step (wall minus time inside agents)",
            f"{median([x.overhead_ms_per_step for x in batches]):.2f} ms", command),
        Row(b, "runs to review per second",
            f"{median([x.runs_per_s for x in batches]):.1f} runs/s "
            f"({batches[0].steps / batches[0].runs:.1f} steps/run)", command),
    ]


def run(quick: bool = False) -> list[Row]:
    n, reps = (20, 2) if quick else (100, 3)
    log(f"engine overhead: {reps} x {n} offline protocol runs, Draftroom alone")
    clock = AgentClock()
    with tempfile.TemporaryDirectory(prefix="draftroom-bench-") as tmp, \
            database(sqlite_url(Path(tmp))) as url, timed_protocol(clock):
        mode = sqlite_synchronous(url)
        draftroom_batch(min(n, 5), clock, offset=0)
        batches = [draftroom_batch(n, clock, offset=i * n) for i in range(reps)]
        parts, _ = breakdown(n, clock, offset=reps * n)
    for x in batches:
        log(f"  {x.runs} runs {x.wall_s:.2f} s, {x.steps} steps, agents {x.agent_s:.2f} s, "
            f"overhead {x.overhead_ms_per_step:.2f} ms/step")
    command = cmd("engine_overhead", quick)
    return rows_for(batches, n, f"SQLite {mode}", command) + [breakdown_row(parts, n, command)]


if __name__ == "__main__":
    from bench._harness import markdown_table

    print(markdown_table(run()))
