"""Throughput: N offline protocol runs queued at once, then driven to review by the in-app
worker (a Worker thread, as the Streamlit app runs it) or by separate `python -m engine worker`
processes, on SQLite and (when testkit/pg.py can start a server) PostgreSQL.

Runs/s is measured over the processing span: from the first step opened to the last step
committed, as recorded in the Step rows (process start-up is left out and given separately).
Time per run is one run's own span (its first step opened -> its last step committed). CPU
per run (the workers' user + system time, process start-up included) is given too: other work
on the machine moves the times, much less the CPU."""

from __future__ import annotations

import resource
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from bench._harness import (
    ROOT,
    Row,
    cmd,
    database,
    log,
    offline_env,
    percentile,
    protocol_input,
    sqlite_synchronous,
    sqlite_url,
)
from testkit.pg import start_server


@dataclass
class Result:
    how: str
    runs: int
    span_s: float
    """First step opened -> last step committed."""
    wall_s: float
    """From starting the worker(s) to their end (process start-up included)."""
    per_run_s: list[float]
    in_review: int
    cpu_s: float = float("nan")
    """CPU seconds the worker(s) used (user + system): steadier than time on a busy machine."""

    @property
    def runs_per_s(self) -> float:
        return self.runs / self.span_s if self.span_s else float("nan")


def queue_runs(n: int) -> list[int]:
    from engine import service

    return [service.start_run(kind="protocol", input=protocol_input(i), actor="bench")
            for i in range(n)]


def spans(ids: list[int]) -> tuple[float, list[float], int]:
    """(overall span, each run's span, runs awaiting review), from the database."""
    from sqlalchemy import func, select

    from db.models import Run, Step
    from db.session import session_scope
    from engine.run_state import RunStatus

    with session_scope() as s:
        rows = s.execute(
            select(Step.run_id, func.min(Step.started_at), func.max(Step.finished_at))
            .where(Step.run_id.in_(ids)).group_by(Step.run_id)  # type: ignore[attr-defined]
        ).all()
        in_review = s.execute(select(func.count()).select_from(Run).where(
            Run.id.in_(ids), Run.status == RunStatus.REVIEW)).scalar_one()  # type: ignore[union-attr]
    per_run = [(end - start).total_seconds() for _, start, end in rows if start and end]
    first = min(start for _, start, _ in rows)
    last = max(end for _, _, end in rows if end)
    return (last - first).total_seconds(), per_run, int(in_review)


def in_app(n: int) -> Result:
    """The Worker thread the app runs, in this process, until the queue is empty."""
    from engine.llm.offline.backend import OfflineBackend
    from engine.loop.worker import Worker

    ids = queue_runs(n)
    worker = Worker(backend=OfflineBackend(), worker_id="bench-inapp", poll_seconds=0.05)
    thread = threading.Thread(target=worker.run_forever, args=(threading.Event(),),
                              kwargs={"exit_when_idle": True}, name="draftroom-worker")
    cpu0, t0 = time.process_time(), time.perf_counter()
    thread.start()
    thread.join()
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    span, per_run, done = spans(ids)
    return Result("in-app worker thread", n, span, wall, per_run, done, cpu)


def processes(n: int, url: str, workers: int, logs: Path) -> Result:
    """`workers` x `python -m engine worker --once`, each exiting when the queue is empty."""
    ids = queue_runs(n)
    env = offline_env(url)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    procs = []
    for i in range(workers):
        out = open(logs / f"worker-{i}.log", "wb")  # noqa: SIM115
        procs.append((subprocess.Popen(
            [sys.executable, "-m", "engine", "worker", "--once", "--poll", "0.05"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT), out))
    for p, out in procs:
        p.wait(timeout=900)
        out.close()
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    bad = [p.returncode for p, _ in procs if p.returncode != 0]
    if bad:
        tail = (logs / "worker-0.log").read_text(errors="replace")[-2000:]
        raise RuntimeError(f"worker exit codes {bad}: {tail}")
    span, per_run, done = spans(ids)
    if done < n:
        for f in sorted(logs.glob("worker-*.log")):
            text = f.read_text(errors="replace")
            if "Traceback" in text:
                log(f"{f.name}: {text[text.index('Traceback'):][:3000]}")
    return Result(f"{workers} worker processes", n, span, wall, per_run, done, cpu)


def _row(r: Result, where: str, command: str) -> Row:
    missing = "" if r.in_review == r.runs else f"; only {r.in_review} reached review"
    return Row(f"throughput ({r.runs} offline runs, queued -> review)",
               f"{r.how}, {where}",
               f"{r.runs_per_s:.1f} runs/s, {r.span_s:.1f} s for {r.runs} "
               f"({r.wall_s:.1f} s with start-up); per run p50 "
               f"{percentile(r.per_run_s, 50) * 1000:.0f} ms, p95 "
               f"{percentile(r.per_run_s, 95) * 1000:.0f} ms; CPU {r.cpu_s * 1000 / r.runs:.0f} "
               f"ms/run{missing}", command)


def run(quick: bool = False) -> list[Row]:
    n = 100 if quick else 1000
    c = cmd("throughput", quick)
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="draftroom-bench-tp-") as tmp:
        tmpd = Path(tmp)
        log(f"throughput: {n} runs, in-app worker thread, SQLite")
        with database(sqlite_url(tmpd, "inapp.db")) as url:
            mode = sqlite_synchronous(url)
            rows.append(_row(in_app(n), f"SQLite ({mode})", c))
        log(f"throughput: {n} runs, 2 worker processes, SQLite")
        with database(sqlite_url(tmpd, "procs.db")) as url:
            rows.append(_row(processes(n, url, 2, tmpd), f"SQLite ({mode})", c))
        rows.append(_postgres(n, tmpd, c))
    return rows


def _postgres(n: int, tmpd: Path, command: str) -> Row:
    b, how = f"throughput ({n} offline runs, queued -> review)", "2 worker processes, PostgreSQL"
    try:
        server, why = start_server()
    except Exception as exc:  # a server that cannot start is reported, not fatal
        return Row(b, how, f"skipped: PostgreSQL did not start ({exc})"[:200], command)
    if server is None:
        return Row(b, how, f"skipped: {why}", command)
    try:
        log(f"throughput: {n} runs, 2 worker processes, PostgreSQL")
        url = server.create_database(prefix="bench")
        with database(url):
            return _row(processes(n, url, 2, tmpd), "PostgreSQL (test server: fsync off)",
                        command)
    finally:
        server.stop()


if __name__ == "__main__":
    from bench._harness import markdown_table

    print(markdown_table(run("--quick" in sys.argv)))
