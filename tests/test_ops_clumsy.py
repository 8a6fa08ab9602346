"""Issue 15's clumsy ops items, without a browser: the error-rate axis names each tick once,
bar labels get room past their bars, a budget meter over budget looks over, the sidebar
leaves the alerts to the pages that draw them, the traces page's scroll script carries no
outside text, and a long request's whole text is the queue card's hover."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from engine.service import start_run
from engine.text import TITLE_MAX, run_title
from testkit.queue_cards import card_links
from ui.budget_banner import PAGES_WITH_ALERTS, budget_meter_html, meter_level
from ui.ops_figures import cost_bars_figure, error_rate_figure, share_ticks
from ui.trace_figures import scroll_script

APP = str(Path(__file__).resolve().parent.parent / "app.py")


def _models(rates: dict[str, float], costs: dict[str, float] | None = None) -> pd.DataFrame:
    return pd.DataFrame([{"model": m, "error_rate": r, "errors": int(r * 1000), "calls": 1000,
                          "cost_usd": (costs or {}).get(m, 1.0), "unpriced": 0}
                         for m, r in rates.items()])


@pytest.mark.parametrize("top", [0.0, 0.004, 0.012, 0.018, 0.057, 0.3, 1.0])
def test_the_error_rate_axis_names_each_tick_once(top: float) -> None:
    fig = error_rate_figure(_models({"gpt-4.1": top}))
    labels = list(fig.layout.xaxis.ticktext)
    assert len(labels) == len(set(labels)) >= 3, labels
    assert fig.layout.xaxis.range[1] >= top  # the bar fits
    assert share_ticks(0.012)[2] == (0.01, "1.0%")


def test_bar_labels_have_room_past_the_longest_bar() -> None:
    fig = cost_bars_figure(_models({"gpt-4.1": 0.01, "o4-mini": 0.02},
                                   {"gpt-4.1": 27.30, "o4-mini": 1.5}), "model")
    longest = max(len(t) for t in fig.data[0].text)
    assert fig.layout.margin.r >= 6 * longest  # ~7 px a character at 12 px
    err = error_rate_figure(_models({"gpt-4.1": 0.066}))
    assert err.layout.margin.r >= 6 * len("6.6%")


def test_a_budget_meter_over_budget_is_red_and_says_so() -> None:
    over = budget_meter_html(5.00, 4.76)
    assert 'data-level="over"' in over and "#dc2626" in over and "105% of $4.76" in over
    assert "over budget" in over and "width:100.0%" in over  # full, not past the track
    near = budget_meter_html(6.94, 8.16)
    assert 'data-level="warning"' in near and "near budget" in near
    assert meter_level(1.0, 10.0) == "ok" and " budget<" not in budget_meter_html(1.0, 10.0)


def test_the_sidebar_leaves_budget_alerts_to_the_pages_that_draw_them() -> None:
    source = {p: (Path(APP).parent / "pages" / f"{p}.py").read_text() for p in PAGES_WITH_ALERTS}
    assert all("budget_banner()" in text for text in source.values())


def test_the_scroll_script_takes_only_an_anchor_id_and_a_number() -> None:
    script = scroll_script("call-details", 42)
    assert "getElementById('call-details')" in script and "call 42" in script
    with pytest.raises(ValueError):
        scroll_script("x'); alert(1); ('", 1)


def test_a_long_request_is_the_queue_cards_hover_in_full(db_url: str) -> None:
    intent = ("Help a university student who feels panic in the days before exams, cannot "
              "sleep the night before, skips breakfast and freezes at the first question")
    run_id = start_run(kind="protocol", input={"intent": intent, "audience": "adult students"},
                       actor="Dr. Lee")
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["reviewer"] = "Dr. Lee"
    at.run()
    at.switch_page("pages/queue.py").run()
    [link] = [c for c in card_links(at) if c.query_string == f"run={run_id}"]
    assert link.label.endswith("…") and link.hover == intent
    assert len(run_title("x " * 400)) == TITLE_MAX
