"""Concurrency (issue 16 item 6): 100 protocol runs queued against the fake OpenAI server at 1 s
per call reach review with one `python -m engine worker` process (goal <= 20 s), against a
baseline measured in the same run: the same worker at DRAFTROOM_WORKER_CONCURRENCY=1, one run
at a time, as every worker drove runs before. The engine's CPU per run (the worker process's
user + system time over its runs) is compared the same way: driving many runs at once must
not cost more per run than driving one.

Each run is one round (the fake team passes the first draft): a drafter call, then the two
critics together, so a run takes about 2 s of model time. Times are from the runs' Step rows
(first step opened -> last committed); the worker's start-up is given beside them."""

from __future__ import annotations

import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench._harness import ROOT, Row, cmd, database, log, percentile, protocol_input, sqlite_url
from bench.throughput import spans

LATENCY_S = 1.0
GOAL_S = 20.0


@dataclass
class Drive:
    concurrency: int
    runs: int
    span_s: float
    wall_s: float
    per_run_s: list[float]
    in_review: int
    cpu_s: float
    requests: int

    def cpu_ms_per_run(self, startup_cpu_s: float) -> float:
        """CPU per run, the process's start-up (measured on an empty queue) left out."""
        return (self.cpu_s - startup_cpu_s) * 1000 / self.runs


def _env(url: str, base_url: str, concurrency: int) -> dict[str, str]:
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env.update(DATABASE_URL=url, DRAFTROOM_BACKEND="openai", OPENAI_BASE_URL=base_url,
               OPENAI_API_KEY="sk-bench-0000", OPENAI_MODEL="gpt-4.1-mini",
               DRAFTROOM_WORKER_CONCURRENCY=str(concurrency), PYTHONPATH=str(ROOT))
    return env


def drive(n: int, concurrency: int, tmp: Path) -> Drive:
    """Queue `n` runs on a fresh SQLite database, then one worker process drives them all."""
    from engine import service
    from testkit.fake_openai import FakeOpenAI
    from testkit.protocol_team import ProtocolTeam

    with database(sqlite_url(tmp, f"c{concurrency}-{n}.db")) as url:
        ids = [service.start_run(kind="protocol", input=protocol_input(i), actor="bench")
               for i in range(n)]
        team = ProtocolTeam([0.9], follow_request=True)
        with FakeOpenAI(latency=LATENCY_S, responder=team) as server:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            out = tmp / f"worker-c{concurrency}.log"
            t0 = time.perf_counter()
            with out.open("wb") as fh:
                proc = subprocess.run(
                    [sys.executable, "-m", "engine", "worker", "--once", "--poll", "0.05"],
                    cwd=ROOT, env=_env(url, server.url, concurrency), stdout=fh,
                    stderr=subprocess.STDOUT, timeout=900, check=False)
            wall = time.perf_counter() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            requests = len(server.chat_requests)
        if proc.returncode != 0:
            raise RuntimeError(f"worker exited {proc.returncode}: "
                               f"{out.read_text(errors='replace')[-2000:]}")
        span, per_run, done = spans(ids) if ids else (0.0, [], 0)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return Drive(concurrency, n, span, wall, per_run, done, cpu, requests)


def run(quick: bool = False) -> list[Row]:
    from engine.config import settings

    n, base_n = (30, 4) if quick else (100, 10)
    many = settings().worker_concurrency  # the default a deployed `engine worker` gets
    c = cmd("concurrency", quick)
    b = f"concurrency ({n} protocol runs, fake server {LATENCY_S:g} s per call, one worker)"
    with tempfile.TemporaryDirectory(prefix="draftroom-bench-conc-") as tmp:
        log("concurrency: a worker's start-up on an empty queue")
        startup = drive(0, 1, Path(tmp)).cpu_s
        log(f"concurrency: baseline, {base_n} runs one at a time")
        one = drive(base_n, 1, Path(tmp))
        log(f"concurrency: {n} runs, {many} at once")
        pool = drive(n, many, Path(tmp))
    per_run_one = one.span_s / one.runs
    projected = per_run_one * n
    missing = "" if pool.in_review == pool.runs else f"; only {pool.in_review} reached review"
    goal = "met" if pool.span_s <= GOAL_S and not missing else "NOT met"
    return [
        Row(b, f"queued -> review, {many} at once (DRAFTROOM_WORKER_CONCURRENCY default; "
               f"goal <= {GOAL_S:g} s)",
            f"{pool.span_s:.1f} s ({pool.wall_s:.1f} s with the worker's start-up), "
            f"{pool.runs / pool.span_s:.1f} runs/s; goal {goal}{missing}", c),
        Row(b, "baseline in the same run: one at a time (concurrency 1)",
            f"{per_run_one:.2f} s per run over {one.runs} runs -> {projected:.0f} s for {n}; "
            f"{pool.span_s / projected:.2f}x of that with the pool", c),
        Row(b, "a run's own time, queued -> review excluded (p50 / p95): one at a time vs pool",
            f"{percentile(one.per_run_s, 50):.2f} / {percentile(one.per_run_s, 95):.2f} s vs "
            f"{percentile(pool.per_run_s, 50):.2f} / {percentile(pool.per_run_s, 95):.2f} s "
            f"(model time {2 * LATENCY_S:g} s)", c),
        Row(b, "engine CPU per run (worker process, its start-up left out): pool vs one at a "
               "time",
            f"{pool.cpu_ms_per_run(startup):.0f} ms vs {one.cpu_ms_per_run(startup):.0f} ms "
            f"({pool.cpu_ms_per_run(startup) / one.cpu_ms_per_run(startup):.2f}x; start-up "
            f"{startup:.1f} s CPU); {pool.requests / pool.runs:.1f} HTTP requests per run", c),
    ]


if __name__ == "__main__":
    from bench._harness import markdown_table

    print(markdown_table(run("--quick" in sys.argv)))
