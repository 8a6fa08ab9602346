"""The Traces page's "click a call on the timeline" in Chromium, as both the browser test
(tests/e2e/test_ops_browser.py) and the pages bench (bench/bench_pages.py) do it: find a call's
bar (not a step's), click it, and wait until that call's details are drawn.

"Drawn" means the details' marker names the clicked call, their "Request" heading is
attached, and the page's script has finished: what a person sees, not merely the rerun
starting. Everything is looked up afresh after the click, as the rerun may draw the elements
anew."""

from __future__ import annotations

from typing import Any

DONE = "!document.querySelector('[data-testid=\"stStatusWidget\"]')"
CHART = ".js-plotly-plot .main-svg"
DETAILS = "[data-testid='call-details']"

# The index of the trace (in the timeline's Plotly data) of the agent with the most bars in
# the window: a call series, found by the meta each trace carries (which series are drawn
# depends on the window's steps).
_BUSIEST_AGENT = """() => {
    const data = document.querySelector('.js-plotly-plot').data;
    let best = -1;
    data.forEach((t, i) => {
        if (['step', 'step failed', 'error'].includes(t.meta.series)) return;
        if (best < 0 || t.y.length > data[best].y.length) best = i;
    });
    return best; }"""

# The details' marker (pages/traces.py) names the call they are of.
_SHOWS_CALL = """(id) => {
    const details = document.querySelector("[data-testid='call-details']");
    return !!details && details.dataset.call === String(id); }"""


def idle(page: Any, timeout_ms: float) -> None:
    """Until the page's script has finished (Streamlit's running indicator is gone)."""
    page.wait_for_function(DONE, timeout=timeout_ms)


def open_trace(page: Any, base: str, run_id: int, timeout_ms: float) -> None:
    page.goto(f"{base}/traces?run={run_id}")
    page.locator(CHART).first.wait_for(state="attached", timeout=timeout_ms)
    idle(page, timeout_ms)


def call_bar(page: Any) -> tuple[Any, int]:
    """The last bar of the busiest agent in the timeline's window, and the call id it stands
    for (each bar carries its call's id as customdata)."""
    agent = page.evaluate(_BUSIEST_AGENT)
    if agent < 0:
        raise AssertionError("the timeline has no call bars")
    call_id = page.evaluate(
        "(i) => { const t = document.querySelector('.js-plotly-plot').data[i];"
        " const c = t.customdata[t.customdata.length - 1];"
        " return Array.isArray(c) ? c[0] : c; }", agent)
    bar = page.locator(".js-plotly-plot .barlayer .trace").nth(agent).locator("path").last
    bar.scroll_into_view_if_needed()
    return bar, int(call_id)


def click_call(page: Any, timeout_ms: float) -> int:
    """Click a call's bar and return its id once its details are drawn."""
    bar, call_id = call_bar(page)
    bar.click(force=True)
    wait_call_shown(page, call_id, timeout_ms)
    return call_id


def wait_call_shown(page: Any, call_id: int, timeout_ms: float) -> None:
    page.wait_for_function(_SHOWS_CALL, arg=call_id, timeout=timeout_ms)
    page.get_by_text("Request", exact=True).first.wait_for(state="attached", timeout=timeout_ms)
    idle(page, timeout_ms)
