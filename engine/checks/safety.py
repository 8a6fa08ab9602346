"""Deterministic safety screen for protocol text (placeholder rules; see tests)."""

from __future__ import annotations

import re

from engine.checks.base import FlagOut, ScreenResult

_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")
_RULES: list[tuple[str, re.Pattern[str]]] = [
    ("self_harm", re.compile(r"\b(kill yourself|hurt yourself|end your life)\b", re.I)),
    ("medication", re.compile(r"\b(stop|reduce|double|skip) (taking )?your (medication|meds|dose)\b", re.I)),
]


def screen_protocol(text: str) -> ScreenResult:
    flags: list[FlagOut] = []
    for m in _SENTENCE.finditer(text):
        sentence = m.group(0)
        for category, pattern in _RULES:
            if pattern.search(sentence):
                lead = len(sentence) - len(sentence.lstrip())
                s = sentence.strip()
                flags.append(FlagOut(category=category, text=s, start=m.start() + lead,
                                     end=m.start() + lead + len(s)))
                break
    score = max(0.0, 1.0 - 0.5 * len(flags))
    return ScreenResult(safety_score=score, flags=flags)
