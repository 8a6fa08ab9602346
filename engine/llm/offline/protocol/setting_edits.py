"""Comments that change a setting of the exercise itself rather than add to it: a breathing
pattern ("use a 4-7-8 count instead of the box breathing", "in for 4, out for 8") rewrites the
counts in the breathing steps; "his name is Harold, address him by name" opens the exercise
with the reader's name. Read in feedback.read_feedback, applied in feedback.apply_feedback;
a setting the draft has no place for (no breathing step to recount) is reported as not applied."""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.llm.offline.protocol.doc import _Doc

_COUNTS = re.compile(r"(?<![\d:/.-])(\d{1,2})\s*-\s*(\d{1,2})(?:\s*-\s*(\d{1,2}))?(?![\d:/.-])")
# "in for 4, hold for 7, out for 8": a breathing count in words, whatever else the sentence says
_SPOKEN = re.compile(r"\bin\s+for\s+(\d{1,2})\b.{0,25}?(?:\bhold\s+(?:for\s+)?(\d{1,2})\b"
                     r".{0,25}?)?\bout\s+for\s+(\d{1,2})\b", re.I)
_ABOUT_BREATH = re.compile(r"\b(?:pattern|count|counts|breath\w*|rhythm|ratio|inhale|exhale)\b",
                           re.I)
_NAME_IS = re.compile(r"\b(?:his|her|their|the client's|client's|the patient's)\s+name\s+is\s+"
                      r"((?-i:[A-Z][a-z]+))\b", re.I)
_BY_NAME = re.compile(r"\b(?:address|call|refer to|speak to)\s+(?:him|her|them)\s+by\s+(?:(?:his|"
                      r"her|their)\s+)?(?:first\s+)?name\b|\buse\s+(?:his|her|their)\s+(?:first\s+)?"
                      r"name\b", re.I)
_BREATHE_IN = re.compile(r"\bbreathe\s+in\b.*?\bcount of (\w+)", re.I)
_BREATHE_OUT = re.compile(r"\bbreathe\s+out\b.*?\bcount of (\w+)", re.I)


@dataclass(frozen=True)
class Setting:
    source: str
    """The comment's sentence, quoted back if the setting has no place in the draft."""
    kind: str
    """"breath" (`values`: in, hold or "", out) or "name" (`values`: the name)."""
    values: tuple[str, ...]


def read_settings(sentence: str, context: list[str]) -> list[Setting]:
    out: list[Setting] = []
    if m := _SPOKEN.search(sentence):
        out.append(Setting(sentence, "breath", (m.group(1), m.group(2) or "", m.group(3))))
    elif _ABOUT_BREATH.search(sentence) and not re.search(r"\bsteps?\b", sentence, re.I):
        if m := _COUNTS.search(sentence):
            inhale, hold, exhale = (m.group(1), m.group(2), m.group(3)) if m.group(3) else (
                m.group(1), "", m.group(2))
            out.append(Setting(sentence, "breath", (inhale, hold, exhale)))
    if _BY_NAME.search(sentence):
        said = next((m.group(1) for s in (sentence, *context) if (m := _NAME_IS.search(s))), None)
        if said:
            out.append(Setting(sentence, "name", (said,)))
    return out


def _recount(step: str, pattern: re.Pattern[str], count: str) -> str:
    m = pattern.search(step)
    return step[:m.start(1)] + count + step[m.end(1):] if m else step


def _breath(doc: _Doc, inhale: str, hold: str, exhale: str) -> bool:
    at_in = next((i for i, s in enumerate(doc.steps) if _BREATHE_IN.search(s)), None)
    at_out = next((i for i, s in enumerate(doc.steps) if _BREATHE_OUT.search(s)), None)
    if at_in is None or at_out is None:
        return False
    name = "-".join(x for x in (inhale, hold, exhale) if x)
    if name in doc.all_text():
        return True  # applied by an earlier revision
    step = _recount(doc.steps[at_in], _BREATHE_IN, inhale).rstrip(". ")
    # A gentle pause, never "hold your breath" to strain: the safety screen reads breath-holding
    # to dizziness as a dangerous practice, and so should the reader.
    pause = f", then pause gently for a count of {hold}" if hold else ""
    spoken = f"in for {inhale}, {f'pause for {hold}, ' if hold else ''}out for {exhale}"
    doc.steps[at_in] = f"{step}{pause}. This is the {name} pattern: {spoken}."
    doc.steps[at_out] = _recount(doc.steps[at_out], _BREATHE_OUT, exhale)
    return True


def _name(doc: _Doc, name: str) -> bool:
    if not doc.purpose.startswith(f"{name},"):
        first = doc.purpose[:1].lower() if doc.purpose[:2] != "I " else doc.purpose[:1]
        doc.purpose = f"{name}, {first}{doc.purpose[1:]}".strip(", ")
    return True


def apply_settings(doc: _Doc, settings: list[Setting]) -> list[str]:
    """Make each setting; the sentences of those the draft has no place for."""
    failed = []
    for s in settings:
        done = _breath(doc, *s.values) if s.kind == "breath" else _name(doc, s.values[0])
        if not done:
            failed.append(s.source)
    return failed
