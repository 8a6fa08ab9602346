"""What every benchmark shares: a throwaway database, a clock for the time spent inside the
agents, the inputs, the result rows and the table they are printed as."""

from __future__ import annotations

import functools
import os
import statistics
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parent.parent
F = TypeVar("F", bound=Callable[..., Any])

# Varied intents so the offline drafter uses several exercise templates; both engines get
# the same list in the same order, so they do the same work.
INTENTS = (
    ("Help a university student manage exam panic", "adult students"),
    ("Cope with social anxiety at work meetings", "office workers"),
    ("Sleep better after night shifts", "nurses"),
    ("Stop worrying about money late at night", "adults"),
    ("Get going again on the days when everything feels flat", "adults"),
    ("Face the fear of driving on the motorway", "adults"),
    ("Challenge the thought that I always fail", "teenagers"),
    ("Decide what to do about a noisy neighbour", "adults"),
)


def protocol_input(i: int) -> dict[str, str]:
    intent, audience = INTENTS[i % len(INTENTS)]
    return {"intent": intent, "audience": audience}


@dataclass(frozen=True)
class Row:
    """One line of the results table."""

    bench: str
    measure: str
    result: str
    command: str = ""


def cmd(only: str, quick: bool = False) -> str:
    return f"python -m bench --only {only}" + (" --quick" if quick else "")


# -- the database --------------------------------------------------------------------------


@contextmanager
def database(url: str) -> Iterator[str]:
    """Point this process (DATABASE_URL and the engine cache) at `url` for a while, with the
    schema migrated and the rollup triggers in place."""
    from db.session import get_engine
    from testkit.app_server import using_database

    with using_database(url):
        _migrate(url)
        _rollup(get_engine())
        yield url


def _migrate(url: str) -> None:
    """The schema a deployment has (migrations, with their triggers), not just create_all."""
    try:
        from db.migrate import migrate
    except ImportError:  # an older tree without migrations: get_engine() creates the tables
        return
    migrate(url)


def _rollup(engine: Any) -> None:
    """The Costs page's daily rollup and the triggers that keep it (made the first time
    anyone opens Costs): a deployment has them, so every recorded call pays for them here."""
    try:
        from engine.rollup import ensure_rollup
    except ImportError:  # an older tree without the rollup
        return
    with engine.begin() as conn:
        ensure_rollup(conn)


def sqlite_url(directory: Path, name: str = "draftroom.db") -> str:
    return f"sqlite:///{directory / name}"


def sqlite_synchronous(url: str) -> str:
    """The synchronous mode SQLite reports on a connection of this engine."""
    from sqlalchemy import text

    from db.session import get_engine

    with get_engine().connect() as c:
        mode = c.execute(text("PRAGMA synchronous")).scalar()
        journal = c.execute(text("PRAGMA journal_mode")).scalar()
    return f"{journal}, synchronous={SYNC_NAMES.get(int(mode or 0), mode)}"


SYNC_NAMES = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}


def offline_env(url: str) -> dict[str, str]:
    """Environment for a child `python -m engine ...` on the offline backend."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env.update(DATABASE_URL=url, DRAFTROOM_BACKEND="offline", PYTHONPATH=str(ROOT))
    return env


# -- time inside the agents ------------------------------------------------------------------


class AgentClock:
    """Time spent inside the agents' own functions and the deterministic checks (the checks
    on the draft and the checks that follow it), over every thread: CPU seconds, and wall
    seconds while they ran. An engine's overhead is its CPU less the agents' CPU, and its wall
    time less the agents' wall time: subtracting their CPU from wall time would count the
    time the machine's other work took from the agents as the engine's, which on a busy
    machine pushes any two engines' ratio towards 1. Both engines run their agents one at a
    time on the offline backend (Draftroom's critics run in the calling thread there), so no
    agent's wall time holds another's. A wrapped function called inside another counts once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._depth = threading.local()
        self.seconds = 0.0
        self.wall_seconds = 0.0
        self.calls = 0

    def reset(self) -> None:
        with self._lock:
            self.seconds = 0.0
            self.wall_seconds = 0.0
            self.calls = 0

    def wrap(self, fn: F) -> F:
        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            depth = getattr(self._depth, "n", 0)
            if depth:  # inside another timed function: its time counts already
                return fn(*args, **kwargs)
            self._depth.n = 1
            t0, w0 = time.thread_time(), time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                dt, dw = time.thread_time() - t0, time.perf_counter() - w0
                self._depth.n = 0
                with self._lock:
                    self.seconds += dt
                    self.wall_seconds += dw
                    self.calls += 1

        return timed  # type: ignore[return-value]


@contextmanager
def timed_protocol(clock: AgentClock) -> Iterator[Any]:
    """The protocol pipeline with its agents' offline functions and its checks timed by
    `clock`; the engine looks pipelines up by kind, so it runs the timed copy. The checks that
    follow the text (engine.checks.follow) are timed too, where each engine calls them from:
    they are the same deterministic checks for both, not engine work."""
    import engine.checks.follow as follow_module
    import engine.loop.nodes as loop_nodes
    from engine.pipelines.registry import PIPELINES

    original = PIPELINES["protocol"]

    def agent(spec: Any) -> Any:
        return replace(spec, offline=clock.wrap(spec.offline))

    stages = tuple(
        replace(st, drafter=agent(st.drafter), critics=tuple(agent(c) for c in st.critics),
                checks=clock.wrap(st.checks))
        for st in original.stages
    )
    follow = follow_module.follow_checks
    PIPELINES["protocol"] = replace(original, stages=stages)
    follow_module.follow_checks = loop_nodes.follow_checks = clock.wrap(follow)  # type: ignore[assignment]
    try:
        yield PIPELINES["protocol"]
    finally:
        PIPELINES["protocol"] = original
        follow_module.follow_checks = loop_nodes.follow_checks = follow  # type: ignore[assignment]


# -- figures ---------------------------------------------------------------------------------


def median(xs: Sequence[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def percentile(xs: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100)."""
    if not xs:
        return float("nan")
    s = sorted(xs)
    k = max(0, min(len(s) - 1, int(round(p / 100 * len(s) + 0.5)) - 1))
    return s[k]


def rss_mb(pid: int | None = None) -> tuple[float, float]:
    """(current RSS, peak RSS) in MB from /proc; (nan, nan) where there is no /proc."""
    path = f"/proc/{pid or 'self'}/status"
    cur = peak = float("nan")
    try:
        with open(path) as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    cur = int(line.split()[1]) / 1024
                elif line.startswith("VmHWM:"):
                    peak = int(line.split()[1]) / 1024
    except OSError:
        pass
    return cur, peak


def log(msg: str) -> None:
    print(f"  {msg}", file=sys.stderr, flush=True)


# -- the table -------------------------------------------------------------------------------


def as_row(obj: Any) -> Row:
    """Rows from other bench modules: a Row, a dict with the same keys, or a tuple."""
    if isinstance(obj, Row):
        return obj
    if isinstance(obj, dict):
        return Row(str(obj.get("bench", "")), str(obj.get("measure", "")),
                   str(obj.get("result", obj.get("value", ""))), str(obj.get("command", "")))
    if isinstance(obj, tuple | list):
        parts = [str(x) for x in obj] + [""] * 4
        return Row(*parts[:4])
    for attr in ("bench", "measure", "result", "command"):
        if not hasattr(obj, attr):
            break
    else:
        return Row(str(obj.bench), str(obj.measure), str(obj.result), str(obj.command))
    return Row("", str(obj), "", "")


def markdown_table(rows: Sequence[Row]) -> str:
    head = ("Benchmark", "Measure", "Result", "Command")
    body = [(r.bench, r.measure, r.result, f"`{r.command}`" if r.command else "") for r in rows]
    widths = [max(len(x) for x in col) for col in zip(head, *body, strict=False)]

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    return "\n".join([line(head), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
                     + [line(b) for b in body])
