"""Reading one field's value from what a person (or a model) wrote: an amount, channels, dates,
a list, a line of text. A value that cannot be read raises Unclear with the question to ask
back, so nothing half-read is ever stored."""

from __future__ import annotations

import calendar
import re
from datetime import UTC, date, datetime
from typing import Any

from engine.intake.fields import spec
from engine.pipelines.campaign.channels import LABELS
from engine.text import clean_text

MAX_BUDGET = 10_000_000
MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_name) if m}
MONTHS.update({m.lower(): i for i, m in enumerate(calendar.month_abbr) if m})
MONTHS["sept"] = 9
_MONTH = r"(?:" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\b\.?"
NONE_WORDS = re.compile(r"^(?:none|nothing|no|n/?a|nope|not really|no banned claims|"
                        r"nothing to avoid|no claims|no restrictions|nothing in particular)"
                        r"[.!]?$", re.I)
CHANNEL_WORDS: tuple[tuple[str, str], ...] = (
    (r"instagram\s+(?:dms?|direct(?:\s+messages?)?)|ig\s+dms?|insta\s+dms?|\bdms?\b|"
     r"instagram(?!\.com)", "instagram_dm"),
    (r"e-?mails?|\bmail\b", "email"),
    (r"\bsms\b|text\s+messages?|\btexts?\b|\btexting\b", "sms"),
    (r"whats\s?app", "whatsapp"),
    (r"(?:microsoft|ms)\s+teams|\bteams\b", "teams"),
)


class Unclear(ValueError):
    """A value that cannot be read; `question` is what the agent asks back."""

    def __init__(self, field: str, question: str) -> None:
        super().__init__(question)
        self.field = field
        self.question = question


def today() -> date:
    return datetime.now(UTC).date()


def _text(field: str, raw: str, limit: int) -> str:
    v = clean_text(raw).strip(" \t\n\"'“”‘’.,;:!")
    v = re.sub(r"\s+", " ", v)
    if not v:
        raise Unclear(field, spec(field).question)
    if len(v) > limit:
        raise Unclear(field, f"That is long for the {spec(field).label.lower()} "
                      f"({len(v)} characters): can you say it in a sentence (under {limit})?")
    return v[0].upper() + v[1:] if field in ("goal", "voice", "audience", "sells") else v


def split_items(raw: str) -> list[str]:
    """"the seeded sourdough, the almond croissant and custom cakes" -> three items."""
    parts = re.split(r"\s*(?:[;,\n•]|\s(?:and|or|&|plus)\s|\band also\b)\s*", raw)
    out: list[str] = []
    for p in parts:
        p = re.sub(r"^(?:(?:the|our|a|an|no|any|nothing about|never|not)\s+)+", "",
                   p.strip(" \t\"'“”‘’.-*"), flags=re.I).strip(" \"'“”‘’.")
        if p and p.lower() not in (x.lower() for x in out):
            out.append(p)
    return out


def _list(field: str, raw: str) -> list[str]:
    text = clean_text(raw).strip()
    if spec(field).may_be_empty and NONE_WORDS.match(text):
        return []
    items = split_items(text)
    if not items:
        raise Unclear(field, spec(field).question)
    if any(len(i) > 200 for i in items) or len(items) > 50:
        raise Unclear(field, f"Can you list the {spec(field).label.lower()} as short items "
                      "(at most 50, each under 200 characters)?")
    return items


_AMOUNT = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*(k|thousand|m|million|mil)?\b", re.I)


def money(raw: str) -> float:
    text = clean_text(raw).lower()
    ask = ("What is the budget as an amount in US dollars (for example 4000)? "
           f"I could not read a number in \"{clean_text(raw)[:60]}\".")
    if re.search(r"[£€¥₪]|\b(?:eur|euros?|gbp|pounds?|yen|shekels?|nis)\b", text):
        raise Unclear("budget", "Budgets here are in US dollars: how much is that in USD?")
    amounts = [m for m in _AMOUNT.finditer(text) if m.group(1).replace(",", "")]
    if not amounts:
        raise Unclear("budget", ask)
    if len(amounts) > 1 and re.search(r"\d\s*(?:-|–|to)\s*\$?\d", text):
        raise Unclear("budget", "Is that a range? Give me the one figure the campaign may "
                      "spend, in US dollars.")
    m = amounts[0]
    value = float(m.group(1).replace(",", ""))
    unit = (m.group(2) or "").lower()
    value *= 1_000 if unit in ("k", "thousand") else 1_000_000 if unit.startswith("m") else 1
    if not 0 < value <= MAX_BUDGET:
        raise Unclear("budget", "The budget must be more than $0 and at most $10,000,000: "
                      "how much can the campaign spend?")
    return value


def channels(raw: str) -> list[str]:
    text = clean_text(raw).lower()
    found: list[tuple[int, str]] = []
    for pattern, key in CHANNEL_WORDS:
        for m in re.finditer(pattern, text):
            found.append((m.start(), key))
            text = text[:m.start()] + " " * (m.end() - m.start()) + text[m.end():]
    keys = list(dict.fromkeys(k for _, k in sorted(found)))
    if not keys:
        raise Unclear("channels", "Which channels should the outreach use? I can write "
                      f"{', '.join(LABELS.values())}.")
    return keys


_ISO = re.compile(r"\b(20\d\d)-(\d\d)-(\d\d)\b")
_MDY = re.compile(rf"\b({_MONTH})(?:\s+(\d{{1,2}})(?:st|nd|rd|th)?\b)?(?:,?\s+(20\d\d))?", re.I)
_DMY = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH})(?:,?\s+(20\d\d))?",
                  re.I)


def _points(text: str) -> list[tuple[int, int | None, int | None, int]]:
    """Date mentions in order: (position, year or None, month, day or None)."""
    pts: list[tuple[int, int | None, int | None, int]] = []
    taken: list[tuple[int, int]] = []
    for m in _ISO.finditer(text):
        pts.append((m.start(), int(m.group(1)), int(m.group(2)), int(m.group(3))))
        taken.append(m.span())
    for m in _DMY.finditer(text):
        if not any(a <= m.start() < b for a, b in taken):
            pts.append((m.start(), int(m.group(3)) if m.group(3) else None,
                        MONTHS[m.group(2).lower().rstrip(".")], int(m.group(1))))
            taken.append(m.span())
    for m in _MDY.finditer(text):
        if not any(a <= m.start() < b for a, b in taken):
            day = int(m.group(2)) if m.group(2) and int(m.group(2)) <= 31 else None
            pts.append((m.start(), int(m.group(3)) if m.group(3) else None,
                        MONTHS[m.group(1).lower().rstrip(".")], day or 0))
    return [(p, y, mo, d) for p, y, mo, d in sorted(pts)]


def dates(raw: str, *, now: date | None = None) -> dict[str, str]:
    """{"start": ISO date, "end": ISO date}. A month alone spans the whole month; a missing
    year is the next one that keeps the dates ahead (or the year named later on)."""
    now = now or today()
    pts = _points(clean_text(raw))
    if not pts:
        raise Unclear("dates", "When should the campaign run? Give a start and an end "
                      "(e.g. 2027-03-01 to 2027-04-15) or the months (e.g. May 2027).")
    years = [y for _, y, _, _ in pts if y]
    first, last = pts[0], pts[-1]

    def year_of(i: int, month: int) -> int:
        later = [y for _, y, _, _ in pts[i:] if y]
        if later:
            return later[0]
        return now.year if month >= now.month else now.year + 1

    try:
        sy = first[1] or year_of(0, first[2] or 1)
        start = date(sy, first[2] or 1, first[3] or 1)
        ey = last[1] or (years[-1] if years else year_of(len(pts) - 1, last[2] or 1))
        end_day = last[3] or calendar.monthrange(ey, last[2] or 12)[1]
        end = date(ey, last[2] or 12, end_day)
    except ValueError:
        raise Unclear("dates", "One of those dates does not exist: can you check the start "
                      "and end dates?") from None
    if end < start and not last[1]:
        end = end.replace(year=end.year + 1)
    if end < start:
        raise Unclear("dates", f"The end ({end:%d %B %Y}) is before the start "
                      f"({start:%d %B %Y}): which dates did you mean?")
    if end < now:
        raise Unclear("dates", f"Those dates ({start:%d %B %Y} to {end:%d %B %Y}) have "
                      "passed: when should the campaign run?")
    return {"start": start.isoformat(), "end": end.isoformat()}


def count(raw: str) -> int:
    m = re.search(r"\d+", raw)
    n = int(m.group()) if m else 0
    if not 1 <= n <= 20:
        raise Unclear("num_creators", "How many creators (1 to 20)?")
    return n


LIMITS = {"business_name": 120, "sells": 200, "region": 200, "audience": 500, "voice": 500,
          "goal": 900}


def read_value(field: str, raw: str) -> Any:
    """The field's value from text; raises Unclear."""
    kind = spec(field).kind
    if kind == "money":
        return money(raw)
    if kind == "channels":
        return channels(raw)
    if kind == "dates":
        return dates(raw)
    if kind == "count":
        return count(raw)
    if kind == "list":
        return _list(field, raw)
    return _text(field, raw, LIMITS.get(field, 500))


def shown(field: str, value: Any) -> str:
    """A value as a person reads it on the card."""
    if value is None:
        return ""
    kind = spec(field).kind
    if kind == "money":
        return f"${value:,.0f}"
    if kind == "channels":
        return ", ".join(LABELS.get(c, c) for c in value)
    if kind == "dates":
        s, e = date.fromisoformat(value["start"]), date.fromisoformat(value["end"])
        return f"{s:%-d %b %Y} – {e:%-d %b %Y}"
    if kind == "list":
        return "; ".join(value) if value else "none"
    return str(value)
