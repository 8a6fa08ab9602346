"""How many steps a protocol request asks for: "10 steps", "a 6-rung ladder", "no more than 5
steps", "8-10 steps". The check (request_coverage.py), the offline critic's structure score and
the offline drafter read the same range, so a request's own count replaces the usual 4-8."""

from __future__ import annotations

import re

NUMBER_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty".split())}
_N = r"(\d{1,2}|" + "|".join(NUMBER_WORDS) + r")"
_UNIT = r"(?:steps?|rungs?|stages?|levels?)"
# "a 12-step programme" names a kind of recovery group, not a length.
_NOT_A_COUNT = r"(?![\s-]+(?:program|programme|group|meeting|fellowship|recovery|sponsor|work)s?\b)"
_RANGE = re.compile(rf"\b{_N}\s*(?:-|–|to|or)\s*{_N}[\s-]+{_UNIT}\b{_NOT_A_COUNT}", re.I)
_BOUND = re.compile(
    rf"\b(at most|no more than|max(?:imum)?(?: of)?|up to|under|fewer than|less than|"
    rf"at least|min(?:imum)?(?: of)?|no fewer than|more than)\s+{_N}[\s-]+{_UNIT}\b", re.I)
_EXACT = re.compile(rf"\b{_N}[\s-]+{_UNIT}\b{_NOT_A_COUNT}", re.I)
_ABOVE = ("at least", "min", "minimum", "minimum of", "min of", "no fewer than", "more than")
MAX_ASKED = 12
"""The most steps a drafter writes, whatever is asked: a handout of 20 steps is not one a
client works through; the check then reports the gap rather than the drafter padding."""


def _num(token: str) -> int:
    return int(token) if token.isdigit() else NUMBER_WORDS[token.lower()]


def asked_range(request: str) -> tuple[int, int] | None:
    """The (fewest, most) steps the request asks for, or None when it names no count."""
    text = request.replace("\u2011", "-")
    if m := _RANGE.search(text):
        lo, hi = sorted((_num(m.group(1)), _num(m.group(2))))
        return (lo, hi) if hi > 0 else None
    if m := _BOUND.search(text):
        word, n = m.group(1).lower(), _num(m.group(2))
        if word in _ABOVE:
            least = n + (word == "more than")
            return (least, max(least, MAX_ASKED))
        return (1, n - (word in ("under", "fewer than", "less than")))
    if m := _EXACT.search(text):
        n = _num(m.group(1))
        return (n, n) if n > 1 else None  # "one step at a time" is a pace, not a length
    return None


def without_count(request: str) -> str:
    """The request with its count taken out ("fear of dogs, 6 steps" -> "fear of dogs"), so
    what it is about is read without "6 steps" in it."""
    text = request.replace("\u2011", "-")
    for pattern in (_RANGE, _BOUND, _EXACT):
        if (m := pattern.search(text)) and (pattern is not _EXACT or _num(m.group(1)) > 1):
            head = re.sub(r"\s*\b(?:with|in|of|into)\s*$", "", text[:m.start()], flags=re.I)
            text = head + text[m.end():]
            break
    text = re.sub(r"\(\s*\)|\[\s*\]", "", text)  # "(8-10 steps)" leaves no empty brackets
    text = re.sub(r"\s+([,.;:!?])", r"\1", re.sub(r"\s{2,}", " ", text))
    return re.sub(r"(?:^[\s,;:-]+|[\s,;:-]+$)", "", re.sub(r",\s*([,.;:])", r"\1", text))


def target(request: str, default: int) -> int:
    """The number of steps a drafter should write: the request's own count (within reason),
    else `default` clamped into the asked range."""
    asked = asked_range(request)
    if asked is None:
        return default
    lo, hi = asked
    return max(1, min(max(default, lo), hi, MAX_ASKED))


__all__ = ["MAX_ASKED", "asked_range", "target", "without_count"]
