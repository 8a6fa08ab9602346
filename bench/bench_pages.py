"""The desk's pages at scale (issue 15, "Fast at scale"): in Chromium, the time from a load by
URL to each page's first chart or table, cold and warm, a trace call's details after the
click, and the filters, against a `seed-demo` database.

    python -m bench --only pages                 # 100,000 calls / 5,000 runs (minutes)
    DRAFTROOM_BENCH_SCALE=full python -m bench --only pages    # 1,000,000 calls / 50,000 runs
    DRAFTROOM_BENCH_DB=/tmp/x.db ...             # seed that file once and reuse it after
    python -m bench.bench_pages [--full] [--db PATH] [--rounds 3]

Cold: a fresh app server (its caches empty) and a fresh browser context (nothing cached), the
page loaded by URL; one round per server start. Warm: the same page loaded again by URL right
after, in the same context. Each figure is the median of the rounds (3 by default)."""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench._harness import Row, database, log

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
TABLE = "[data-testid='stDataFrame'], [data-testid='stTable'], .stMarkdown table"


@dataclass(frozen=True)
class PageCase:
    name: str
    path: str
    first: str
    """CSS of the page's first chart or table (or, for the queue, its first run)."""
    warm_goal: float = WARM
    cold_goal: float = FIRST


def cases(run_id: int, big_run_id: int) -> list[PageCase]:
    return [
        PageCase("Costs", "costs", CHART),
        PageCase("Queue", "queue", "a[href*='run=']", QUEUE, QUEUE),
        PageCase("Traces (500-call run)", f"traces?run={big_run_id}", CHART),
        # Its first content: the active prompt's text (the comparison is a tab of its own,
        # computed when opened).
        PageCase("Prompts", "prompts", "[data-testid='stCode']"),
        PageCase("Settings", "settings", TABLE),
        PageCase("Run page", f"run?run={run_id}", CHART),
    ]


def _visible(page: Any, css: str) -> None:
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


def _rerun(page: Any) -> None:
    """Until the rerun a widget started has ended: its running indicator shows (if it shows
    at all within 3 s: a fast rerun may end first), then goes."""
    try:
        page.get_by_test_id("stStatusWidget").wait_for(state="attached", timeout=3000)
    except Exception:  # playwright's TimeoutError: the rerun ended before it showed
        pass
    _idle(page)


def _call_click(page: Any, base: str, big_run_id: int) -> float:
    """From the click on a call's bar in the timeline to that call's request shown."""
    page.goto(f"{base}/traces?run={big_run_id}")
    _visible(page, CHART)
    _idle(page)
    box = page.get_by_test_id("stSelectbox").nth(1)
    before = box.inner_text()
    agent = page.evaluate("""() => {
        const data = document.querySelector('.js-plotly-plot').data;
        let best = -1;
        data.forEach((t, i) => {
            if (['step', 'step failed', 'error'].includes(t.meta.series)) return;
            if (best < 0 || t.y.length > data[best].y.length) best = i;
        });
        return best; }""")
    bar = page.locator(".js-plotly-plot .barlayer .trace").nth(agent).locator("path").last
    bar.scroll_into_view_if_needed()

    def shown() -> None:
        # Looked up afresh each time: the rerun may draw the call picker anew.
        page.wait_for_function(
            "(old) => { const b = document.querySelectorAll('[data-testid=\"stSelectbox\"]')[1];"
            " return b && b.innerText !== old; }", arg=before, timeout=WAIT_MS)
        page.get_by_text("Request", exact=True).first.wait_for(timeout=WAIT_MS)
        _idle(page)

    return _timed(lambda: bar.click(force=True), shown)


def _costs_filter(page: Any, base: str) -> float:
    """Pick one kind in the Costs filter: from the choice to the spend chart redrawn for
    that kind alone (one series instead of one per kind) and the page's script done."""
    page.goto(f"{base}/costs")
    page.wait_for_function(f"document.querySelectorAll('{CHART}').length >= 4",
                           timeout=WAIT_MS)
    _idle(page)
    page.get_by_test_id("stMultiSelect").first.click()
    option = page.get_by_role("option").first
    option.wait_for(timeout=WAIT_MS)

    def redrawn() -> None:
        _rerun(page)
        page.wait_for_function(f"document.querySelectorAll('{CHART}').length >= 4",
                               timeout=WAIT_MS)

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


def _sample(got: dict[str, list[float]], name: str, measure: Callable[[], float]) -> None:
    """One sample, logged as it lands; a measurement that fails (a page that never drew)
    counts as infinitely slow instead of losing the others."""
    try:
        took = measure()
    except Exception as exc:  # a timeout, a missing element: that page misses its goal
        log(f"  {name}: failed: {type(exc).__name__}: {str(exc)[:200]}")
        took = float("inf")
    got.setdefault(name, []).append(took)
    log(f"  {name}: {took:.2f} s")


def _rounds(url: str, tmp: Path, run_id: int, big_run_id: int,
            rounds: int) -> dict[str, list[float]]:
    from playwright.sync_api import sync_playwright

    from testkit.app_server import CHROMIUM, CHROMIUM_ARGS, serve

    got: dict[str, list[float]] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for r in range(rounds):
                with serve(ROOT / "app.py", url, tmp / f"pages-{r}.log",
                           env={"DRAFTROOM_INAPP_WORKER": "0"}, timeout=120) as (base, _):
                    # The root first: a fresh server's very first request for /costs would
                    # run the page file without app.py.
                    first = browser.new_context(viewport={"width": 1500, "height": 1100})
                    first.new_page().goto(base)
                    first.pages[0].get_by_text("Reviewer").first.wait_for(timeout=WAIT_MS)
                    first.close()
                    for case in cases(run_id, big_run_id):
                        ctx = browser.new_context(viewport={"width": 1500, "height": 1100})
                        page = ctx.new_page()
                        page.set_default_timeout(WAIT_MS)
                        _sample(got, f"{case.name}|cold", lambda p=page, c=case: _load(p, base, c))
                        _idle(page)
                        _sample(got, f"{case.name}|warm", lambda p=page, c=case: _load(p, base, c))
                        _idle(page)
                        ctx.close()
                    ctx = browser.new_context(viewport={"width": 1500, "height": 2300})
                    page = ctx.new_page()
                    page.set_default_timeout(WAIT_MS)
                    _sample(got, "call", lambda p=page: _call_click(p, base, big_run_id))
                    _sample(got, "costs filter", lambda p=page: _costs_filter(p, base))
                    _sample(got, "queue filter", lambda p=page: _queue_filter(p, base))
                    ctx.close()
        finally:
            browser.close()
    return got


def _verdict(times: list[float], goal: float) -> str:
    med = statistics.median(times)
    return (f"{med:.2f} s (runs: {', '.join(f'{t:.2f}' for t in times)}); goal <= {goal:g} s: "
            + ("met" if med <= goal else "NOT met"))


def _seeded(calls: int, runs: int, db: Path) -> tuple[int, int, str]:
    """Seed `db` unless it holds the calls already; (a finished run's id, the 500-call run's
    id, what was done)."""
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
        done = c.execute(text("SELECT max(id) FROM run WHERE status = 'approved'")).scalar()
    return int(done or 1), int(big or 1), note


def run(quick: bool = False, *, scale: str | None = None, db: Path | None = None,
        rounds: int | None = None) -> list[Row]:
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
            run_id, big_run_id, note = _seeded(calls, runs, path)
        log(f"pages: {note}; {rounds} rounds")
        got = _rounds(url, Path(d), run_id, big_run_id, rounds)
    rows = [Row(b, "setup", f"{note}; median of {rounds} rounds, load average "
                f"{os.getloadavg()[0]:.1f}", command)]
    for case in cases(run_id, big_run_id):
        rows.append(Row(b, f"{case.name}: first chart or table, cold",
                        _verdict(got[f"{case.name}|cold"], case.cold_goal), command))
        rows.append(Row(b, f"{case.name}: first chart or table, warm",
                        _verdict(got[f"{case.name}|warm"], case.warm_goal), command))
    rows.append(Row(b, "Traces: a call's details after the click on its bar",
                    _verdict(got["call"], CALL), command))
    rows.append(Row(b, "Costs: filter by one kind, to every chart redrawn",
                    _verdict(got["costs filter"], FILTER), command))
    rows.append(Row(b, "Queue: search 'exam panic', to the runs listed",
                    _verdict(got["queue filter"], FILTER), command))
    return rows


if __name__ == "__main__":
    from bench._harness import markdown_table

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", action="store_true", help="1,000,000 calls / 50,000 runs")
    ap.add_argument("--db", type=Path, help="seed this SQLite file once and reuse it")
    ap.add_argument("--rounds", type=int)
    a = ap.parse_args()
    print(markdown_table(run(scale="full" if a.full else None, db=a.db, rounds=a.rounds)))
