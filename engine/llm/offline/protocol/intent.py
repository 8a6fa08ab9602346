"""What a protocol request asks for, built into the drafter's context: the technique it
names, the situation to build steps of any technique on (focus_of: the feared thing or the event
from request.py, a quoted thought, a belief, what someone worries about, or the request without
its technique and its person), and what sets off an urge to self-harm.

Every phrase taken from the request passes the same filter as any echoed user text
(common._safe_fragment: no instructions to the model, no medication or method talk,
nothing the safety screen objects to)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
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
    situation_from_intent,
    third_to_second,
)
from engine.llm.offline.protocol.request import (
    CLAUSE_END,
    OUTCOME,
    URGES,
    Request,
    phrase_of,
    read_request,
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
        cut = CLAUSE_END.search(m.group(1))
        phrase = (m.group(1)[:cut.start()] if cut else m.group(1)).strip()
        if not phrase or len(phrase.split()) > 6 or URGES.search(phrase) \
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
        occasion = re.match(r"\s+(?:thoughts?\s+|feelings?\s+)?(every time|whenever|when|after|"
                            r"before|if)\s+", intent[m.end():])
        rest = phrase_of(intent[m.end() + occasion.end():]) if occasion else None
        when = f"{occasion.group(1)} {rest}" if rest else None  # "after failing her test"
        if not when and (event := _EVENT_THEN.search(intent[:m.start()])):
            happened = phrase_of(event.group(1))  # "got an email and concluded ..."
            when = f"after you {happened}" if happened else None
        if not when and (part := _situation_after(intent[m.end():])):
            when = f"({part})"  # "'I'm a bad father' - works nights and missed the school play"
        said = _to_second_person(thought, own_words=True)
        return (f"the thought '{said}'" + (f" {when}" if when else "")
                if thought else None)
    # "Insomnia - 55yo woman lies awake, watches TV in bed": the part that says more; a part
    # that states a belief first ("money worries - thinks one late payment means eviction"),
    # and the next part when one cannot be echoed (each part passes the echo filter alone).
    if (m := _NAMED_SITUATION.search(intent)) and (said := phrase_of(m.group(1))):
        return said  # "situation is his grandson not calling back"
    if asked.technique == "worry_postponement" and (m := _WORRIES.search(intent)) \
            and (about := phrase_of(m.group(1))) and not OUTCOME.match(about):
        return f"worrying about {about}"  # "worries about customer reviews all evening"
    parts = []
    for raw in re.split(r"\s[-\u2013\u2014]\s|[\u2013\u2014]", _ASIDE.sub("", intent)):
        if said := _when_belief(raw.strip(" .")):
            return said
        text = situation_from_intent(raw) or ""
        for _ in range(2):  # "breathing exercise for ..."
            text = _TECHNIQUE_LEAD.sub("", text, count=1).lstrip(" -\u2013\u2014:")
        text = _NAME_LEAD.sub("", text.strip(), count=1)  # "Lena: landlord is selling the flat"
        if (m := re.match(r"^([^,]{3,40}),\s+(.+)", text)) and _ROLE.fullmatch(m.group(1).strip()):
            text = m.group(2)  # "pt is a chef, thinks ..."
        if text and not _ONLY_TECHNIQUE.match(text):  # "Simple thought record, please"
            parts.append(text)
    ranked = sorted(parts, key=lambda p: (not _belief_of(p), len(p.split()) < 2))
    return next((f for p in ranked if (f := _part_focus(p))), None)


# "who got a critical email from a partner and concluded 'I'm ...'": what happened first.
_EVENT_THEN = re.compile(r"\b(?:who|that)\s+((?:got|had|received|made|lost|missed|failed|was|"
                         r"heard|saw|read)\s+.{3,80}?)\s+and\s+(?:then\s+)?(?:concluded|decided|"
                         r"thought|assumed|told (?:her|him|them)sel(?:f|ves))\s*:?\s*$", re.I)
# "whenever her friends don't reply she decides they hate her": a belief and its occasion.
_WHEN_BELIEF = re.compile(r"^(whenever|when|every time|each time|if)\s+(.{3,80}?)\s+(?:she|he|they)"
                          r"\s+(?:decides?|thinks?|assumes?|believes?|concludes?|is sure|tells? "
                          r"(?:her|him|them)sel(?:f|ves))\s+(?:that\s+)?([^.;!?]{3,80})", re.I)
# "(parent will read it with him)": an aside, not the situation (an age like "(44)" stays).
_ASIDE = re.compile(r"\s*\([^()]*\s[^()]*\)")
_NAMED_SITUATION = re.compile(r"\b(?:the\s+)?(?:situation|trigger|example)\s*(?:is|was|:|=)\s+(.+)",
                              re.I)
_WORRIES = re.compile(r"\bworr(?:y|ies|ying|ied)\s+(?:\w+ly\s+|all day\s+|all the time\s+)?"
                      r"(?:about|over)\s+(.+)", re.I)
_NAME_LEAD = re.compile(r"^(?-i:[A-Z][a-z]+)(?:\s*\(\d+\))?\s*:\s+")
_ONLY_TECHNIQUE = re.compile(
    r"^(?:(?:a|an|the|simple|quick|basic|short|brief|structured|standard|classic|gentle)\s+)*"
    r"(?:thought record|cognitive restructuring|restructuring|behavioural activation|ba|"
    r"problem[- ]solving|worry postponement|worry time|paced breathing|breathing exercise|"
    r"sleep routine|graded exposure|exposure|hierarchy|ladder)"
    r"(?:\s+(?:sheet|worksheet|steps|exercise|plan|form))?[,.]?(?:\s*(?:please|pls|plz))?[.!]?$",
    re.I)


def _situation_after(text: str) -> str | None:
    """What a request says after a quoted thought, past a dash ("- client works nights and
    missed his son's school play"), as a short phrase for the reader; None if it is long or
    says nothing but the technique."""
    m = re.match(r"[\s'\u2019\"]*[-\u2013\u2014:;]\s*(.+?)(?:[.!?]|$)", text)
    if not m:
        return None
    # "client works nights" -> "he works nights" -> "you work nights"
    part = re.sub(r"^(?:the\s+|my\s+)?(?:client|patient|pt)\b", "he", m.group(1), flags=re.I)
    safe = _safe_fragment(part, max_words=12)
    if not safe or _ONLY_TECHNIQUE.match(safe) or not _CONTENT.search(safe):
        return None
    return third_to_second(_to_second_person(safe))


def _when_belief(text: str) -> str | None:
    """ "whenever her friends don't reply she decides they hate her" -> "the thought 'they
    hate you' whenever your friends don't reply": read before any pronoun is turned, since
    "they" there are the others and "her" is the reader."""
    m = _WHEN_BELIEF.match(text)
    thought = m and _safe_fragment(m.group(3), max_words=10)
    when = m and _safe_fragment(m.group(2), max_words=12)
    if not (m and thought and when):
        return None
    said = re.sub(r"\b(?:she|he|her|him)\b", "you", thought)
    said = re.sub(r"\byou is\b", "you are", re.sub(r"\b(?:herself|himself)\b", "yourself", said))
    return f"the thought '{said}' {m.group(1).lower()} {third_to_second(when)}"


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
    text = _NAMED_PERSON.sub(lambda m: f"you {base_verb(m.group(1))} ", text, count=1)
    text = _lead_person(text)
    person = _PERSON.match(text)
    text = _PERSON.sub("", text, count=1)
    text = _FOR_PERSON.sub("", text, count=1)
    if person and (m := re.match(r"([a-z]+[^s\W]s)\b", text)):  # "who worries" -> "you worry"
        text = f"you {base_verb(m.group(1))}{text[m.end():]}"
    text = _LEAD_VERB.sub("", text, count=1).strip(" ,.:;")
    text = third_to_second(text)
    if len(text.split()) > FOCUS_WORDS and (cut := CLAUSE_END.search(text)) \
            and len(text[:cut.start()].split()) > 1:
        text = text[:cut.start()].strip()
    text = re.sub(r"^you (?:can|could|will|might) (?:do|use|try|practi[sc]e)(?: it| this)?\s+", "",
                  text)  # "paced breathing she can do before court hearings"
    if len(text) < 3 or len(text.split()) > FOCUS_WORDS or not _CONTENT.search(text):
        return None  # "you can do" says nothing of the situation
    return text


_CONTENT = re.compile(r"\b(?!(?:you|your|yours|yourself|can|could|will|would|should|have|been|"
                      r"does|doing|make|made|feel|feels|gets?|this|that|they|them|with|when|what|"
                      r"some|very|just|really|also)\b)[a-z]{4,}\b", re.I)


# "pt is a chef", "she's a nurse": who the person is, before what happens to them.
_ROLE = re.compile(r"(?:(?:the\s+)?(?:client|patient|pt|he|she|they)\s+)"
                   r"(?:is|'s|\u2019s|are)\s+an?\s+[\w\s-]{2,30}", re.I)
# "Ahmed (44) gets furious in traffic": a named person and what they do.
_NAMED_PERSON = re.compile(  # a name in lower case only with an age: "ahmed (44)"
    r"^(?:[a-z]+(?:\s*\(\d+\)|,\s*\d+,)|(?-i:[A-Z][a-z]+))\s+(gets|feels|thinks|worries|avoids|hates|"
    r"keeps|freezes|panics|dreads|struggles|spends|lies|wakes|blames|snaps|shouts|cries)\s+")
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
    if verb.endswith("s") and not verb.endswith("ss") or verb.lower() == "convinced":
        return f"you {verb if verb.lower() == 'convinced' else base_verb(verb)}{rest}"
    if verb.endswith("ing"):  # "a carer juggling her dad's appointments"
        return f"{verb}{rest}"
    return text


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
