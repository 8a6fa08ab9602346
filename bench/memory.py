"""Memory of a worker: one `python -m engine worker` process drives N queued offline runs while
this process samples its resident set (/proc/<pid>/status) against the number of runs that
have reached review. Peak RSS is the kernel's high-water mark (VmHWM) once all N are done;
growth per run is the slope of RSS over runs after the first fifth (caches fill there)."""

from __future__ import annotations

import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench._harness import ROOT, Row, cmd, database, log, offline_env, rss_mb, sqlite_url
from bench.throughput import queue_runs


def _in_review(ids: list[int]) -> int:
    from sqlalchemy import func, select

    from db.models import Run
    from db.session import session_scope
    from engine.run_state import RunStatus

    with session_scope() as s:
        return int(s.execute(select(func.count()).select_from(Run).where(
            Run.id.in_(ids), Run.status == RunStatus.REVIEW)).scalar_one())  # type: ignore[union-attr]


def slope(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of y over x."""
    if len(points) < 2:
        return float("nan")
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    den = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / den if den else float("nan")


def measure(n: int, url: str, logs: Path) -> dict[str, float]:
    ids = queue_runs(n)
    out = open(logs / "memory-worker.log", "wb")  # noqa: SIM115
    proc = subprocess.Popen([sys.executable, "-m", "engine", "worker", "--poll", "0.05"],
                            cwd=ROOT, env=offline_env(url), stdout=out, stderr=subprocess.STDOUT)
    samples: list[tuple[float, float]] = []  # (runs in review, RSS MB)
    t0 = time.perf_counter()
    first_done = None
    try:
        done = 0
        while done < n:
            if proc.poll() is not None:
                tail = (logs / "memory-worker.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"the worker exited early: {tail}")
            if time.perf_counter() - t0 > 900:
                raise RuntimeError(f"only {done} of {n} runs reached review in 900 s")
            time.sleep(0.25)
            cur, _ = rss_mb(proc.pid)
            done = _in_review(ids)
            if done and first_done is None:
                first_done = time.perf_counter()
            samples.append((done, cur))
        cur, peak = rss_mb(proc.pid)
        elapsed = time.perf_counter() - (first_done or t0)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        out.close()
    warm = [(x, y) for x, y in samples if x >= n / 5]
    at_warm = warm[0][1] if warm else float("nan")
    return {"peak_mb": peak, "rss_mb": cur, "rss_at_fifth_mb": at_warm,
            "kb_per_run": slope(warm) * 1024, "runs_per_s": n / elapsed if elapsed else 0.0}


def run(quick: bool = False) -> list[Row]:
    n = 100 if quick else 1000
    log(f"memory: one worker process, {n} offline runs")
    with tempfile.TemporaryDirectory(prefix="draftroom-bench-mem-") as tmp, \
            database(sqlite_url(Path(tmp))) as url:
        m = measure(n, url, Path(tmp))
    b, c = f"memory (one `python -m engine worker`, {n} offline runs, SQLite)", cmd("memory", quick)
    return [
        Row(b, f"peak RSS of the worker after {n} runs (VmHWM)", f"{m['peak_mb']:.0f} MB", c),
        Row(b, f"RSS after {n // 5} runs -> after {n}",
            f"{m['rss_at_fifth_mb']:.0f} MB -> {m['rss_mb']:.0f} MB", c),
        Row(b, "growth per run (least-squares slope after the first fifth)",
            f"{m['kb_per_run']:.1f} KB/run", c),
        Row(b, "throughput of this single worker process (for reference)",
            f"{m['runs_per_s']:.1f} runs/s", c),
    ]


if __name__ == "__main__":
    from bench._harness import markdown_table

    print(markdown_table(run("--quick" in sys.argv)))
