"""What a protocol request asks for, read from the clinician's words: the technique it names,
the feared situation of an exposure request, the event a person ruminates about, and
whether it is about urges to self-harm. The drafter builds its steps from these, so an
exposure ladder for elevators has elevators on its rungs.

Every phrase taken from the request passes the same filter as any echoed user text
(common._safe_fragment: no instructions to the model, no medication or method talk,
nothing the safety screen objects to)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any

from engine.checks import crisis
from engine.llm.offline.protocol import library as lib
from engine.llm.offline.protocol.common import (
    _Context,
    _profile,
    _safe_fragment,
    _to_second_person,
    choose_exercise,
    named_technique,
    situation_from_intent,
)


@dataclass(frozen=True)
class Request:
    technique: str | None = None
    """The exercise type the request names ("graded exposure", "worry time")."""
    feared: str | None = None
    """What the person fears or avoids ("elevators", "driving on the motorway")."""
    event: str | None = None
    """What the person keeps going over ("the argument with my sister")."""
    urges: bool = False
    """The request is about urges to self-harm: the steps delay the urge, with a safety plan."""


# A phrase ends where the request goes on about something else.
_CLAUSE_END = re.compile(
    r"\s+(?:since|after|before|because|when|whenever|while|with an?|using|so that|so|who|"
    r"which|that|at work|in my head|in his head|in her head|all the time|every day|"
    r"again and again|over and over|last \w+|this \w+|for (?:a|an|the|my|his|her|their)\b)"
    r"\b|[,.;:!?()\n]", re.I)
_FEARED = [re.compile(p, re.I) for p in (
    r"\b(?:afraid|scared|terrified|frightened|fearful|phobic|nervous)\s+(?:of|about)\s+(.+)",
    r"\bfears?\s+(?:of|about)\s+(.+)",
    r"\bphobia\s+(?:of|about)\s+(.+)",
    r"\b(?:panic(?:s|king|ky)?|anxiety|anxious)(?:\s+attacks?)?\s+(?:in|at|on|around|near|"
    r"inside|during)\s+(.+)",
    r"\b(?:exposure|exposing\s+\w+|expose\s+\w+)\s+(?:to|around|for|with)\s+(?!a fear\b)(.+)",
    r"\bavoid(?:s|ing|ance of)?\s+(.+)",
)]
_EVENT = [re.compile(p, re.I) for p in (
    r"\b(?:ruminat\w*|brood\w*|dwell\w*|obsess\w*|fixat\w*)\s+(?:about|over|on)\s+(.+)",
    r"\b(?:going|go|goes|keep going)\s+over\s+(.+)",
    r"\breplay\w*\s+(.+)",
    r"\b(?:stop|can't stop|cannot stop|can not stop)\s+thinking\s+about\s+(.+)",
)]
_URGES = re.compile(
    r"\b(self[- ]?harm\w*|self[- ]?injur\w*|hurt(?:s|ing)?\s+(?:my|him|her|them|your)sel(?:f|ves)|"
    r"urges?\s+to\s+(?:self|hurt|harm|cut|injure)|cutting|non-suicidal)", re.I)
_LEADING = re.compile(r"^(?:the\s+(?=fear\b)|fear\s+of\s+|being\s+in\s+(?=an?\b))", re.I)


def _phrase(text: str) -> str | None:
    """The start of `text` up to where its clause ends, fit to echo in second person."""
    cut = _CLAUSE_END.search(text)
    phrase = (text[:cut.start()] if cut else text).strip()
    phrase = _LEADING.sub("", phrase).strip()
    if len(phrase) < 3 or len(phrase.split()) > 8:
        return None
    safe = _safe_fragment(phrase, max_words=8)
    return _to_second_person(safe) if safe else None


# "Scared of losing my job" fears an outcome, not a situation to approach step by step.
_OUTCOME = re.compile(r"^(?:losing|failing|being|getting|not|dying|going|having|making|what)\b",
                      re.I)


def _first(patterns: list[re.Pattern[str]], text: str, *, situations: bool = False) -> str | None:
    for pattern in patterns:
        for m in pattern.finditer(text):
            phrase = _phrase(m.group(1))
            if phrase and not (situations and _OUTCOME.match(phrase)):
                return phrase
    return None


def read_request(intent: str) -> Request:
    return Request(technique=named_technique(intent),
                   feared=_first(_FEARED, intent, situations=True),
                   event=_first(_EVENT, intent), urges=bool(_URGES.search(intent)))


def _context(data: dict[str, Any]) -> _Context:
    intent = str(data.get("intent") or "")
    audience = str(data.get("audience") or "adults")
    requested = data.get("exercise_type")
    asked = read_request(intent)
    exercise = requested if requested in lib.TEMPLATES else choose_exercise(intent)
    rumination = lib.SITUATIONS["rumination"]
    if asked.event and requested not in lib.TEMPLATES and not asked.technique \
            and exercise not in rumination["for"]:
        exercise = rumination["default_exercise"]  # "brooding about ..." is no fear to face
    profile = _profile(audience)
    region = crisis.region_of(data).code  # the run's, else one the request names, else US
    label = profile["label"]
    if profile is lib.AUDIENCES[-1]:
        custom = _safe_fragment(audience, max_words=6)
        if custom and custom.lower() not in ("adults", "adult", "general", "everyone", "all"):
            label = custom
    seed_text = f"{' '.join(intent.split())}|{' '.join(audience.split())}|{exercise}"
    seed = int(hashlib.sha256(seed_text.encode("utf-8")).hexdigest()[:8], 16)
    return _Context(intent, audience, exercise, profile, region,
                    situation_from_intent(intent), label, seed, feared=asked.feared,
                    event=asked.event, urges=asked.urges)
