"""What the offline drafter and critics for protocols share about a protocol's text: the
patterns, words and sentences, and the context read
from a run's intent and audience. Package-internal: the names keep their leading underscore
and are imported by the offline drafter and critics modules only."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from engine.checks import step_count
from engine.checks.safety import screen_protocol
from engine.llm.offline.protocol import library as lib

if TYPE_CHECKING:
    from engine.checks.base import ScreenResult


MIN_STEPS, MAX_STEPS = 4, 8
FEWER_STEPS = 5
"""What a person's "fewer steps, please" cuts a longer list to."""
LONG_STEP_WORDS = 40
"""A step longer than this is hard to follow in the moment."""
SHORT_STEP_WORDS = 30
"""What a shortened step is cut back to."""

_CRISIS = re.compile(lib.CRISIS_PATTERN, re.I)
_PROFESSIONAL = re.compile(lib.PROFESSIONAL_PATTERN, re.I)
_SECOND_PERSON = re.compile(r"\b(you|your|yours|yourself|you're|you'll|you've|you'd)\b", re.I)
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
# A closing quote or bracket stays with its sentence ('... "I'm going round in circles again."').
_SENTENCE_END = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"')\]]))\s+(?=[\"'(\[]?[A-Z0-9])")
_QUOTED = re.compile(r"\"([^\"\n]{6,})\"|\u201c([^\u201d\n]{6,})\u201d")
_PROMISE = re.compile(r"\b(cures?|guarantee[sd]?|will never (feel|be) \w+ again|"
                      r"permanently (fix|cure)|100% effective)\b", re.I)
_JUDGEMENTAL = [(re.compile(r"\b" + re.escape(w) + r"\b", re.I), w, r)
                for w, r in lib.JUDGEMENTAL_SWAPS.items()]
_PLAIN = [(re.compile(r"\b" + re.escape(w) + r"\b", re.I), r)
          for w, r in lib.PLAIN_SWAPS.items()]

# User text that must never be echoed into an exercise: instructions aimed at the model,
# and medication talk (the drafter gives no medication advice, whoever asks).
_INJECTION = re.compile(
    r"\b(ignore|disregard|forget|override|bypass|jailbreak|pretend|system prompt|"
    r"instructions?|rules?|developer mode|you are now|act as)\b", re.I)
_MEDICAL = re.compile(
    r"\b(meds?|medications?|medicines?|pills?|doses?|dosage|tablets?|prescri\w*|"
    r"antidepressants?|ssri\w*|benzo\w*|drugs?|alcohol|overdose|suicid\w*|self[- ]harm\w*|"
    r"kill\w*|die|dying|weapons?)\b", re.I)



# ======================================================================================
# Text helpers
# ======================================================================================


@lru_cache(maxsize=512)
def _screen(text: str) -> ScreenResult:
    # The drafter screens the same template sentences again and again; the screen is pure.
    return screen_protocol(text)


def _words(text: str) -> list[str]:
    return _WORD.findall(text)


def _sentences(text: str) -> list[str]:
    text = " ".join(text.split())
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()] if text else []


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9 ]+", " ", text.lower()).split())


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def _tidy(text: str) -> str:
    # Collapses the gaps a cut leaves; indentation at the start of a line is kept.
    text = re.sub(r"(?<=\S)[ \t]+", " ", text)
    text = re.sub(r" +([.,;:!?])", r"\1", text)
    text = re.sub(r"([.;:!?]) *([.;:!?])", r"\1", text)
    text = re.sub(r", *([.;:!?])", r"\1", text)
    text = re.sub(r"^[\s,;:]+", "", text)
    return "\n".join(line.rstrip() for line in text.split("\n")).strip()


def _end(text: str) -> str:
    text = text.strip()
    return text if not text or text[-1] in ".!?:" else text + "."


def _syllables(word: str) -> int:
    w = word.lower().strip("'")
    groups = re.findall(r"[aeiouy]+", w)
    n = len(groups)
    if w.endswith("e") and not w.endswith(("le", "ee")) and n > 1:
        n -= 1
    return max(1, n)


def _validating_count(text: str) -> int:
    low = " " + " ".join(text.lower().replace("\u2019", "'").split()) + " "
    return sum(low.count(p) for p in lib.VALIDATING_PHRASES)


_WHEN = re.compile(r"\s*(?:when|whenever|if|after|before|once|as soon as|each time|every time|"
                   r"while)\b", re.I)


def _is_imperative(step: str) -> bool:
    text = re.sub(r"^[^A-Za-z]+", "", step)
    words = [w.lower() for w in _words(text)[:12]]
    i = 0
    while i < len(words) and words[i] in lib.SKIPPABLE_LEADS:
        i += 1
    if i < len(words) and words[i] in lib.IMPERATIVE_VERBS:
        return True
    # "When the worry comes, write it down." / "If you can, walk outside."
    head, sep, tail = text.partition(",")
    # A clause that sets the moment may be long when it names the person's own situation
    # ("When you notice your mind going back over being made redundant ..., name it").
    limit = 25 if _WHEN.match(head) else 10
    if sep and len(_words(head)) <= limit:
        rest = [w.lower() for w in _words(tail)[:3]]
        while rest and rest[0] in lib.SKIPPABLE_LEADS:
            rest.pop(0)
        return bool(rest) and rest[0] in lib.IMPERATIVE_VERBS
    return False


def clean_user_text(value: str) -> str:
    """User text as it may be echoed into an exercise: no HTML, no Markdown structure."""
    text = html.unescape(html.unescape(value))  # "&lt;script&gt;" is a tag too
    text = re.sub(r"<(script|style|iframe|object)\b.*?(</\1\s*>|$)", " ", text,
                  flags=re.I | re.S)
    text = re.sub(r"<[^>]*>", " ", text)
    text = re.sub(r"(?i)javascript\s*:", " ", text)
    text = re.sub(r"[<>`*_#|\[\]{}\\]", " ", text)
    text = "".join(ch if ch.isprintable() else " " for ch in text)
    return " ".join(text.split())


def _safe_fragment(text: str, max_words: int = 18) -> str | None:
    """A piece of user text fit to echo: clean, short, no instructions to the model, no
    medication or self-harm talk, and nothing the safety screen objects to."""
    text = clean_user_text(text).strip(" ,.;:-\"'")
    if not text or _INJECTION.search(text) or _MEDICAL.search(text):
        return None
    words = text.split()
    if len(words) > max_words:
        cut = " ".join(words[:max_words])
        text = cut.rsplit(",", 1)[0] if "," in cut else cut
        # Cut mid-clause, it must not end on "after a" or "who".
        text = re.sub(r"(?:\s+(?:a|an|the|after|before|for|of|to|in|at|on|with|and|or|but|who|"
                      r"that|which|my|his|her|their|your|its|our|every|each|some|any|very|so))+$",
                      "", text, flags=re.I)
    if len(_words(text)) < 1 or _screen(text).flags:
        return None
    return text


# ======================================================================================
# Reading the intent and the audience
# ======================================================================================

_BOILERPLATE = [re.compile(p, re.I) for p in (
    r"^(please|hi|hello|ok|okay)[,!]?\s+",
    r"^(can|could|would) you\s+",
    r"^(i|we) (need|want|would like|'d like)( you)?( to)?\s+",
    r"^(write|create|make|design|draft|build|generate|give|produce|develop|suggest)\s+"
    r"(me\s+|us\s+)?(a|an|one|some)\s+",
    r"^(a|an|one|some)\s+(?=(short|simple|brief|quick|new|structured|evidence|practical|"
    r"gentle|cbt|daily|weekly|easy|exercise|protocol|worksheet|activity|tool|technique|"
    r"intervention|plan|task|homework)\b)",
    r"^(short|simple|brief|quick|new|structured|evidence[- ]based|practical|gentle|cbt|"
    r"daily|weekly|easy)\s+",
    r"^(cbt\s+)?(exercise|protocol|worksheet|activity|tool|technique|intervention|plan|"
    r"task|homework)s?\s+",
    r"^(to|for|about|that|which|on|around|targeting|addressing)\s+",
    r"^(help(s|ing)?|support(s|ing)?|teach(es|ing)?)\s+",
    r"^(my|our|the|their)\s+",
    # "a university student manage ..." -> "manage ..." (the person, then what they face)
    r"^((a|an|one|some|the)\s+)?([\w-]+\s+){0,2}?(clients?|patients?|students?|people|persons?|"
    r"teens?|teenagers?|adults?|users?|kids|children|individuals|adolescents|parents?|"
    r"veterans?|workers?|employees?|nurses?|carers?|caregivers?)\s+",
    r"^(clients?|patients?|students?|people|persons?|teens?|teenagers?|adults?|users?|"
    r"someone|kids|children|individuals|folks|adolescents)\s+",
    r"^(who|that)\s+(are|is|have|has|struggles?|deal|deals|experiences?|suffers?|get|gets)"
    r"(\s+(with|from))?\s+",
    r"^(who|that)\s+",
    r"^(with|from)\s+",
    r"^(to\s+)?(manage|cope with|deal with|handle|reduce|overcome|work through|address|"
    r"tackle|ease|beat|understand)\s+",
)]


def situation_from_intent(intent: str) -> str | None:
    """The situation in the clinician's intent, as a phrase fit to show the client."""
    text = re.sub(r"<(script|style)\b.*?(</\1\s*>|$)", " ", intent, flags=re.I | re.S)
    for clause in re.split(r"[.!?;\n]+", text):
        fragment = _safe_fragment(clause)
        if not fragment:
            continue
        changed = True
        while changed:
            changed = False
            for pattern in _BOILERPLATE:
                new = pattern.sub("", fragment, count=1)
                if new != fragment and new.strip():
                    fragment, changed = new.strip(), True
        fragment = fragment.strip(" ,.;:-")
        if len(_words(fragment)) < 1 or len(fragment) < 3:
            continue
        if len(_words(fragment)) < 3 and _choose_score(fragment) == 0:
            continue
        fragment = re.sub(r"\b(just|simply)\s+", "", fragment, flags=re.I)
        if any(p.search(fragment) for p, _, _ in _JUDGEMENTAL):
            continue  # "my boss says I'm lazy" is not for echoing back to the client
        fragment = _to_second_person(fragment)
        first = fragment.split()[0]
        if not (first.isupper() and len(first) > 1):
            fragment = fragment[:1].lower() + fragment[1:]
        return fragment
    return None


_PRONOUNS = (("i'm", "you're"), ("i've", "you've"), ("i am", "you are"), ("i", "you"),
             ("me", "you"), ("my", "your"), ("mine", "yours"), ("myself", "yourself"),
             ("they're", "you're"), ("they are", "you are"), ("they", "you"),
             ("them", "you"), ("their", "your"), ("themselves", "yourself"))


_THIRD = ((r"\b(?:him|her)self\b", "yourself"), (r"\bhis\b", "your"),
          # "corrects her on the ward": her as an object is "you", before a noun "your"
          (r"\bher\b(?=\s+(?:on|in|at|to|for|with|about|when|and|or|but|after|before|the|an?|"
           r"up|down|off|out|back|again)\b|\s*[.,;:!?)]|\s*$)", "you"), (r"\bher\b", "your"),
          (r"\b(?:he|she)\b", "you"))


IRREGULAR_GERUNDS = {"lying": "lie", "dying": "die", "tying": "tie"}
_IRREGULAR = {"has": "have", "does": "do", "goes": "go", "is": "be", "lies": "lie", "dies": "die",
              "ties": "tie", **IRREGULAR_GERUNDS}


def base_verb(word: str) -> str:
    """ "rides" -> "ride", "worries" -> "worry", "watches" -> "watch", "has" -> "have"."""
    low = word.lower()
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    if re.search(r"[^aeiou]ies$", low):
        return low[:-3] + "y"
    if re.search(r"(?:sses|shes|ches|xes|zzes)$", low):
        return low[:-2]
    if low.endswith("s") and not low.endswith(("ss", "us", "is")):
        return low[:-1]
    return low


_HE_SHE_VERB = re.compile(r"\b(?:he|she)\s+(?:(never|always|often|sometimes|usually|still|also|"
                          r"just|really|rarely|barely|only)\s+)?(?!(?:can|could|will|would|"
                          r"should|may|might|must|did|had|was)\b)([a-z]+s)\b", re.I)
_HE_SHE_IS = re.compile(r"\b(?:he|she)(?:'s|\u2019s| is)(?=\s+(\w+))", re.I)


def third_to_second(text: str) -> str:
    """The clinician's "his office", "when she feels" as the reader's "your", "you feel"."""
    text = _HE_SHE_IS.sub(lambda m: "you've" if "s" in m.group(0)[-2:] and re.fullmatch(
        r"\w+ed|been|got|gotten|stopped|lost|given|taken|done|made", m.group(1), re.I)
        else "you're" if "'" in m.group(0) or "\u2019" in m.group(0) else "you are", text)
    text = _HE_SHE_VERB.sub(lambda m: "you " + (m.group(1) + " " if m.group(1) else "")
                            + base_verb(m.group(2)), text)
    for pattern, repl in _THIRD:
        text = re.sub(pattern, repl, text, flags=re.I)
    return text


# "write the worries down when they pop up": "they" are the worries, not the reader.
_THINGS_THEY = re.compile(
    r"\b(?:the|these|those|any|all|your|my|his|her)\s+(?:\w+\s+)?(?!(?:people|clients|patients|"
    r"friends|parents|kids|children|colleagues|teachers|others|siblings|sisters|brothers)\b)"
    r"([a-z]{3,}s)\b(?=[^.;!?]*?\bthey\b)", re.I)


def _to_second_person(text: str, *, own_words: bool = False) -> str:
    """The clinician's "my clients... their" or a client's "I... my" as "you... your". In the
    client's own words (a quoted thought), "they" are always other people: "I think they hate
    me" is "you think they hate you"."""
    if own_words:
        for a, b in _PRONOUNS:
            if not a.startswith(("they", "them", "their")):
                text = re.sub(r"\b" + re.escape(a) + r"\b", b, text, flags=re.I)
        return text
    kept = ""
    if m := _THINGS_THEY.search(text):  # keep "they" for the things named before it
        at = text.lower().index("they", m.end())
        kept, text = text[at:at + 4], text[:at] + "\x00" + text[at + 4:]
    for a, b in _PRONOUNS:
        text = re.sub(r"\b" + re.escape(a) + r"\b", b, text, flags=re.I)
    return text.replace("\x00", kept) if kept else text


def _exercise_scores(text: str) -> dict[str, float]:
    low = " " + clean_user_text(text).lower().replace("\u2019", "'")
    return {key: sum(w for f, w in t["keywords"].items() if re.search(r"\b" + f, low))
            for key, t in lib.TEMPLATES.items()}


def _choose_score(text: str) -> float:
    return max(_exercise_scores(text).values())


def named_technique(intent: str) -> str | None:
    """The exercise type whose name (the templates' "names") the request uses first."""
    low = " " + clean_user_text(intent).lower().replace("\u2019", "'")
    found = []
    for key, template in lib.TEMPLATES.items():
        for name in template.get("names", ()):
            if m := re.search(r"\b" + name, low):
                found.append((m.start(), key))
    return min(found)[1] if found else None


def choose_exercise(intent: str) -> str:
    """The technique the request names, else the exercise type whose keywords the intent
    matches best (ties: library order; nothing matched: the library's stable default)."""
    named = named_technique(intent)
    if named:
        return named
    best, best_score = lib.DEFAULT_EXERCISE, 0.0
    for key, score in _exercise_scores(intent).items():
        if score > best_score:
            best, best_score = key, score
    return best


def _profile(audience: str) -> dict[str, Any]:
    low = " " + clean_user_text(audience).lower() + " "
    for profile in lib.AUDIENCES:
        if any(m in low for m in profile["match"]):
            return profile
    return lib.AUDIENCES[-1]


@dataclass
class _Context:
    intent: str
    audience: str
    exercise: str
    profile: dict[str, Any]
    region: str
    situation: str | None
    label: str
    seed: int
    feared: str | None = None
    """What the request says the person fears (intent.Request)."""
    event: str | None = None
    """What the request says the person keeps going over."""
    urges: bool = False
    """The request is about urges to self-harm."""
    focus: str | None = None
    """What the request is about, in its own words (intent.focus_of)."""

    @property
    def feared_short(self) -> str | None:
        """The feared thing without where it happens ("escalators in shopping malls" ->
        "escalators"), for the steps after the first: the full phrase in every step reads as
        pasted. None when it has no such tail, or names an activity ("speaking in meetings")."""
        if not self.feared:
            return None
        m = re.match(r"(.+?)\s+(?:in|at|on|near|during|inside|around|of)\s+\S", self.feared)
        head = m.group(1) if m else None
        if not head or re.match(r"\w+ing\b|being\b", head, re.I) or len(head) < 4:
            return None
        return head

    @property
    def most_steps(self) -> int:
        """The most steps a draft may have: the request's own count ("10 steps"), else 8."""
        asked = step_count.asked_range(self.intent)
        return min(asked[1], step_count.MAX_ASKED) if asked else MAX_STEPS

    @property
    def situated(self) -> str | None:
        """The set of steps built from the request's own situation that applies (library
        SITUATIONS), if any: urges first, whatever the technique."""
        have = {"urges": self.urges, "feared": self.feared, "event": self.event}
        for name, sit in lib.SITUATIONS.items():
            if have.get(sit["needs"]) and (sit["for"] == "*" or self.exercise in sit["for"]):
                return name
        return None

    @property
    def template(self) -> dict[str, Any]:
        base = lib.TEMPLATES[self.exercise]
        name = self.situated
        if name is None:
            return base
        over = {k: v for k, v in lib.SITUATIONS[name].items()
                if k not in ("for", "needs", "default_exercise", "activity")}
        activity = lib.SITUATIONS[name].get("activity")
        if activity and self.feared and re.match(r"\w+ing\b", self.feared):
            # "driving on the motorway" is done, not approached: "try driving ...", never
            # "get closer to driving ...".
            steps = [[activity["steps"].get(str(i), core), warm]
                     for i, (core, warm) in enumerate(over["steps"])]
            over = {**over, "steps": steps, "rungs": activity["rungs"]}
        return {**base, **over}

    def fill(self, text: str) -> str:
        out = text.replace("{setting}", self.profile["setting"]).replace(
            "{support}", self.profile["support"])
        out = out.replace("{feared}", self.feared or "it").replace(
            "{event}", self.event or "it").replace("{focus}", self.focus or "it")
        return _plain(out) if self.profile["plain"] else out


def _topic_key(topic: str) -> str:
    words = [w for w in _norm(topic).split() if w not in
             ("a", "an", "the", "some", "my", "your", "their", "about", "how", "to")]
    return " ".join(words[:4])


def _topic_in(topic: str, text: str) -> bool:
    key = _topic_key(topic)
    if not key:
        return False
    stem = key.split()[0][:5] if len(key.split()) == 1 else key
    return stem in _norm(text)



def _plain(text: str) -> str:
    for pattern, repl in _PLAIN:
        text = pattern.sub(lambda m, r=repl: _match_case(m.group(0), r), text)
    return text


def _match_case(original: str, replacement: str) -> str:
    return _cap(replacement) if original[:1].isupper() else replacement


