"""How long a campaign runs when its goal says so in days or by an end date rather than in
weeks or months: "in the next 90 days", "within a fortnight", "by the end of January",
"by 15 March", "between now and the end of March", "before Christmas", "by year end". The
weeks from the campaign's start (the run's first day) to that date; goal.goal_weeks reads
spans in weeks and months first and asks this module for the rest."""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterator
from datetime import date
from typing import Any

_MONTH_NAMES = [m.lower() for m in calendar.month_name[1:]]
_MONTH = (r"(january|february|march|april|may|june|july|august|september|october|november|"
          r"december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.?")
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?:,?\s+(20\d\d))?"
_NUMBER_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}
_N = r"(\d{1,3}|" + "|".join(_NUMBER_WORDS) + r")"

# Spans in days ("in the next 90 days", "over 10 days", "a 30-day push") and fortnights.
_DAYS = re.compile(rf"\b(?:within|over|in|for|during|across|inside)\s+(?:the\s+)?(?:next\s+|"
                   rf"first\s+|coming\s+)?{_N}\s+days?\b|\b{_N}[\s-]days?[\s-](?:\w+[\s-])?"
                   r"(?:campaign|push|run|sprint|drive|programme|program|launch|window|sale)\b",
                   re.I)
_FORTNIGHT = re.compile(r"\b(?:a|one|within\s+a|in\s+a|over\s+a)\s+fortnight\b", re.I)
_WEEKENDS = re.compile(r"\bthis\s+weekend\s+and\s+(?:the\s+)?next(?:\s+one)?\b", re.I)

# Where a deadline starts: "by", "before", "until", "between now and", "in time for".
_LEAD = (r"\b(?:by|before|until|till|through|thru|ahead\s+of|in\s+time\s+for|between\s+now\s+"
         r"and|no\s+later\s+than|for|on)\s+(?:the\s+)?")
_PART = r"(?:(end|middle|start|beginning)\s+of\s+(?:the\s+)?|(mid|early|late)[-\s]?)?"
_DAY_MONTH = re.compile(rf"{_LEAD}{_PART}{_DAY}\s+(?:of\s+)?{_MONTH}{_YEAR}\b", re.I)
_MONTH_DAY = re.compile(rf"{_LEAD}{_PART}{_MONTH}\s+{_DAY}\b{_YEAR}", re.I)
_MONTH_ONLY = re.compile(rf"{_LEAD}{_PART}{_MONTH}(?!\s+\d{{1,2}}\b){_YEAR}\b", re.I)
_YEAR_END = re.compile(rf"{_LEAD}(?:year[-\s]end|(?:the\s+)?end\s+of\s+(?:the|this)\s+year)\b",
                       re.I)
_MONTH_END = re.compile(_LEAD + r"end\s+of\s+(?:the\s+|this\s+)?(next\s+)?month\b", re.I)
# Dates the same every year, named rather than written (no moving feasts: their date needs a
# calendar this module does not hold).
_HOLIDAYS = {"christmas eve": (12, 24), "christmas": (12, 25), "new year's eve": (12, 31),
             "new years eve": (12, 31), "valentine's day": (2, 14), "valentines day": (2, 14),
             "valentine's": (2, 14), "halloween": (10, 31), "boxing day": (12, 26)}
_HOLIDAY = re.compile(_LEAD + "(" + "|".join(re.escape(h).replace("'", "['\u2019]?")
                                             for h in _HOLIDAYS) + r")\b", re.I)
# "(1 April 2027 to 30 April 2027)": the dates the intake writes after a campaign's goal.
_WINDOW = re.compile(rf"\b{_DAY}\s+{_MONTH}{_YEAR}\s+(?:to|until|-|\u2013)\s+{_DAY}\s+{_MONTH}"
                     rf"{_YEAR}", re.I)


def _month(word: str) -> int:
    word = word.lower().rstrip(".")[:3]
    return next(i for i, m in enumerate(_MONTH_NAMES, 1) if m[:3] == word)


def _next(today: date, month: int, day: int | None, year: str | None,
          part: str | None = None) -> date:
    """The date named, on or after today unless a year says otherwise; a month alone is its
    last day ("by March"), its 15th when "mid", its 10th when "early"/"start"."""
    y = int(year) if year else today.year
    last = calendar.monthrange(y, month)[1]
    if day is None:
        day = {"mid": 15, "middle": 15, "early": 10, "start": 7, "beginning": 7}.get(
            (part or "").lower(), last)
    when = date(y, month, min(day, last))
    if not year and when < today:
        when = date(y + 1, month, min(day, calendar.monthrange(y + 1, month)[1]))
    return when


def _number(word: str) -> int:
    return int(word) if word.isdigit() else _NUMBER_WORDS[word.lower()]


def _weeks(days: float) -> int | None:
    return max(1, min(52, round(days / 7))) if days > 0 else None


def span_days_weeks(goal: str) -> int | None:
    """A length the goal gives in days, a fortnight or weekends (no end date needed)."""
    if m := _DAYS.search(goal):
        return _weeks(_number(m.group(1) or m.group(2)))
    if _FORTNIGHT.search(goal) or _WEEKENDS.search(goal):
        return 2
    if m := _WINDOW.search(goal):  # the campaign's own dates: their length
        start = _next(date(int(m.group(3) or date.today().year), 1, 1), _month(m.group(2)),
                      int(m.group(1)), m.group(3))
        end = _next(start, _month(m.group(5)), int(m.group(4)), m.group(6))
        return _weeks((end - start).days + 1)
    return None


def _dates(goal: str, today: date) -> Iterator[date]:
    """Every date the goal names after a deadline word, in no particular order."""
    for m in _DAY_MONTH.finditer(goal):
        yield _next(today, _month(m.group(4)), int(m.group(3)), m.group(5))
    for m in _MONTH_DAY.finditer(goal):
        yield _next(today, _month(m.group(3)), int(m.group(4)), m.group(5))
    for m in _HOLIDAY.finditer(goal):
        month, day = _HOLIDAYS[re.sub("\u2019", "'", m.group(1).lower())]
        yield _next(today, month, day, None)
    if _YEAR_END.search(goal):
        yield _next(today, 12, 31, None)
    if m := _MONTH_END.search(goal):
        month = today.month % 12 + 1 if m.group(1) else today.month
        year = today.year + (1 if m.group(1) and month == 1 else 0)
        yield date(year, month, calendar.monthrange(year, month)[1])
    for m in _MONTH_ONLY.finditer(goal):
        if m.group(3).lower() == "may" and not re.search(r"\b(?:by|before|until|till|end\s+of|"
                                                         r"mid)\W+(?:the\s+)?\w*\W*$",
                                                         goal[:m.start(3)], re.I):
            continue  # "customers may": no month
        yield _next(today, _month(m.group(3)), None, m.group(4), m.group(1) or m.group(2))


def end_date(goal: str, today: date) -> date | None:
    """The date the goal's campaign ends by, if it names one: the latest it names ("on
    December 1st, run until mid-February": mid-February)."""
    return max(_dates(goal, today), default=None)


def end_label(goal: str, today: date) -> str | None:
    """The goal's end date as a schedule writes it ("28 February 2027"), if it names one."""
    end = end_date(goal, today)
    return f"{end.day} {calendar.month_name[end.month]} {end.year}" if end else None


def campaign_start(context: dict[str, Any]) -> date:
    """The campaign's first day: the run's (its stage context's "today"), else today."""
    try:
        return date.fromisoformat(str(context.get("today") or ""))
    except ValueError:
        return date.today()


def deadline_weeks(goal: str, today: date) -> int | None:
    """Weeks from `today` (the campaign's first day) to the date the goal names."""
    end = end_date(goal, today)
    return _weeks((end - today).days) if end else None


__all__ = ["campaign_start", "deadline_weeks", "end_date", "end_label", "span_days_weeks"]
