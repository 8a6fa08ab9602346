"""What a protocol request names, read from the clinician's words: the feared thing of an
exposure request, the event a person ruminates about, whether it is about urges to self-harm,
and what the person gave up. intent.py builds the drafter's context from these.

Every phrase taken from the request passes the same filter as any echoed user text
(common._safe_fragment)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.llm.offline.protocol import library as lib
from engine.llm.offline.protocol.common import (
    _safe_fragment,
    _to_second_person,
    named_technique,
    third_to_second,
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
    activity: str | None = None
    """What the person used to enjoy or has given up ("gardening", "going to her choir"): what
    behavioural activation builds back towards."""


# A phrase ends where the request goes on about something else.
CLAUSE_END = re.compile(
    r"\s+(?:since|after|before|because|when|whenever|while|with an?|using|so that|so|who|"
    r"which|that|at work|in my head|in his head|in her head|all the time|every day|"
    r"again and again|over and over|again|last \w+|this \w+|instead of|and then|"
    r"all (?:evening|night|day|morning|week|weekend)|"
    r"for (?:a|an|the|my|his|her|their|someone|somebody|people|anyone)\b|where|please|pls|"
    r"(?:in|for|over)\s+(?:\d+|a|an|the last|several|many|a few)\s+(?:\w+\s+)?(?:yrs?|years?|"
    r"months?|weeks?|days?)|(?:in|for)\s+(?:weeks|months|years|ages|days)\b|"
    r"and (?:hasn't|hasnt|haven't|isn't|doesn't|didn't|wasn't|"
    r"what|whether|how|why|has|have|had|is|was|gets?|got|can|can't|won't|avoids?|"
    r"stopped|hides?|panics?|freezes?|feels?|wants?|needs?|now|she|he|they|you|i|we)\b)"
    r"\b|\s[-\u2013\u2014]\s|[\u2013\u2014]|[,.;:!?()\n]", re.I)
_FEARED = [re.compile(p, re.I) for p in (
    # What the ladder is for, when the request says so, comes before what else it mentions.
    # Not a person ("for a retired engineer", "for Dana") nor the ladder's own parts.
    r"\b(?:hierarchy|ladder|exposure)(?:\s+(?:steps|plan|work|exercises?|tasks|practice|ladder|"
    r"hierarchy))?\s+(?:for|around|about|on|leading up to|aimed at|targeting|focused on|"
    r"building up to|working up to|towards?)\s+(?!an?\s)(?!(?-i:[A-Z]))(?!a fear\b)"
    r"(?!(?:someone|somebody|anyone|people|my client|clients?|patients?|pt)\b)"
    r"(?!(?:small |tiny |gradual |graded )?(?:steps|rungs|stages|exercises|tasks)\b)"
    r"(?!(?:[\w-]+\s+)?(?:anxiety|phobia|fears?|panic)\b)(.+)",
    r"\bfears\s+(?!(?:of|about|that|for|it|this)\b)(.+)",
    r"\bexposure\s+to\s+(?!a fear\b)(.+)",
    r"\b(?:exposure|hierarchy|ladder)\s*:\s*(.+)",
    r"\b(?:hides?|freezes?|shakes?|panics?)\s+(?:whenever|when|if)\s+there\s+(?:is|are|'s)\s+(.+)",
    r"\b(?:drive|driving|walk|walking|ride|riding|cross|crossing)\s+"
    r"(?:through|across|into|onto|in)\s+(.+)",
    r"\b(?:afraid|scared|terrified|frightened|fearful|phobic|nervous)\s+(?:of|about)\s+(.+)",
    r"\bfears?\s+(?:of|about)\s+(.+)",
    r"\b(?:faints?|fainting|passes out|panics?|freaks? out)\s+at\s+the\s+"
    r"(?:sight|thought|sound|smell)\s+of\s+(.+)",
    r"\bphobia\s+(?:of|about)\s+(.+)",
    r"\b(?:freezes?|panics?|shakes?|blanks?|clams?\s+up)\s+(?:whenever|when|if)\s+(?:she|he|they|i|you)\s+"
    r"(?:has|have|needs?|is asked|are asked|must)\s+to\s+(?P<act>.+)",  # an act: "speaking up"
    r"\b(?:exposure|exposing\s+\w+|expose\s+\w+)\s+(?:to|around|with)\s+(?!a fear\b)(.+)",
    # "exposure for a bank clerk who ...", "for Dana": the person, not what they fear
    r"\b(?:exposure|exposing\s+\w+|expose\s+\w+)\s+for\s+(?!an?\s)(?!(?-i:[A-Z]))(.+)",
    r"\bavoid(?:s|ing|ance of)?\s+(.+)",
    r"\b(?:can't|cannot|can not|cant)\s+(?:bear|stand|face)\s+"
    r"(?!(?:it|this|that|the thought)\b)(.+)",
    # Avoiding a thing outright says more than where a panic once happened.
    r"\b(?:hasn't|has not|haven't|have not|hasnt|havent|can't|cant|cannot|won't|wont|doesn't|"
    r"doesnt|does not|didn't|didnt|never)\s+"
    r"(?:been\s+able\s+to\s+)?(?:taken|take|used|use|gone|go|been|ridden|ride|driven|drive|"
    r"entered|enter|visited|visit|seen|see|flown|fly|touched|touch|stepped|step|set foot|sit|sat|"
    r"open|"
    r"opened|hold|held|stand|swim|climb|climbed|board|boarded|walk|walked|pet|stroke|answer|"
    r"pick up|look at)\s+"
    r"(?:into|inside|onto|on|in|to|near|through)?\s*(.+)",
    r"\b(?:panic(?:s|king|ky)?|anxiety|anxious)(?:\s+attacks?)?\s+(?:in|at|on|around|near|"
    r"inside|during)\s+(.+)",
)]
_EVENT = [re.compile(p, re.I) for p in (
    r"\b(?:ruminat\w*|brood\w*|dwell\w*|obsess\w*|fixat\w*)"
    r"(?:\s+[\w-]+){0,3}?\s+(?:about|over|on)\s+(.+)",
    r"\b(?:can't|cannot|can not|unable to|won't|doesn't|does not)\s+let\s+go\s+of\s+(.+)",
    r"\b(?:round and round|in circles)\s+(?:about|over|on)\s+(.+)",
    r"\b(?:going|go|goes|keep going)\s+(?:back\s+)?over\s+(.+)",
    r"\breplay\w*\s+(.+)",
    r"\b(?:stop|can't stop|cannot stop|can not stop)\s+thinking\s+about\s+(.+)",
)]
URGES = re.compile(
    r"\b(self[- ]?harm\w*|self[- ]?injur\w*|hurt(?:s|ing)?\s+(?:my|him|her|them|your)sel(?:f|ves)|"
    r"urges?\s+to\s+(?:\w+\s+){0,2}?(?:self|hurt|harm|cut|injure|hit|punch|bang|scratch|burn|"
    r"bite|pick)|cutting|non-suicidal|"
    r"(?:hit|bang|punch)(?:s|ting|ing)?\s+(?:my|his|her|their|your)\s+head|punch(?:es|ing)?\s+walls?|"
    r"(?:cut|burn|scratch|hit|punch|bite|bit)(?:s|es|ing)?\s+(?:my|him|her|them|your)sel(?:f|ves)|"
    r"(?:cut|burn|scratch)(?:s|es|ing)?\s+(?:my|his|her|their|your)\s+"
    r"(?:arms?|legs?|wrists?|thighs?|skin|stomach))", re.I)
_LEADING = re.compile(r"^(?:the\s+(?=fear\b)|fear\s+of\s+|being\s+in\s+(?=an?\b))", re.I)


_TRAILING = re.compile(r"\s+(?:exposure|ladder|hierarchy|plan|steps|exercise|work)$", re.I)
_LAST_PLACE = re.compile(r"\s+(?:at|in|on|during|with|from|about|near)\s+(?!.*\s(?:at|in|on|during|"
                         r"with|from|about|near)\s)", re.I)


def phrase_of(text: str) -> str | None:
    """The start of `text` up to where its clause ends, fit to echo in second person."""
    cut = CLAUSE_END.search(text)
    phrase = (text[:cut.start()] if cut else text).strip()
    phrase = _LEADING.sub("", phrase).strip()
    phrase = _TRAILING.sub("", phrase)  # "fear of flying exposure": flying
    while len(phrase.split()) > 10 and (m := _LAST_PLACE.search(phrase)) and m.start() > 0:
        phrase = phrase[:m.start()]  # "the fight she had with her best friend [at the party]"
    if len(phrase) < 3 or len(phrase.split()) > 10:
        return None
    safe = _safe_fragment(phrase, max_words=10)
    return third_to_second(_to_second_person(safe)) if safe else None


# "Scared of losing my job" fears an outcome, not a situation to approach step by step.
OUTCOME = re.compile(r"^(?:losing|failing|being|getting|not|dying|going|having|making|what)\b",
                      re.I)
# "exposure for a 30 year old", "hierarchy for social anxiety": a person or a condition, not a
# situation to approach.
_NOT_SITUATION = re.compile(
    r"^(?-i:[A-Z][a-z]+)\s+[a-z]+s\b|"  # "Jonas avoids stairs": a person doing something
    r"^(?:(?:an?|the|my|our|this|her|his|their)\s+)?(?:(?:\d+\s*(?:-?\s*years?[- ]old|yo|y/o)\b)|"
    r"(?:[\w-]+\s+){0,2}?(?:client|patient|man|woman|teen|teenager|kid|child|boy|girl|student|"
    r"mum|mom|dad|person|guy|lady|adult|retiree|widow|widower)s?\b)|"
    r"(?:[\w-]+\s+)?(?:anxiety|phobia|fears?|panic|ocd|disorder|worries|worry)$|"
    r"\w*phobi\w*$|(?:anything|everything|something|it|them|this|that|these|those|"
    r"all of (?:it|this|that|them)|all that)\b|(?:your|her|his|my|their)\s+(?:sisters?|brothers?|"
    r"mum|mom|mother|dad|father|sons?|daughters?|wife|husband|partner|friends?|boss|family|kids?|"
    r"children|parents?)\b", re.I)


def _gerund(verb: str) -> str:
    """ "speak" -> "speaking", "give" -> "giving", "sit" -> "sitting", "lie" -> "lying"."""
    low = verb.lower()
    if low.endswith("ing"):
        return verb
    if low.endswith("ie"):
        return verb[:-2] + "ying"
    if low.endswith("e") and not low.endswith(("ee", "ye", "oe")):
        return verb[:-1] + "ing"
    if re.fullmatch(r"[^aeiou]*[aeiou][^aeiouwxy]", low) and len(low) <= 4:
        return verb + verb[-1] + "ing"  # one short syllable doubles its last letter
    return verb + "ing"


def _first(patterns: list[re.Pattern[str]], text: str, *, situations: bool = False) -> str | None:
    for pattern in patterns:
        for m in pattern.finditer(text):
            phrase = phrase_of(m.group(1))
            if phrase and "act" in pattern.groupindex:
                verb, _, rest = phrase.partition(" ")
                phrase = f"{_gerund(verb)} {rest}".strip()
            if phrase and not (situations and (OUTCOME.match(phrase)
                                               or _NOT_SITUATION.match(phrase))):
                return phrase
    return None


def _earliest(patterns: list[re.Pattern[str]], text: str) -> str | None:
    """The phrase of the match that starts first in `text` ("replaying the interview, going
    over every answer" is about the interview); "replaying it daily" names no event."""
    found = sorted((m.start(), m.group(1)) for p in patterns for m in p.finditer(text))
    return next((phrase for _, g in found if (phrase := phrase_of(g))
                 and not re.match(r"(?:it|this|that|them|everything|all of it)\b", phrase, re.I)),
                None)


_FEAR_CUE = re.compile(r"\b(?:fear\w*|afraid|scared|terrified|frightened|phobi\w*|\w+phobi\w*|"
                       r"faints?\s+at|"
                       r"avoid\w*|panic\w*|anxious|exposure|hierarch\w*|ladder)", re.I)
# "needle phobia", "hospital avoidance": the word before names the feared thing.
_KIND_OF_FEAR = re.compile(r"\b([a-z][a-z-]{2,})\s+(phobia|avoidance|fear)\b", re.I)


_NOT_A_THING = frozenset(("social", "the", "a", "an", "my", "her", "his", "their", "your", "our",
                          "with", "of", "for", "and", "or", "no", "any", "this", "that", "some",
                          "specific", "simple", "severe", "extreme", "intense", "mild",
                          "experiential", "avoidant", "safety", "behaviour", "behavior",
                          "irrational", "biggest", "worst", "main", "big", "huge", "real",
                          "deep", "general", "common", "old", "new", "same", "own", "whose",
                          "childhood", "lifelong", "longstanding", "long-standing",
                          "intrusive", "overwhelming", "such", "these", "those", "its",
                          "unfounded", "underlying", "core", "primary", "greatest"))


def _kind_of_fear(intent: str) -> tuple[str, str] | None:
    """ "needle phobia" -> ("needles", "phobia"): the thing (as a plural) and the word that
    names the fear."""
    m = _KIND_OF_FEAR.search(intent)
    if not m:
        return None
    word = m.group(1).lower()
    if word in _NOT_A_THING or not _safe_fragment(word, max_words=1):
        return None
    if word.endswith(("al", "ic")):  # "dental phobia": the noun the request uses, if it does
        noun = re.search(rf"\b{word[:4]}\w*", intent[m.end():], re.I)
        return (noun.group(0).lower(), m.group(2).lower()) if noun else None
    return (word if word.endswith(("s", "ing")) else word + "s"), m.group(2).lower()


_INTEROCEPTIVE = re.compile(r"\binteroceptive\b|\bbring(?:ing)? on\b|\binduc\w+", re.I)


def _feared(intent: str) -> str | None:
    # "needle phobia" names the thing outright; "contamination fear: won't touch door handles"
    # names a kind of fear, and what it avoids is the thing to approach.
    kind = _kind_of_fear(intent)
    if kind and kind[1] != "fear":
        return kind[0]
    if thing := next((t for pattern, t in lib.PHOBIA_THINGS if re.search(pattern, intent, re.I)),
                     None):
        return thing  # "emetophobia" names the thing too
    phrase = _first(_FEARED, intent, situations=True)
    if _INTEROCEPTIVE.search(intent) and (sensed := next(
            (p for p, _ in lib.SENSATIONS if re.search(p, intent, re.I)), None)):
        # Interoceptive exposure approaches the sensation, not the stairs avoided because of
        # it; in the request's own words when the phrase read has them ("your heart racing").
        if phrase and re.search(sensed, phrase, re.I):
            return phrase
        return dict(lib.SENSATIONS)[sensed]
    low = intent.lower()
    if not _FEAR_CUE.search(low) or URGES.search(intent):
        return phrase or (kind[0] if kind else None)  # a breathing exercise for a bus driver
    return phrase or (kind[0] if kind else None) or next(
        (thing for pattern, thing in lib.FEARED_THINGS if re.search(pattern, low)), None)


_ACTIVITY = [re.compile(p, re.I) for p in (
    r"\bused\s+to\s+(?:love|enjoy|like|adore)\s+(.+)",
    r"\b(?:stopped|gave up|has given up|quit|dropped|no longer goes to|misses|abandoned)\s+"
    r"(?!(?:eating|sleeping|taking|working)\b)(.+)",
    r"\bused\s+to\s+(?!be\b|have\b|feel\b|think\b|worry\b)(.+)",
)]


def read_request(intent: str) -> Request:
    return Request(technique=named_technique(intent), feared=_feared(intent),
                   event=_earliest(_EVENT, intent), urges=bool(URGES.search(intent)),
                   activity=_activities(intent))


def _activities(intent: str) -> str | None:
    """What the person gave up, every one the request lists ("stopped meeting other parents,
    stopped swimming" -> "meeting other parents and swimming")."""
    first = _first(_ACTIVITY, intent)
    if not first:
        return None
    found = [first]
    at = 0
    while (m := _ACTIVITY[1].search(intent, at)) and len(found) < 3:
        phrase = phrase_of(m.group(1))  # each "stopped ..." in turn: the group runs to the end
        if phrase and phrase not in found:
            found.append(phrase)
        at = m.start(1)
    return " and ".join(found) if len(" ".join(found).split()) <= 10 else first
