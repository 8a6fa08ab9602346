"""The desk's pages at scale (issue 15, "Fast at scale"): in Chromium, the time from a load by
URL to each page's first chart or table, cold and warm, a trace call's details after the
click, and the filters, against a `seed-demo` database.

    python -m bench --only pages                 # 100,000 calls / 5,000 runs (minutes)
    DRAFTROOM_BENCH_SCALE=full python -m bench --only pages    # 1,000,000 calls / 50,000 runs
    DRAFTROOM_BENCH_DB=/tmp/x.db ...             # seed that file once and reuse it after
    python -m bench.bench_pages [--full] [--db PATH] [--rounds 3] [--only-case Queue]

Cold: a fresh app server (its caches empty) and a fresh browser context (nothing cached), the
page loaded by URL; one round per server start: a first-ever visit. Warm: the same page loaded
again by URL right after, in the same context. Returning: a fresh app server again, and a
browser profile kept on disk that visited every page before (its HTTP cache holds Streamlit's
and Plotly's scripts, which Streamlit serves as immutable for a year), relaunched for the
round: a person coming back after a restart. Each figure is the median of the rounds (3 by
default)."""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench._harness import Row, database, log
from testkit.trace_click import call_bar, open_trace, wait_call_shown

ROOT = Path(__file__).resolve().parent.parent
SIZES = {"small": (100_000, 5_000), "full": (1_000_000, 50_000)}
WAIT_MS = 90_000
FIRST = 2.5  # goals, seconds: a page's first chart or table, cold
WARM = 1.5  # ... warm
QUEUE = 1.0
CALL = 0.5  # a call's details after the click
FILTER = 1.0
DONE = "!document.querySelector('[data-testid=\"stStatusWidget\"]')"
CHART = ".js-plotly-plot .main-svg"
# A page's first chart is one with data: the empty placeholder a page draws at a chart's place
# before its queries (ui/chart_slot.py) has no traces and does not count.
DATA_CHART = ("[...document.querySelectorAll('.js-plotly-plot')]"
              ".some(p => p.data?.length && p.querySelector('.main-svg'))")
BASELINE = "Baseline: the Start page's form"
TABLE = "[data-testid='stDataFrame'], [data-testid='stTable'], .stMarkdown table"
COSTS_CHARTS = 3  # the day charts and the open breakdown tab's
# The series on the Costs page's first chart (spend per day: one per kind, or one alone).
_SPEND_SERIES = "(document.querySelector('.js-plotly-plot')?.data?.length ?? 0)"


@dataclass(frozen=True)
class PageCase:
    name: str
    path: str
    first: str
    """CSS of the page's first chart or table (or, for the queue, its first run)."""
    warm_goal: float = WARM
    cold_goal: float = FIRST


def cases(big_run_id: int, only: str | None = None) -> list[PageCase]:
    """Every page's case; with `only` (a name or its start: "Queue") it and the baseline."""
    return [c for c in _all_cases(big_run_id)
            if only is None or c.name == BASELINE or c.name.startswith(only)]


# Each interaction's page (kept with `only` when it names that page).
INTERACTIONS = {"call": "Traces", "traces window": "Traces", "costs filter": "Costs",
                "queue filter": "Queue"}


def _interacting(name: str, only: str | None) -> bool:
    return only is None or INTERACTIONS[name].startswith(only)


def _all_cases(big_run_id: int) -> list[PageCase]:
    return [
        # The app's shell alone (sidebar, navigation) on its lightest page: what any page
        # costs at this moment's load, the baseline the others are set against.
        PageCase(BASELINE, "start", "[data-testid='stForm']"),
        PageCase("Costs", "costs", CHART),
        PageCase("Queue", "queue", "a[href*='run=']", QUEUE, QUEUE),
        PageCase("Traces (500-call run)", f"traces?run={big_run_id}", CHART),
        # Its first content: the active prompt's text (the comparison is a tab of its own,
        # computed when opened).
        PageCase("Prompts", "prompts", "[data-testid='stCode']"),
        PageCase("Settings", "settings", TABLE),
        PageCase("Calibration", "calibration", CHART),
        PageCase("Run page (500-call run)", f"run?run={big_run_id}", CHART),
    ]


def _visible(page: Any, css: str) -> None:
    if css == CHART:
        page.wait_for_function(DATA_CHART, timeout=WAIT_MS)
        return
    page.locator(css).first.wait_for(state="attached", timeout=WAIT_MS)


def _timed(go: Callable[[], Any], until: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    go()
    until()
    return time.perf_counter() - t0


def _load(page: Any, base: str, case: PageCase) -> float:
    return _timed(lambda: page.goto(f"{base}/{case.path}", wait_until="commit"),
                  lambda: _visible(page, case.first))


def _idle(page: Any) -> None:
    page.wait_for_function(DONE, timeout=WAIT_MS)


def _call_click(page: Any, base: str, big_run_id: int) -> float:
    """From the click on a call's bar in the timeline to that call's details drawn (the same
    click as tests/e2e/test_ops_browser.py's: testkit/trace_click.py)."""
    open_trace(page, base, big_run_id, WAIT_MS)
    bar, call_id = call_bar(page)
    return _timed(lambda: bar.click(force=True),
                  lambda: wait_call_shown(page, call_id, WAIT_MS))


def _costs_filter(page: Any, base: str) -> float:
    """Pick one kind in the Costs filter: from the choice to the spend chart redrawn for
    that kind alone (one series instead of one per kind), every chart drawn and the page's
    script done. (Waiting for the running indicator to show first, as this did before, waited
    its whole 3 s timeout whenever the rerun ended before the indicator appeared.)"""
    page.goto(f"{base}/costs")
    page.wait_for_function(f"document.querySelectorAll('{CHART}').length >= {COSTS_CHARTS}",
                           timeout=WAIT_MS)
    _idle(page)
    page.wait_for_function(f"{_SPEND_SERIES} > 1", timeout=WAIT_MS)
    page.get_by_test_id("stMultiSelect").first.click()
    # One kind: the list opens with "Select all" (picking it changed nothing on the page, so
    # the bench once timed a rerun that redrew nothing).
    option = page.get_by_role("option").filter(has_not_text="Select all").first
    option.wait_for(timeout=WAIT_MS)

    def redrawn() -> None:
        page.wait_for_function(f"{_SPEND_SERIES} === 1", timeout=WAIT_MS)
        page.wait_for_function(
            f"document.querySelectorAll('{CHART}').length >= {COSTS_CHARTS}", timeout=WAIT_MS)
        _idle(page)

    took = _timed(lambda: option.click(), redrawn)
    page.keyboard.press("Escape")
    return took


def _queue_filter(page: Any, base: str) -> float:
    """Search the queue (words in any order): from Enter to the sections' counts changed to
    the matching runs' and the page's script done."""
    page.goto(f"{base}/queue")
    _visible(page, "a[href*='run=']")
    _idle(page)
    heads = "[...document.querySelectorAll('h3')].map(h => h.innerText).join('|')"
    before = page.evaluate(heads)
    page.get_by_label("Search", exact=False).first.fill("exam panic")

    def listed() -> None:
        page.wait_for_function("(old) => " + heads + " !== old", arg=before,
                               timeout=WAIT_MS)
        _idle(page)

    return _timed(lambda: page.keyboard.press("Enter"), listed)


def _traces_window(page: Any, base: str, big_run_id: int) -> float:
    """Widen the Traces page's window of steps by one (its slider's upper handle, arrow key):
    from the key to the caption naming the new window and the page's script done."""
    open_trace(page, base, big_run_id, WAIT_MS)
    caption = page.get_by_text("Steps 1–25 of").first
    caption.wait_for(timeout=WAIT_MS)
    handle = page.get_by_role("slider").nth(1)
    handle.focus()

    def widened() -> None:
        page.get_by_text("Steps 1–26 of").first.wait_for(timeout=WAIT_MS)
        _idle(page)

    return _timed(lambda: page.keyboard.press("ArrowRight"), widened)


@dataclass
class Samples:
    """Each measure's times and the load average (1 min) when each was taken."""

    times: dict[str, list[float]] = field(default_factory=dict)
    loads: dict[str, list[float]] = field(default_factory=dict)

    def add(self, name: str, measure: Callable[[], float]) -> None:
        """One sample, logged as it lands; a measurement that fails (a page that never
        drew) counts as infinitely slow instead of losing the others."""
        try:
            took = measure()
        except Exception as exc:  # a timeout, a missing element: that page misses its goal
            log(f"  {name}: failed: {type(exc).__name__}: {str(exc)[:200]}")
            took = float("inf")
        load = os.getloadavg()[0]
        self.times.setdefault(name, []).append(took)
        self.loads.setdefault(name, []).append(load)
        log(f"  {name}: {took:.2f} s (load {load:.1f})")


def _returning(p: Any, profile: Path, run: Callable[[Any], None]) -> None:
    """Launch Chromium on the kept profile (its disk cache from earlier visits), pass it to
    `run`, close it (which writes the cache back)."""
    from testkit.app_server import CHROMIUM, CHROMIUM_ARGS

    ctx = p.chromium.launch_persistent_context(
        str(profile), executable_path=CHROMIUM, args=CHROMIUM_ARGS,
        viewport={"width": 1500, "height": 1100})
    try:
        # The browser is running when the person comes back (its first tab open): its start
        # is not the page's time.
        (ctx.pages[0] if ctx.pages else ctx.new_page()).goto("about:blank")
        run(ctx)
    finally:
        ctx.close()


def _visit_all(ctx: Any, base: str, big_run_id: int, got: Samples | None,
               only: str | None = None) -> None:
    """Each page in a tab of its own in `ctx`; timed into `got` as "returning" unless None
    (the first pass only fills the profile's cache). The root first, unmeasured, as in the
    cold rounds: a fresh server's first session pays the app's imports and start-up."""
    first = ctx.new_page()
    first.goto(base)
    first.get_by_text("Reviewer").first.wait_for(timeout=WAIT_MS)
    first.close()
    for case in cases(big_run_id, only):
        page = ctx.new_page()
        page.set_default_timeout(WAIT_MS)
        if got is None:
            _load(page, base, case)
        else:
            got.add(f"{case.name}|returning", lambda p=page, c=case: _load(p, base, c))
        _idle(page)
        page.close()


def _page_context(browser: Any, height: int = 1100) -> tuple[Any, Any]:
    ctx = browser.new_context(viewport={"width": 1500, "height": height})
    page = ctx.new_page()
    page.set_default_timeout(WAIT_MS)
    return ctx, page


def _rounds(url: str, tmp: Path, big_run_id: int, rounds: int,
            only: str | None = None) -> Samples:
    from playwright.sync_api import sync_playwright

    from testkit.app_server import CHROMIUM, CHROMIUM_ARGS, free_port, serve

    got = Samples()
    # One address for every server start: a browser's cache is per origin, port included.
    port = free_port()
    profile = tmp / "returning-profile"

    def server(name: str):  # type: ignore[no-untyped-def]
        return serve(ROOT / "app.py", url, tmp / f"pages-{name}.log", port=port,
                     env={"DRAFTROOM_INAPP_WORKER": "0"}, timeout=120)

    with sync_playwright() as p:
        with server("prime") as (base, _):  # the returning browser's earlier visit
            _returning(p, profile, lambda ctx: _visit_all(ctx, base, big_run_id, None, only))
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for r in range(rounds):
                with server(str(r)) as (base, _):
                    # The root first: a fresh server's very first request for /costs would
                    # run the page file without app.py.
                    ctx, page = _page_context(browser)
                    page.goto(base)
                    page.get_by_text("Reviewer").first.wait_for(timeout=WAIT_MS)
                    ctx.close()
                    for case in cases(big_run_id, only):
                        ctx, page = _page_context(browser)
                        got.add(f"{case.name}|cold", lambda p=page, c=case: _load(p, base, c))
                        _idle(page)
                        got.add(f"{case.name}|warm", lambda p=page, c=case: _load(p, base, c))
                        _idle(page)
                        ctx.close()
                    ctx, page = _page_context(browser, 2300)
                    for name, measure in (
                            ("call", lambda p=page: _call_click(p, base, big_run_id)),
                            ("traces window", lambda p=page: _traces_window(p, base, big_run_id)),
                            ("costs filter", lambda p=page: _costs_filter(p, base)),
                            ("queue filter", lambda p=page: _queue_filter(p, base))):
                        if _interacting(name, only):
                            got.add(name, measure)
                    ctx.close()
                with server(f"{r}-returning") as (base, _):
                    _returning(p, profile,
                               lambda ctx, b=base: _visit_all(ctx, b, big_run_id, got, only))
        finally:
            browser.close()
    return got


def _verdict(got: Samples, name: str, goal: float, base: str | None = None) -> str:
    times = got.times[name]
    med = statistics.median(times)
    load = statistics.median(got.loads[name])
    ratio = ""
    if base is not None and name != base and base in got.times:
        ref = statistics.median(got.times[base])
        ratio = f"; {med / ref:.1f}x the baseline" if ref and ref != float("inf") else ""
    return (f"{med:.2f} s (runs: {', '.join(f'{t:.2f}' for t in times)}; load {load:.1f}"
            f"{ratio}); goal <= {goal:g} s: " + ("met" if med <= goal else "NOT met"))


def _seeded(calls: int, runs: int, db: Path) -> tuple[int, str]:
    """Seed `db` unless it holds the calls already; (the 500-call run's id, what was
    done)."""
    from sqlalchemy import text

    from db.session import get_engine
    from demo.seed import seed_demo

    with get_engine().connect() as c:
        have = c.execute(text("SELECT count(*) FROM llmcall")).scalar() or 0
    note = f"reused {db} ({have:,} calls)"
    if have < calls:
        t0 = time.perf_counter()
        r = seed_demo(calls=calls, runs=runs, big_run_calls=500)
        note = (f"seeded {r.calls:,} calls, {r.runs:,} runs in "
                f"{time.perf_counter() - t0:.0f} s")
    with get_engine().connect() as c:
        big = c.execute(text("SELECT run_id FROM llmcall GROUP BY run_id "
                             "ORDER BY count(*) DESC LIMIT 1")).scalar()
    return int(big or 1), note


def run(quick: bool = False, *, scale: str | None = None, db: Path | None = None,
        rounds: int | None = None, only: str | None = None) -> list[Row]:
    try:
        import playwright  # noqa: F401
    except ImportError:
        return [Row("pages at scale", "skipped", "Playwright is not installed")]
    from testkit.app_server import CHROMIUM

    if not Path(CHROMIUM).exists():
        return [Row("pages at scale", "skipped", f"no Chromium at {CHROMIUM}")]
    scale = scale or os.environ.get("DRAFTROOM_BENCH_SCALE", "small")
    calls, runs = SIZES["small" if quick else scale]
    db = db or (Path(os.environ["DRAFTROOM_BENCH_DB"]) if os.environ.get("DRAFTROOM_BENCH_DB")
                else None)
    rounds = rounds or (1 if quick else 3)
    command = "python -m bench --only pages" + (
        "" if scale == "small" else f" (DRAFTROOM_BENCH_SCALE={scale})")
    b = f"pages at scale ({calls:,} calls, {runs:,} runs; Chromium)"
    with tempfile.TemporaryDirectory(prefix="draftroom-bench-pages-") as d:
        path = db or Path(d) / "pages.db"
        url = f"sqlite:///{path}"
        with database(url):
            big_run_id, note = _seeded(calls, runs, path)
        log(f"pages: {note}; {rounds} rounds")
        got = _rounds(url, Path(d), big_run_id, rounds, only)
    rows = [Row(b, "setup", f"{note}; median of {rounds} rounds; load average (1 min) at "
                f"the end {os.getloadavg()[0]:.1f}; each row: its samples' median load, and "
                "its time against the baseline's of the same rounds", command)]
    label = {"cold": "cold (first-ever visit)", "warm": "warm",
             "returning": "cold server, returning browser (its cache kept)"}
    for case in cases(big_run_id, only):
        for temp, goal in (("cold", case.cold_goal), ("warm", case.warm_goal),
                           ("returning", case.cold_goal)):
            name = f"{case.name}|{temp}"
            rows.append(Row(b, f"{case.name}: first chart or table, {label[temp]}",
                            _verdict(got, name, goal, f"{BASELINE}|{temp}"), command))
    for name, what, goal in (
            ("call", "Traces: a call's details after the click on its bar", CALL),
            ("traces window", "Traces: widen the window of steps by one, to the timeline "
             "redrawn", FILTER),
            ("costs filter", "Costs: filter by one kind, to every chart redrawn", FILTER),
            ("queue filter", "Queue: search 'exam panic', to the runs listed", FILTER)):
        if _interacting(name, only):
            rows.append(Row(b, what, _verdict(got, name, goal, f"{BASELINE}|warm"), command))
    return rows


if __name__ == "__main__":
    from bench._harness import markdown_table

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", action="store_true", help="1,000,000 calls / 50,000 runs")
    ap.add_argument("--db", type=Path, help="seed this SQLite file once and reuse it")
    ap.add_argument("--rounds", type=int)
    ap.add_argument("--only-case", metavar="NAME",
                    help="one page's case (its name or start, e.g. Queue) beside the baseline, "
                         "and the interactions on that page")
    a = ap.parse_args()
    print(markdown_table(run(scale="full" if a.full else None, db=a.db, rounds=a.rounds,
                             only=a.only_case)))
