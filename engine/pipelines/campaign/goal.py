"""What a campaign's goal says, read from its own words: the product or offer it promotes,
the months it names, the numbers it counts. The drafters (offline backend) write from these
and the campaign checks hold every backend's drafts to them, so both read the goal the same
way."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date
from typing import NamedTuple

from engine.pipelines.campaign.deadline import deadline_weeks, span_days_weeks
from engine.pipelines.campaign.money import NUMBER, SYMBOL

# What the goal promotes: "launch our oat-milk cold brew", "get people to try our night cream",
# "bring families in for the Saturday pancake brunch". The phrase ends where the goal goes on.
_GOAL_PRODUCT = [re.compile(p, re.I) for p in (
    r"\b(?:launch(?:es|ed|ing)?|introduc(?:e|es|ed|ing)|promot(?:e|es|ed|ing)|"
    r"unveil(?:s|ed|ing)?|debut(?:s|ed|ing)?|releas(?:e|es|ed|ing)|showcas(?:e|es|ed|ing)|"
    r"featur(?:e|es|ed|ing))\s+(?:of\s+)?"
    r"(?:(?:our|the|an|a|its|their)\b)?\s*(?:new\s+|latest\s+)?"
    # "launch for sensitive skin", "launch in May": no object (the product is said before)
    r"(?!(?:for|to|in|on|at|with|by|from|into|across|this|next|among|during|before|after|"
    r"campaign|event|party)\b)(.+)",
    # "push the sourdough pastry box as a gift" (an article after it: "push for ..." is not)
    r"\b(?:push|boost|spotlight|highlight|advertise|market|pitch)\s+(?:our|the|a|an)\s+"
    r"(?:new\s+|latest\s+)?(.+)",
    # "new product: a soothing overnight mask"
    r"\bnew(?:\s+(?:product|item|offer|range|line|launch|drop|release|arrival))?\s*[:\u2013\u2014]"
    r"\s*(?:our|the|a|an)?\s*(.+)",
    r"\b(?:sell(?:ing)?\s+more(?:\s+of)?|try|trying|order|book)\s+(?:our|the)\s+(?:new\s+)?(.+)",
    r"\b(?:fill|sell|pre-sell|book out)\s+(?:\d[\d,]*\s+)?(?:of\s+)?(?:our|the)?\s*(?:new\s+)?"
    r"(?!more\b)(.+)",
    r"\bfor\s+(?:our|the)\s+(?:new\s+)?(.+)",
    # "sell 400 loaves a week of our new sourdough rye bread"
    r"\bof\s+(?:our|the)\s+(?:new|latest)\s+(.+)",
    # A goal that opens with its product: "New recovery sandal, trail creators to review it",
    # "Tempo 3 trainers launch" (not a season's: "Summer launch of ...").
    r"^\W*(?:a\s+|our\s+|the\s+)?new\s+(.+)",
    r"^\W*(?:our\s+|the\s+)?(?!(?:summer|winter|spring|autumn|fall|holiday|christmas|easter|soft|"
    r"big|brand|product|q[1-4]|spring)\b)((?:[\w'-]+\s+){0,4}?[\w'-]+)\s+(?:launch|release|drop)\b",
)]
_GOAL_PRODUCT_END = re.compile(
    r"\s+(?:to|for|this|next|among|in|at|with|by|during|before|after|across|so|and|that|"
    r"which|who|from|on|as|around|within|until|per|each|every|over|throughout|through|"
    r"starting|ahead|via)\b|[,.;:!?()\n]", re.I)
# What a goal fills or books out is the seats of the offer it sells, not the offer itself.
_FILLED = re.compile(r"\b(?:fill|book out)\b", re.I)
_SEATS = re.compile(r"(?<=\w)\s+(?:tables|seats|spots|slots|places|covers)$", re.I)
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")
_MONTHS = "|".join(m.lower() for m in MONTHS)
# A month by its name or its common short form ("Sept", "Jun"); "May" is a month only where
# a date is being said ("in May", "May and June", "May 3"), not "customers may try".
_MONTH = re.compile(r"\b(?:(january|february|march|april|june|july|august|september|october|"
                    r"november|december)|(jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.?"
                    r"|(may))\b", re.I)
_MAY_BEFORE = re.compile(r"(?:\b(?:in|by|before|until|till|through|thru|during|from|to|and|or|"
                         r"of|early|late|mid|since|after|end)|[-+,/\u2013\u2014&]|\d)\s*$", re.I)
_MAY_AFTER = re.compile(r"^\s*(?:\d|and\b|or\b|to\b|through\b|until\b|[-+/\u2013\u2014&,]|$)",
                        re.I)
_RANGE_WORD = re.compile(r"\b(?:to|through|thru|until|till)\b|[-\u2013\u2014]", re.I)
_DEADLINE = re.compile(r"\b(by|before|until|till)\s+(?:the\s+)?(?:(end|start|middle)\s+of\s+)?"
                       r"((?:mid|early|late)[- ])?(?:\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?)?$",
                       re.I)
_DATE = re.compile(rf"\b(?:by|before|until|in|during|for)\s+(?:the\s+)?(?:end\s+of\s+)?"
                   rf"((?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTHS})|"
                   rf"(?:{_MONTHS})(?:\s+\d{{1,2}}\b)?)\b", re.I)
# "(1 April 2027 to 30 April 2027)": the dates the intake writes after a campaign's goal.
_RANGE = re.compile(rf"\(\s*[^)]*?\bto\s+(\d{{1,2}}\s+(?:{_MONTHS}))\b[^)]*\)", re.I)


def _months_at(goal: str) -> list[tuple[int, int, str]]:
    """(start, end, month's full name) for each month the goal names, in its order."""
    out = []
    for m in _MONTH.finditer(goal):
        if m.group(3) and not (_MAY_BEFORE.search(goal[:m.start()])
                               or _MAY_AFTER.match(goal[m.end():])):
            continue
        word = (m.group(1) or m.group(2) or m.group(3)).lower()[:3]
        out.append((m.start(), m.end(), next(x for x in MONTHS if x.lower()[:3] == word)))
    return out


def goal_months(goal: str) -> list[str]:
    """Every month the goal names ("May and June", "june to august", "september + october",
    "by end of April"), full names, in the goal's order, each once."""
    return list(dict.fromkeys(name for _, _, name in _months_at(goal)))


def goal_window(goal: str) -> str | None:
    """The goal's dates as a phrase a brief can carry: "in October", "in May and June",
    "from June to August", "by the end of April", "by 15 March" (None: no month named)."""
    found = _months_at(goal)
    names = list(dict.fromkeys(name for _, _, name in found))
    if not names:
        return None
    first, last = found[0], found[-1]
    if len(names) == 1:
        lead = _DEADLINE.search(goal[:first[0]])
        if lead:
            day = re.search(r"(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?$", goal[:first[0]])
            day_after = re.match(r"\s+(\d{1,2})\b", goal[first[1]:])
            when = (f"{day.group(1)} " if day else "") + names[0] + (
                f" {day_after.group(1)}" if day_after else "")
            part = f"the {lead.group(2).lower()} of " if lead.group(2) else ""
            part += (lead.group(3) or "").lower()
            return f"{lead.group(1).lower()} {part}{when}"
        return f"in {names[0]}"
    if _RANGE_WORD.search(goal[first[1]:last[0]]):
        return f"from {names[0]} to {names[-1]}"
    return "in " + ", ".join(names[:-1]) + f" and {names[-1]}"


_SPAN_NUMBERS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())} | {"a": 1}
_N = r"(\d{1,2}|" + "|".join(_SPAN_NUMBERS) + r")"
# "within 3 months", "over the next six weeks", "a 6-week push", "this quarter".
_SPAN = re.compile(rf"\b(?:within|over|in|for|during|across|inside)\s+(?:the\s+)?(?:next\s+|"
                   rf"first\s+|coming\s+)?{_N}\s+(weeks?|months?)\b|\b{_N}[\s-](week|month)s?"
                   rf"[\s-](?:[a-z]+\s)?(?:campaign|push|run|sprint|drive|programme|program|"
                   rf"launch|window|sale|promotion|promo|teaser|series)\b", re.I)
_QUARTER = re.compile(r"\b(?:this|next|the|a|one)\s+quarter\b|\bin\s+q[1-4]\b", re.I)
WEEKS_PER_MONTH = 52 / 12
DEFAULT_WEEKS = 5
"""A campaign's length when its goal gives none: a week to reach creators, one to agree terms,
two of posts, one to count the results."""


def goal_weeks(goal: str, today: date | None = None) -> int | None:
    """How many weeks the goal gives the campaign ("within 3 months" -> 13, "over six weeks"
    -> 6, "in the next 90 days" -> 13, "this quarter" -> 13), else the weeks from `today` (the
    campaign's first day; default the real today) to the date it names ("by the end of
    January", "by 15 March", "before Christmas"); None when it says neither."""
    if (span := explicit_span(goal)) is not None:
        return span or None
    return deadline_weeks(goal, today or date.today())


def explicit_span(goal: str) -> int | None:
    """The length the goal gives in weeks, months, days or quarters (0: a span of none)."""
    if m := _SPAN.search(goal):
        count, unit = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        n = int(count) if count.isdigit() else _SPAN_NUMBERS[count.lower()]
        weeks = n * WEEKS_PER_MONTH if unit.lower().startswith("month") else n
        return max(1, min(52, round(weeks))) if n else 0
    if (days := span_days_weeks(goal)) is not None:
        return days
    if _QUARTER.search(goal):
        return 13
    return None


def goal_date(goal: str) -> str | None:
    """The date the goal names ("by 15 March" -> "15 March", "in May" -> "May"; the end of
    the campaign's dates when it gives them)."""
    m = _RANGE.search(goal) or _DATE.search(goal)
    if m:
        return m.group(1)
    months = goal_months(goal)
    return months[-1] if months else None


class Target(NamedTuple):
    """A number the goal counts."""
    number: str
    """As written: "1,000", "15%", "$5,000", "50k"."""
    value: str
    """Without separators or units, as engine.checks.terms.numbers writes it: "1000", "15"."""
    phrase: str
    """The number with what it counts: "400 lattes sold through creator codes"."""


# A count or an amount ("400", "15%", "50k", "$5,000": money.SYMBOL and money.NUMBER, the
# amounts every campaign reader shares).
_NUMBER = re.compile(rf"(?<![\w.,/-])((?:{SYMBOL})\s?)?({NUMBER})"
                     r"(k\b|%|\s?percent\b)?\+?(?![\w-]*\d)", re.I)
_TEAM = re.compile(r"(?:[\w'-]+\s+){0,2}(?:creators?|(?:micro-?)?influencers?|bloggers?|"
                   r"ambassadors?|instagrammers?|tiktokers?|youtubers?|vloggers?)\b", re.I)
# A count's noun does not start with these ("120 to 200", "2 of them", "3 in local search").
_NO_NOUN = {"to", "of", "in", "and", "or", "than", "per", "a", "an", "the", "is", "are", "+"}
# What follows a number that says it is no count: a date, a duration, the team it is done with.
_NOT_COUNTED = re.compile(
    rf"^(?:st|nd|rd|th|-[a-z]|[:.]\d|\s*(?:am|pm)\b|\s+(?:of\s+)?(?:{_MONTHS})\b|\s+(?:of\s+)?"
    r"(?:them|us|those|these)\b|\s+(?:creators?|influencers?|bloggers?|ambassadors?|"
    r"(?:calendar\s+)?(?:days?|weeks?|months?|years?|hours?|minutes?|mins?|hrs?|"
    r"weekends?|nights?)|yo|y/o|years?\s+old)\b)", re.I)
# Words that end what a count counts ("350 sales in December", "80 regulars by April").
_COUNT_END = re.compile(
    r"\s(?:(?:by|before|until|till|during|from|at|this|next|within|over|among|across|with|so|"
    r"while|when|after|for|on|per|each|every|via)\b|and\s+(?=[$\u20ac\u00a3]?\d)|"
    rf"in\s+(?=the\b|\d|(?:{_MONTHS})\b|q\d\b|time\b))|\s[-\u2013\u2014]\s|[,.;:!?()\n]",
    re.I)
_TARGET_LEAD = re.compile(r"\b(?:goal|target|aim(?:\s+for)?|reach|hit|get|sell|want|to|at least)"
                          r"\W*$", re.I)
# A number right after a name inside the sentence is part of that name ("Tempo 3 trainers",
# "mineral SPF 30", "No. 7 balm"); a capital at the start of a sentence is no name.
_NAME_BEFORE = re.compile(r"(?<=[a-z0-9,] )[A-Z][\w'-]*\s*$|(?:^|\s)(?i:no\.?|nr\.?|#)\s*$")


# "from 40 to 120", "from 40 regulars to 150": a starting count (group 1: what it counts).
_FROM = re.compile(r"\bfrom\s*$", re.I)
_FROM_TO = re.compile(r"^\s+(?:([a-z][\w'-]*(?:\s+[a-z][\w'-]*)?)\s+)?to\s+[$\u20ac\u00a3]?\d",
                      re.I)
# "2000 pre-orders" counts; "in 2026" is a year.
_PLURAL_AFTER = re.compile(r"^\s+[a-z][\w'-]*s\b", re.I)


# Words a cut phrase does not end on ("400 loaves a week of our new" reads as broken).
_DANGLING = {"of", "our", "the", "a", "an", "new", "and", "or", "to", "for", "with", "their",
             "its", "your", "at", "in", "on", "per", "latest"}


def _short(counted: str, most: int = 10) -> str:
    """What a count counts, at most `most` words, never ending on a word that needs another
    ("400 loaves a week of our new sourdough rye bread", not "... of our new")."""
    words = counted.split()[:most]
    while words and words[-1].lower() in _DANGLING:
        words.pop()
    return " ".join(words)


def goal_targets(goal: str, names: Iterable[str] = ()) -> list[Target]:
    """Every number the goal counts, in its order: "400 lattes sold through creator codes",
    "300 bookings" and "15% conversion to shoe purchase", "1,000 units" and "5,000 site
    visits", "30% of cleanser orders". Not years, days of a month, durations, ages, times of
    day, the number of creators, a number inside a name ("10-class passes") or the product's
    own name ("mineral SPF 30", or one of `names`, the brand's products: "Tempo 3 trainers")."""
    low = goal.lower()
    named = [(at, at + len(n)) for n in [goal_product(goal) or "", *names] if n
             for at in [low.find(n.lower())] if at >= 0]
    out = []
    start = ""  # "from 40 (regulars)" waiting for the number it grows to
    for m in _NUMBER.finditer(goal):
        money, digits, unit = m.group(1), m.group(2), (m.group(3) or "").strip().lower()
        after = goal[m.end():]
        before = goal[:m.start()]
        if any(a <= m.start() < b for a, b in named) or (
                _NAME_BEFORE.search(before) and not _TARGET_LEAD.search(before)):
            continue
        if baseline := _FROM_TO.match(after) if _FROM.search(before) else None:
            # "from 40 to 120 regulars": where the count starts, said with the target it grows
            # to (a brief that drops it loses the goal's own measure of growth).
            start = f"from {goal[m.start():m.end()].strip()}" + (
                f" {baseline.group(1)}" if baseline.group(1) else "")
            continue
        if not (money or unit) and ((re.fullmatch(r"(?:19|20)\d\d", digits)
                                     and not _TARGET_LEAD.search(before)
                                     and not _PLURAL_AFTER.match(after))
                                    or _NOT_COUNTED.match(after)
                                    or re.search(rf"\b(?:{_MONTHS})\s*$", goal[:m.start()], re.I)):
            continue
        end = _COUNT_END.search(after)
        counted = (after[:end.start()] if end else after).strip()
        counted = _short(counted)
        if not (money or unit) and _TEAM.match(counted):
            continue  # "2 local food bloggers": who does the campaign, not what it counts
        if not (money or unit) and counted.split(" ", 1)[0].lower() in _NO_NOUN:
            counted = ""
        if not (money or unit or counted or _TARGET_LEAD.search(goal[:m.start()])):
            continue
        value = digits.replace(",", "")
        if unit == "k":
            value = str(int(float(value) * 1000))
        elif value.endswith(".0"):
            value = value[:-2]
        number = goal[m.start():m.end()].strip()
        phrase = f"{number} {counted}".strip()
        if start:
            phrase, start = f"{start} to {phrase}", ""
        out.append(Target(number, value, phrase))
    return out


def goal_product(goal: str) -> str | None:
    """The product or offer the goal names, if it names one."""
    for pattern in _GOAL_PRODUCT:
        m = pattern.search(goal)
        if not m:
            continue
        rest = m.group(1)
        cut = _GOAL_PRODUCT_END.search(rest)
        phrase = (rest[:cut.start()] if cut else rest).strip(" -")
        if _FILLED.match(m.group(0)):  # "fill the weekend brunch tables": the brunch is sold
            phrase = _SEATS.sub("", phrase) or phrase
        if 2 <= len(phrase) <= 60 and len(phrase.split()) <= 6 and not re.match(
                r"^(?:us|more|people|customers|clients|members|followers|subscribers|users|"
                r"sales|awareness|visits?)\b", phrase, re.I):
            # "Barrier repair cream launch": a capital that only opens the goal is no name's.
            opens = not goal[:m.start(1)].strip(" -:'\"") or re.fullmatch(
                r"\W*(?:a|our|the|new|a new|our new|the new)\s*", goal[:m.start(1)], re.I)
            if opens and phrase[1:2].islower():
                phrase = phrase[:1].lower() + phrase[1:]
            return phrase
    return None
