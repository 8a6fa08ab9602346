"""The Costs page's day charts on a fresh desk (one day of calls): Plotly zoomed the date axis
down to milliseconds ("23:59:59.9995 Nov 23") beside a token chart showing a month."""

from __future__ import annotations

import datetime

import pandas as pd

from ui.ops_figures import spend_by_day_figure, tokens_by_day_figure

ONE_DAY = pd.DataFrame({"day": [datetime.date(2026, 11, 24)], "cost_usd": [0.12], "calls": [3],
                        "prompt_tokens": [900], "cached_tokens": [100],
                        "completion_tokens": [300]})


def test_a_single_day_is_shown_as_a_day_with_a_day_either_side() -> None:
    for fig in (spend_by_day_figure(ONE_DAY), tokens_by_day_figure(ONE_DAY)):
        axis = fig.layout.xaxis
        assert axis.tickformat == "%b %d" and axis.dtick == 86_400_000
        low, high = (pd.Timestamp(x) for x in axis.range)
        assert high - low == pd.Timedelta(days=2)


def test_a_month_keeps_plotlys_own_ticks() -> None:
    days = pd.date_range("2026-10-25", periods=30, freq="D").date
    month = pd.DataFrame({"day": days, "cost_usd": [1.0] * 30, "calls": [5] * 30,
                          "prompt_tokens": [10] * 30, "cached_tokens": [0] * 30,
                          "completion_tokens": [5] * 30})
    axis = spend_by_day_figure(month).layout.xaxis
    assert axis.dtick is None and axis.range is None and axis.tickformat == "%b %d"
