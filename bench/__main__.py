"""`python -m bench` (`make bench`): every benchmark, then one table.

    python -m bench                      # all of them (a few minutes)
    python -m bench --quick              # small N: proves they run, figures are rough
    python -m bench --only langgraph     # one (or a comma-separated few); --list names them
    python -m bench --out results.md     # also write the table, with the machine, to a file
    DRAFTROOM_BENCH_SCALE=full python -m bench --only ops,pages   # 1M calls / 50k runs
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path

# Runnable from a fresh clone without installing the package.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._harness import Row, as_row, markdown_table  # noqa: E402

# name -> module with run(quick: bool) -> list of rows
BENCHES: dict[str, str] = {
    "engine_overhead": "bench.engine_overhead",
    "langgraph": "bench.langgraph_protocol",
    "critics": "bench.critics_concurrency",
    "refused_format": "bench.refused_format",
    "throughput": "bench.throughput",
    "memory": "bench.memory",
    "concurrency": "bench.concurrency",  # many runs at once in one worker (issue 16 item 6)
    "streaming": "bench.streaming",  # server send -> Chromium DOM (issue 16)
    "ops": "bench.bench_ops",  # another module's rows (Costs page and friends), when present
    "pages": "bench.bench_pages",  # every page at scale in Chromium (issue 15)
}


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            names = [line.split(":", 1)[1].strip() for line in fh if line.startswith("model name")]
        cpu = names[0] if names else cpu
    except OSError:
        pass
    load = " ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    return (f"{os.cpu_count()} cores ({cpu}), Python {platform.python_version()}, "
            f"{platform.system()} {platform.release()}; load average {load}")


def _runner(module: str) -> Callable[[bool], list[object]] | None:
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name == module:
            return None  # not written (yet)
        raise
    fn = getattr(mod, "run", None)
    if fn is None:
        return None

    def call(quick: bool) -> list[object]:
        try:
            return list(fn(quick=quick))
        except TypeError:
            return list(fn())

    return call


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="small N, rough figures")
    p.add_argument("--only", action="append", default=[],
                   help="benchmark name(s), comma-separated or repeated")
    p.add_argument("--list", action="store_true", help="print the benchmark names")
    p.add_argument("--out", type=Path, help="also write the table (Markdown) to this file")
    a = p.parse_args(argv)
    if a.list:
        print("\n".join(BENCHES))
        return 0
    only = [n.strip() for item in a.only for n in item.split(",") if n.strip()]
    unknown = [n for n in only if n not in BENCHES]
    if unknown:
        p.error(f"unknown benchmark(s) {unknown}; known: {', '.join(BENCHES)}")
    names = only or list(BENCHES)

    os.environ.setdefault("DRAFTROOM_BACKEND", "offline")
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"):
        os.environ.pop(var, None)  # the benchmarks never call a real model
    started = machine()
    print(f"machine: {started}", flush=True)
    rows: list[Row] = []
    failed: list[str] = []
    t0 = time.perf_counter()
    for name in names:
        runner = _runner(BENCHES[name])
        if runner is None:
            if name in only:
                print(f"{name}: {BENCHES[name]} is not there; skipped", flush=True)
            continue
        print(f"== {name}", file=sys.stderr, flush=True)
        b0 = time.perf_counter()
        try:
            got = [as_row(r) for r in runner(a.quick)]
        except Exception as exc:
            traceback.print_exc()
            failed.append(name)
            got = [Row(name, "failed", f"{type(exc).__name__}: {exc}"[:300])]
        rows += got
        print(markdown_table(got), flush=True)
        print(f"({name}: {time.perf_counter() - b0:.0f} s)\n", file=sys.stderr, flush=True)
    ended = machine()
    table = markdown_table(rows) if rows else "(no rows)"
    head = (f"Machine at start: {started}\nMachine at end: {ended}\n"
            f"Total {time.perf_counter() - t0:.0f} s{' (--quick)' if a.quick else ''}.\n")
    print("\n" + head + "\n" + table)
    if a.out:
        a.out.write_text(head + "\n" + table + "\n")
    if failed:
        print(f"\nfailed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
