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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.checks import crisis, step_count
from engine.llm.offline.protocol import library as lib
from engine.llm.offline.protocol.common import (
    _Context,
    _profile,
    _safe_fragment,
    _to_second_person,
    base_verb,
    choose_exercise,
    named_technique,
    situation_from_intent,
    third_to_second,
)

# The person a request is for ("a widower who", "a single mum whose"): what follows is theirs.
_PERSON = re.compile(r"^.*?\b(?:who|whose|that)\s+(?:is\s+|are\s+|keeps\s+|feels?\s+like\s+)?",
                     re.I)
_FOR_PERSON = re.compile(r"^(?:(?:for|with)\s+)?(?:an?|the)\s+(?:[\w-]+\s+){0,2}?[\w-]+\s+"
                         r"(?=with\b|before\b|after\b|at\b|during\b|in\b)(?:with\s+)?", re.I)
_TECHNIQUE_LEAD = re.compile(
    r"^(?:[\w'-]+\s+){0,3}?(?:record|activation|scheduling|solving|worksheet|routine|hygiene|"
    r"exercise|postponement|time|restructuring|plan|breathing|worries|form|sheet|steps|period|"
    r"log|diary)\s*(?:for|about|on|around|with|regarding|re|to use|to do|to try|:|-)?\s+",
    re.I)
_LEAD_VERB = re.compile(
    r"^(?:(?:stop|quit|keep)\s+\w+ing\s+(?:about|over|on)|(?:frets?|worr(?:y|ies)|thinks?|"
    r"stresses?)\s+(?:about|over)|get\s+going\s+again\s+(?:on|with)|get\s+back\s+to|"
    r"(?:cope|deal)\s+with|manage|face)\s+", re.I)
_QUOTED = re.compile(r"(?:^|\s)[\"'\u2018\u201c](.{6,80}?)[\"'\u2019\u201d](?=[\s.,;:!?]|$)")



_TRIGGER = re.compile(r"\b(?:when|whenever|after|if)\s+(?:(?:she|he|they|i|you)\s+)?(.+)", re.I)


def trigger_of(intent: str) -> str | None:
    """What sets an urge off, in the request's words ("when she feels rejected" -> "when you
    feel rejected"): the last such clause that is not the urge itself."""
    found = None
    for m in _TRIGGER.finditer(intent):
        cut = _CLAUSE_END.search(m.group(1))
        phrase = (m.group(1)[:cut.start()] if cut else m.group(1)).strip()
        if not phrase or len(phrase.split()) > 6 or _URGES.search(phrase) \
                or re.search(r"\b(?:urge|want|hurt|harm)", phrase, re.I):
            continue
        safe = _safe_fragment(phrase, max_words=6)
        if safe:
            word = m.group(0).split()[0].lower()
            pronoun = re.match(r"\s*(she|he|they|i|you)\b", m.group(0)[len(word):], re.I)
            verb = re.sub(r"^(\w+?)s\b", r"\1", safe) if pronoun else safe  # "feels" -> "feel"
            found = f"{word} {'you ' if pronoun else ''}{verb}"
    return third_to_second(found) if found else None


def focus_of(intent: str, asked: Request) -> str | None:
    """What the request is about, to build steps of any technique on: the feared situation or
    the event, a quoted thought, else the request without its technique and its person
    ("a widower who stopped gardening" -> "stopped gardening")."""
    if asked.urges:
        return trigger_of(intent)
    if asked.technique == "graded_exposure" or (not asked.technique and not asked.event
                                                and choose_exercise(intent) == "graded_exposure"):
        return None  # a ladder needs a feared situation; a feared outcome is none
    if asked.activity and "behavioural_activation" in (asked.technique, choose_exercise(intent)):
        return asked.activity
    if asked.feared or asked.event:
        return asked.feared or asked.event
    if m := _QUOTED.search(intent):
        thought = _safe_fragment(m.group(1), max_words=12)
        when = _phrase(intent[m.end():]) if re.match(r"\s+(?:every time|whenever|when|after|"
                                                       r"before|if)\b", intent[m.end():]) else None
        return (f"the thought '{_to_second_person(thought)}'" + (f" {when}" if when else "")
                if thought else None)
    # "Insomnia - 55yo woman lies awake, watches TV in bed": the part that says more; a part
    # that states a belief first ("money worries - thinks one late payment means eviction"),
    # and the next part when one cannot be echoed (each part passes the echo filter alone).
    parts = []
    for raw in re.split(r"\s[-\u2013\u2014]\s|[\u2013\u2014]", intent):
        text = situation_from_intent(raw) or ""
        for _ in range(2):  # "breathing exercise for ..."
            text = _TECHNIQUE_LEAD.sub("", text, count=1).lstrip(" -\u2013\u2014:")
        if text.strip():
            parts.append(text.strip())
    ranked = sorted(parts, key=lambda p: (not _belief_of(p), len(p.split()) < 2))
    return next((f for p in ranked if (f := _part_focus(p))), None)


def _belief_of(text: str) -> str | None:
    """ "thinks one B means she'll fail" (after its person, if any) -> the thought, in second
    person."""
    text = _lead_person(text)
    m = _BELIEF.match(text) or _BELIEF.match(_PERSON.sub("", text, count=1))
    if not m:
        return None
    # The thought keeps its occasion and its reason ("every time a doctor corrects her",
    # "because breastfeeding didn't work"): that is what it is about.
    thought = _safe_fragment(re.split(r"[.;!?]", m.group(1))[0], max_words=14)
    if not thought:
        return None
    # In a belief about oneself, "him" or "her" ending a clause is the person ("his boss hates
    # him"); a pronoun of the other gender is someone else ("... bc she didn't reply").
    thought = re.sub(r"\b(?:him|her|them)\b(?=\s*$|\s+(?:since|when|whenever|after|every|if|"
                     r"at|in|on|bc|because|cos)\b)", "you", thought.strip())
    return _others_kept(thought, text, lambda t: third_to_second(_to_second_person(t)))


_HE = re.compile(r"\b(?:he|him|his|himself)\b", re.I)
_SHE = re.compile(r"\b(?:she|her|hers|herself)\b", re.I)


def _others_kept(thought: str, about: str, convert: Callable[[str], str]) -> str:
    """`convert` (third person -> second) applied to the person's own pronouns only: the first
    gendered pronoun of `about` says whose they are."""
    he, she = _HE.search(about), _SHE.search(about)
    if not he or not she:
        return convert(thought)
    other = _SHE if he.start() < she.start() else _HE
    kept: list[str] = []
    masked = other.sub(lambda m: kept.append(m.group(0)) or f"\x00{len(kept) - 1}\x00", thought)
    return re.sub(r"\x00(\d+)\x00", lambda m: kept[int(m.group(1))], convert(masked))


# "a single mum overwhelmed", "young dad exhausted": how the person is, not what happened.
_STATE = re.compile(r"[a-z]+ed|anxious|tired|low|down|sad|lonely|unwell|ill|sick|busy|stuck|"
                    r"burnt|burned|lost|broke", re.I)


def _part_focus(text: str) -> str | None:
    if thought := _belief_of(text):
        return f"the thought '{thought}'"
    # "single mum overwhelmed, childcare fell through": the person first, then the situation.
    if (m := re.match(r"^([^,]{3,40}),\s+(.+)", text)) and (p := _LEAD_PERSON.match(m.group(1))) \
            and p.end() == len(m.group(1).rstrip()) and _STATE.fullmatch(p.group("verb") or ""):
        text = m.group(2)
    text = _lead_person(text)
    person = _PERSON.match(text)
    text = _PERSON.sub("", text, count=1)
    text = _FOR_PERSON.sub("", text, count=1)
    if person and (m := re.match(r"([a-z]+[^s\W]s)\b", text)):  # "who worries" -> "you worry"
        text = f"you {base_verb(m.group(1))}{text[m.end():]}"
    text = _LEAD_VERB.sub("", text, count=1).strip(" ,.:;")
    text = third_to_second(text)
    if len(text.split()) > FOCUS_WORDS and (cut := _CLAUSE_END.search(text)) \
            and len(text[:cut.start()].split()) > 1:
        text = text[:cut.start()].strip()
    if len(text) < 3 or len(text.split()) > FOCUS_WORDS:
        return None
    return text


FOCUS_WORDS = 12
"""A longer focus does not read as the situation in "Start from your own situation (...)"."""


# "GAD client worries about money" -> "you worry about money"; "client's landlord" -> "your
# landlord"; "new mum believes ..." -> a belief (_BELIEF).
_LEAD_PERSON = re.compile(
    r"^(?:(?:an?|the|my|our|this)\s+)?(?:[\w-]+\s+){0,2}?(?:clients?|patients?|pt|students?|"
    r"person|man|woman|mum|mom|dad|father|mother|teen|teenager|girl|boy|nurse|carer|worker|"
    r"engineer|driver|paramedic|teacher|widow|widower)(?P<own>'s|\u2019s)?\s+(?P<verb>[a-z]+)?",
    re.I)
_BELIEF = re.compile(r"^(?:you\s+)?(?:believes?|thinks?|is convinced|are convinced|convinced|"
                     r"assumes?|expects?|reckons?|is sure|are sure|is certain|are certain|"
                     r"feels? like|tells? (?:her|him|them|your)sel(?:f|ves))\s+(?:that\s+)?(.+)",
                     re.I)


def _lead_person(text: str) -> str:
    m = _LEAD_PERSON.match(text)
    if not m or not m.group("verb"):
        return text
    verb = m.group("verb")
    rest = text[m.end():]
    if m.group("own"):
        return f"your {verb}{rest}"
    if verb.lower() in ("who", "whose", "that", "with", "after", "before", "at", "in"):
        return text  # _PERSON and _FOR_PERSON read these
    if verb.endswith("s") and not verb.endswith("ss"):
        return f"you {base_verb(verb)}{rest}"
    if verb.endswith("ing"):  # "a carer juggling her dad's appointments"
        return f"{verb}{rest}"
    return text


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
_CLAUSE_END = re.compile(
    r"\s+(?:since|after|before|because|when|whenever|while|with an?|using|so that|so|who|"
    r"which|that|at work|in my head|in his head|in her head|all the time|every day|"
    r"again and again|over and over|again|last \w+|this \w+|"
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
    r"\b(?:hierarchy|ladder|exposure)\s+(?:for|around|about|on|leading up to|"
    r"building up to|working up to|towards?)\s+(?!an?\s)(?!(?-i:[A-Z]))(?!a fear\b)"
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
    r"\bphobia\s+(?:of|about)\s+(.+)",
    r"\b(?:panic(?:s|king|ky)?|anxiety|anxious)(?:\s+attacks?)?\s+(?:in|at|on|around|near|"
    r"inside|during)\s+(.+)",
    r"\b(?:exposure|exposing\s+\w+|expose\s+\w+)\s+(?:to|around|with)\s+(?!a fear\b)(.+)",
    # "exposure for a bank clerk who ...", "for Dana": the person, not what they fear
    r"\b(?:exposure|exposing\s+\w+|expose\s+\w+)\s+for\s+(?!an?\s)(?!(?-i:[A-Z]))(.+)",
    r"\bavoid(?:s|ing|ance of)?\s+(.+)",
    r"\b(?:hasn't|has not|haven't|have not|hasnt|can't|cannot|won't|doesn't|does not|never)\s+"
    r"(?:been\s+able\s+to\s+)?(?:taken|take|used|use|gone|go|been|ridden|ride|driven|drive|"
    r"entered|enter|visited|visit|flown|fly|touched|touch|stepped|step|set foot|sit|sat|open|"
    r"opened|hold|held|stand|swim|climb|climbed|board|boarded|walk|walked|pet|stroke|answer|"
    r"pick up|look at)\s+"
    r"(?:into|inside|onto|on|in|to|near|through)?\s*(.+)",
)]
_EVENT = [re.compile(p, re.I) for p in (
    r"\b(?:ruminat\w*|brood\w*|dwell\w*|obsess\w*|fixat\w*)"
    r"(?:\s+[\w-]+){0,3}?\s+(?:about|over|on)\s+(.+)",
    r"\b(?:can't|cannot|can not|unable to|won't|doesn't|does not)\s+let\s+go\s+of\s+(.+)",
    r"\b(?:round and round|in circles)\s+(?:about|over|on)\s+(.+)",
    r"\b(?:going|go|goes|keep going)\s+over\s+(.+)",
    r"\breplay\w*\s+(.+)",
    r"\b(?:stop|can't stop|cannot stop|can not stop)\s+thinking\s+about\s+(.+)",
)]
_URGES = re.compile(
    r"\b(self[- ]?harm\w*|self[- ]?injur\w*|hurt(?:s|ing)?\s+(?:my|him|her|them|your)sel(?:f|ves)|"
    r"urges?\s+to\s+(?:\w+\s+){0,2}?(?:self|hurt|harm|cut|injure|hit|punch|bang|scratch|burn|"
    r"bite|pick)|cutting|non-suicidal|"
    r"(?:cut|burn|scratch|hit|punch|bite|bit)(?:s|es|ing)?\s+(?:my|him|her|them|your)sel(?:f|ves)|"
    r"(?:cut|burn|scratch)(?:s|es|ing)?\s+(?:my|his|her|their|your)\s+"
    r"(?:arms?|legs?|wrists?|thighs?|skin|stomach))", re.I)
_LEADING = re.compile(r"^(?:the\s+(?=fear\b)|fear\s+of\s+|being\s+in\s+(?=an?\b))", re.I)


_LAST_PLACE = re.compile(r"\s+(?:at|in|on|during|with|from|about|near)\s+(?!.*\s(?:at|in|on|during|"
                         r"with|from|about|near)\s)", re.I)


def _phrase(text: str) -> str | None:
    """The start of `text` up to where its clause ends, fit to echo in second person."""
    cut = _CLAUSE_END.search(text)
    phrase = (text[:cut.start()] if cut else text).strip()
    phrase = _LEADING.sub("", phrase).strip()
    while len(phrase.split()) > 10 and (m := _LAST_PLACE.search(phrase)) and m.start() > 0:
        phrase = phrase[:m.start()]  # "the fight she had with her best friend [at the party]"
    if len(phrase) < 3 or len(phrase.split()) > 10:
        return None
    safe = _safe_fragment(phrase, max_words=10)
    return third_to_second(_to_second_person(safe)) if safe else None


# "Scared of losing my job" fears an outcome, not a situation to approach step by step.
_OUTCOME = re.compile(r"^(?:losing|failing|being|getting|not|dying|going|having|making|what)\b",
                      re.I)
# "exposure for a 30 year old", "hierarchy for social anxiety": a person or a condition, not a
# situation to approach.
_NOT_SITUATION = re.compile(
    r"^(?:(?:an?|the|my|our|this|her|his|their)\s+)?(?:(?:\d+\s*(?:-?\s*years?[- ]old|yo|y/o)\b)|"
    r"(?:[\w-]+\s+){0,2}?(?:client|patient|man|woman|teen|teenager|kid|child|boy|girl|student|"
    r"mum|mom|dad|person|guy|lady|adult|retiree|widow|widower)s?\b)|"
    r"(?:[\w-]+\s+)?(?:anxiety|phobia|fears?|panic|ocd|disorder|worries|worry)$", re.I)


def _first(patterns: list[re.Pattern[str]], text: str, *, situations: bool = False) -> str | None:
    for pattern in patterns:
        for m in pattern.finditer(text):
            phrase = _phrase(m.group(1))
            if phrase and not (situations and (_OUTCOME.match(phrase)
                                               or _NOT_SITUATION.match(phrase))):
                return phrase
    return None


def _earliest(patterns: list[re.Pattern[str]], text: str) -> str | None:
    """The phrase of the match that starts first in `text` ("replaying the interview, going
    over every answer" is about the interview)."""
    found = sorted((m.start(), m.group(1)) for p in patterns for m in p.finditer(text))
    return next((phrase for _, g in found if (phrase := _phrase(g))), None)


_FEAR_CUE = re.compile(r"\b(?:fear\w*|afraid|scared|terrified|frightened|phobi\w*|\w+phobi\w*|"
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
    return (word if word.endswith(("s", "ing")) else word + "s"), m.group(2).lower()


def _feared(intent: str) -> str | None:
    # "needle phobia" names the thing outright; "contamination fear: won't touch door handles"
    # names a kind of fear, and what it avoids is the thing to approach.
    kind = _kind_of_fear(intent)
    if kind and kind[1] != "fear":
        return kind[0]
    if phrase := _first(_FEARED, intent, situations=True):
        return phrase
    if kind:
        return kind[0]
    low = intent.lower()
    if not _FEAR_CUE.search(low) or _URGES.search(intent):
        return None  # a breathing exercise for a bus driver fears no buses
    return next((thing for pattern, thing in lib.FEARED_THINGS if re.search(pattern, low)), None)


_ACTIVITY = [re.compile(p, re.I) for p in (
    r"\bused\s+to\s+(?:love|enjoy|like|adore)\s+(.+)",
    r"\b(?:stopped|gave up|has given up|quit|dropped|no longer goes to|misses|abandoned)\s+"
    r"(?!(?:eating|sleeping|taking|working)\b)(.+)",
    r"\bused\s+to\s+(?!be\b|have\b|feel\b|think\b|worry\b)(.+)",
)]


def read_request(intent: str) -> Request:
    return Request(technique=named_technique(intent), feared=_feared(intent),
                   event=_earliest(_EVENT, intent), urges=bool(_URGES.search(intent)),
                   activity=_first(_ACTIVITY, intent))


def _context(data: dict[str, Any]) -> _Context:
    intent = str(data.get("intent") or "")
    audience = str(data.get("audience") or "adults")
    requested = data.get("exercise_type")
    about = step_count.without_count(intent)  # "fear of dogs, 6 steps": the dogs, not the 6
    asked = read_request(about)
    exercise = requested if requested in lib.TEMPLATES else choose_exercise(about)
    if asked.feared and requested not in lib.TEMPLATES and not asked.technique \
            and exercise not in lib.SITUATIONS["exposure"]["for"]:
        exercise = "graded_exposure"  # "drive through tunnels again": a place to approach
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
                    situation_from_intent(about), label, seed, feared=asked.feared,
                    event=asked.event, urges=asked.urges, focus=focus_of(about, asked))
