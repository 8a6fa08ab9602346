"""What a campaign's goal says, read from its own words: the product or offer it promotes,
the date it names, the number it counts. The drafters (offline backend) write from these and
the campaign checks hold every backend's drafts to them, so both read the goal the same way."""

from __future__ import annotations

import re

# What the goal promotes: "launch our oat-milk cold brew", "get people to try our night cream",
# "bring families in for the Saturday pancake brunch". The phrase ends where the goal goes on.
_GOAL_PRODUCT = [re.compile(p, re.I) for p in (
    r"\b(?:launch|introduce|promote|unveil|debut|release|showcase|feature)\s+"
    r"(?:our|the|a|an|its|their)?\s*(?:new\s+|latest\s+)?(.+)",
    r"\b(?:sell(?:ing)?\s+more(?:\s+of)?|try|trying|order|book)\s+(?:our|the)\s+(?:new\s+)?(.+)",
    r"\b(?:fill|sell|pre-sell|book out)\s+(?:\d[\d,]*\s+)?(?:of\s+)?(?:our|the)?\s*(?:new\s+)?"
    r"(?!more\b)(.+)",
    r"\bfor\s+(?:our|the)\s+(?:new\s+)?(.+)",
)]
_GOAL_PRODUCT_END = re.compile(
    r"\s+(?:to|for|this|next|among|in|at|with|by|during|before|after|across|so|and|that|"
    r"which|who|from|on|as|around)\b|[,.;:!?()\n]", re.I)
_MONTHS = ("january|february|march|april|may|june|july|august|september|october|november|"
           "december")
_DATE = re.compile(rf"\b(?:by|before|until|in|during|for)\s+((?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)?"
                   rf"\s+(?:of\s+)?(?:{_MONTHS})|(?:{_MONTHS})(?:\s+\d{{1,2}})?)\b", re.I)
# The counted thing may itself hold a number ("80 new 10-class passes"); the count may be
# written "50k".
_TARGET = re.compile(r"\b(\d[\d,]*k?)\s+((?:[a-z0-9][\w'-]*\s+){0,3}?(?:\d+-)?[a-z][\w'-]*)"
                     r"(?=\s+(?:by|before|until|in|for|from|at|this|next|during)\b|\s*[,.;(]|$)",
                     re.I)


# "(1 April 2027 to 30 April 2027)": the dates the intake writes after a campaign's goal.
_RANGE = re.compile(rf"\(\s*[^)]*?\bto\s+(\d{{1,2}}\s+(?:{_MONTHS}))\b[^)]*\)", re.I)


def goal_date(goal: str) -> str | None:
    """The date the goal names ("by 15 March" -> "15 March", "in May" -> "May"; the end of
    the campaign's dates when it gives them)."""
    m = _RANGE.search(goal) or _DATE.search(goal)
    return m.group(1) if m else None


def goal_target(goal: str) -> str | None:
    """The goal's own number with what it counts ("300 sign-ups", "500 holiday gift sets")."""
    for m in _TARGET.finditer(goal):
        if not re.fullmatch(r"(?:19|20)\d\d", m.group(1)) and not re.match(
                rf"(?:{_MONTHS})\b", m.group(2), re.I):
            return f"{m.group(1)} {m.group(2)}"
    return None


def goal_product(goal: str) -> str | None:
    """The product or offer the goal names, if it names one."""
    for pattern in _GOAL_PRODUCT:
        m = pattern.search(goal)
        if not m:
            continue
        rest = m.group(1)
        cut = _GOAL_PRODUCT_END.search(rest)
        phrase = (rest[:cut.start()] if cut else rest).strip(" -")
        if 2 <= len(phrase) <= 60 and len(phrase.split()) <= 6 and not re.match(
                r"^(?:us|more|people|customers|sales|awareness|visits?)\b", phrase, re.I):
            return phrase
    return None
