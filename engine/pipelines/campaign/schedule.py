"""When a campaign's parts happen: contact, terms, posts and results as campaign weeks
("Week 1", "Weeks 3-12"), spread over the length its goal gives (goal.goal_weeks), or, when it
names the months it runs in ("in January", "from June to August"), with the posts in those
months; and the dates a creator is told. The drafters (offline backend) write from these."""

from __future__ import annotations

import calendar
import re
from datetime import date, timedelta
from typing import NamedTuple

from engine.pipelines.campaign.deadline import end_label
from engine.pipelines.campaign.goal import (
    DEFAULT_WEEKS,
    MONTHS,
    explicit_span,
    goal_date,
    goal_months,
    goal_weeks,
    goal_window,
)

_MONTHS = "|".join(m.lower() for m in MONTHS)


def month_window(goal: str, today: date) -> tuple[date, date] | None:
    """The days of the months a goal runs in ("in January", "from June to August", "in May
    and June"), from `today` (the campaign's first day) on: its posts go live then, not in
    the weeks after the brief. None for a deadline ("by the end of March": the campaign runs
    until then), a length the goal gives, or no month."""
    window = goal_window(goal)
    if not window or not window.startswith(("in ", "from ")) or explicit_span(goal) is not None \
            or _DAY_NAMED.search(goal):  # "between 3 and 24 December": its own days
        return None
    months = [MONTHS.index(m) + 1 for m in goal_months(goal)]
    year = today.year + (months[0] < today.month)
    end_year = year + (months[-1] < months[0])
    end = date(end_year, months[-1], calendar.monthrange(end_year, months[-1])[1])
    if end < today + timedelta(weeks=3):  # over before posts could go live: no window to keep
        return None
    return max(today, date(year, months[0], 1)), end


def results_label(goal: str, today: date) -> str | None:
    """When the results are in, as a timeline says it: "by 28 February 2027" (the goal's end
    date), "after 31 January" (the week after the months it runs in), "by May"."""
    if end := end_label(goal, today):
        return f"by {end}"
    if window := month_window(goal, today):
        return f"after {window[1].day} {MONTHS[window[1].month - 1]}"
    return f"by {found}" if (found := goal_date(goal)) else None


_DAY_NAMED = re.compile(rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTHS})\b|"
                        rf"\b(?:{_MONTHS})\s+\d{{1,2}}(?:st|nd|rd|th)?\b(?!\s*\d)", re.I)


def _window_weeks(goal: str, today: date) -> tuple[int, int] | None:
    """The campaign weeks (first, last) the goal's months cover, after two weeks to reach the
    creators and agree terms."""
    window = month_window(goal, today)
    if window is None:
        return None
    first = max(3, (window[0] - today).days // 7 + 1)
    return first, min(51, max(first, (window[1] - today).days // 7 + 1))





class Phases(NamedTuple):
    """When each part of a campaign happens, as labels ("Week 1", "Weeks 3-12")."""

    contact: str
    terms: str
    posts: str
    first_wave: str
    second_wave: str
    results: str
    weeks: int


def post_windows(posts: str, n: int) -> list[str]:
    """Each of `n` creators' share of the posting weeks ("Weeks 3-12" over 3 creators:
    "Weeks 3-5", "Weeks 6-8", "Weeks 9-12"), staggered in order; creators share a week when
    there are more of them than weeks."""
    weeks = [int(x) for x in re.findall(r"\d+", posts)]
    first, span = weeks[0], weeks[-1] - weeks[0] + 1
    out = []
    for k in range(n):
        start = first + k * span // n
        end = max(start, first + (k + 1) * span // n - 1)
        out.append(f"Week {start}" if end == start else f"Weeks {start}-{end}")
    return out


def phases(goal: str, today: date | None = None) -> Phases:
    """The campaign's parts spread over the goal's own length (DEFAULT_WEEKS without one):
    contact and terms in the first two weeks, posts until the week before the last, results in
    the last. A short campaign folds parts into the same week."""
    if posts := _window_weeks(goal, today or date.today()):  # "in January": posts then
        first, last = posts
        # Terms and products the week before the posts, not months ahead of them.
        return Phases("Week 1", f"Week {first - 1}", f"Weeks {first}-{last}" if last > first
                      else f"Week {first}", f"Week {first}", f"Week {last}", f"Week {last + 1}",
                      last + 1)
    n = goal_weeks(goal, today) or DEFAULT_WEEKS
    if n >= 5:
        return Phases("Week 1", "Week 2", f"Weeks 3-{n - 1}", "Week 3", f"Week {n - 1}",
                      f"Week {n}", n)
    if n == 4:
        return Phases("Week 1", "Week 2", "Week 3", "Week 3", "Week 3", "Week 4", n)
    if n == 3:
        return Phases("Week 1", "Week 1", "Week 2", "Week 2", "Week 2", "Week 3", n)
    last = f"Week {n}"
    return Phases("Week 1", "Week 1", last, last, last, last, n)


def posts_window(goal: str, today: date) -> str:
    """When the posts go live, as dates a creator can plan by ("between 8 December and 7
    March"): the phases' posting weeks counted from the campaign's first day. No year and no
    week numbers: neither means anything to a creator, and a number from the goal must not
    read as its internal target."""
    weeks = [int(n) for n in re.findall(r"\d+", phases(goal, today).posts)]
    start = today + timedelta(weeks=weeks[0] - 1)
    end = today + timedelta(weeks=weeks[-1], days=-1)
    if (window := month_window(goal, today)) and max(start, window[0]) < min(end, window[1]):
        start, end = max(start, window[0]), min(end, window[1])  # within the goal's months
    return f"between {start.day} {MONTHS[start.month - 1]} and {end.day} {MONTHS[end.month - 1]}"


__all__ = ["Phases", "month_window", "phases", "post_windows", "posts_window", "results_label"]
