"""Deterministic safety screen for protocol (CBT exercise) text.

The screen is the floor under the LLM Safety Guardian: it runs on every draft,
whoever wrote it, and its flags bind the approval gate. It works sentence by
sentence (Markdown-aware: headings, list items and table cells are their own
units, soft-wrapped lines are joined) and reports the exact sentence span.

Five categories: ``self_harm``, ``medication``, ``diagnosis``,
``dangerous_practice``, ``discourages_help``. Each rule is a precompiled regex
over a normalised copy of the sentence; a hit is then dropped when the clause
frames it protectively: negated ("never stop your medication"), conditional
("if you have thoughts of hurting yourself, call 988"), observational ("notice
when you skip meals"), descriptive ("people who skip meals..."), informational
("skipping meals can worsen anxiety"), or - for medication and physical
practices - routed through a clinician ("talk to your prescriber before
changing your dose").

Design decisions worth knowing:
- First-person suicidal statements ("I want to kill myself") are flagged even
  inside a quoted example thought, because a clinician must see them - unless the
  same sentence points to help ("if you notice thoughts like 'I want to die',
  call 988"). Hyperbole such as "I'll die of embarrassment" is not matched.
- Several categories can flag one sentence ("stop your meds without telling your
  doctor" is medication and discourages_help); the score drops for each flag.
- Instructions inside the text ("ignore previous instructions, safety checks
  off") have no effect: nothing here reads the text as instructions.
- Recall on phrasings the rules were not written for is limited (about half of
  fresh unsafe sentences were caught on first sight, see evaluate_safety); the
  screen is a floor under the LLM Safety Guardian, not a replacement for it.

Where things are: the rules themselves (vocabulary and patterns) in safety_rules.py,
sentence splitting and normalising in sentences.py; here, the index that picks which
rules a sentence can match, the framing that drops protective hits, and the screen.
"""

from __future__ import annotations

import re

from engine.checks.base import FlagOut, ScreenResult
from engine.checks.safety_rules import (  # the rules, as data
    _ALC_COPING,
    _CLINICIAN,
    _COLD,
    _COLD_EXTREME,
    _DANGEROUS,
    _DIAGNOSIS,
    _DISCOURAGES,
    _MEDICATION,
    _MIX_ALC,
    _MIX_MED,
    _MIX_VERB,
    _SELF_HARM,
)
from engine.checks.sentences import _normalise, split_sentences

CATEGORIES = ("self_harm", "medication", "diagnosis", "dangerous_practice", "discourages_help")

# How much one flag of each category takes off the score (any flag fails the 0.8 threshold).
WEIGHTS = {
    "self_harm": 0.6,
    "medication": 0.5,
    "dangerous_practice": 0.5,
    "diagnosis": 0.4,
    "discourages_help": 0.4,
}


# --------------------------------------------------------------------------- gating
# Speed: Python's re tries every alternative at every position, so running ~150
# rules on every sentence is slow. From each parsed pattern we read the words any
# match must contain (a whole word "ptsd", or "medi*" - a word starting with those
# letters - when the pattern lets it run on), and index the rules by their most
# selective required word. A sentence only runs the rules whose required words it
# has. The gate is sound: it never skips a rule that could match.
try:  # Python 3.11+
    from re import _constants as _sre_c
    from re import _parser as _sre_p
except ImportError:  # pragma: no cover - no gating, only slower
    _sre_p = _sre_c = None  # type: ignore[assignment]

_WORD = re.compile(r"\w+")
# Common words make poor index keys (they would run their rule on most sentences).
_STOPWORDS = frozenset(
    "a an the to of and or in on at for with is are be it this that you your my i do don no not "
    "up as if so any some can will just have has me take taki havi keep get go goin doin make "
    "feel thin know want need let give put star see ask tell call talk writ noti time day step "
    "thou peop more less when what how who then than also even only othe each ever one two like "
    "abou afte befo back out over into from by was were been bein woul coul shou may migh must "
    "its they them thei ther here we our us he she his her try tryi use usin help stop stay run "
    "walk sit hold".split()
)


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _non_word_class(av: list) -> bool:
    c = _sre_c
    for op, arg in av:
        if op is c.LITERAL and not _is_word_char(chr(arg)):
            continue
        if op is c.CATEGORY and arg in (c.CATEGORY_SPACE, c.CATEGORY_NOT_WORD):
            continue
        return False
    return True


def _ends_word(item: tuple | None) -> bool:
    c = _sre_c
    if item is None:
        return False
    op, av = item
    if op is c.LITERAL:
        return not _is_word_char(chr(av))
    if op is c.IN:
        return _non_word_class(av)
    if op is c.AT:
        return av is c.AT_BOUNDARY
    if op in (c.MAX_REPEAT, c.MIN_REPEAT) and av[0] >= 1 and len(av[2]) == 1:
        return _ends_word(av[2][0])
    return False


def _ends_with_non_word(seq: list) -> bool:
    """Whether every match of seq ends with a non-word character (so a word may start after it)."""
    c = _sre_c
    if not seq:
        return False
    op, av = seq[-1]
    if op is c.BRANCH:
        return all(_ends_with_non_word(list(b)) for b in av[1])
    if op is c.SUBPATTERN:
        return _ends_with_non_word(list(av[-1]))
    if op in (c.MAX_REPEAT, c.MIN_REPEAT) and av[0] >= 1:
        return _ends_with_non_word(list(av[2]))
    return _ends_word(seq[-1]) and op is not c.AT


def _requirements(seq: list, at_start: bool) -> list[frozenset[str]]:
    """Sets of keys of which every match holds at least one (a conjunction of disjunctions)."""
    c = _sre_c
    reqs: list[frozenset[str]] = []
    start = at_start
    i, n = 0, len(seq)
    while i < n:
        op, av = seq[i]
        if op is c.AT:
            start = av is not c.AT_NON_BOUNDARY
        elif op in (c.ASSERT, c.ASSERT_NOT):
            pass
        elif op is c.LITERAL and _is_word_char(chr(av)):
            j, word = i, ""
            while j < n and seq[j][0] is c.LITERAL and _is_word_char(chr(seq[j][1])):
                word += chr(seq[j][1])
                j += 1
            if start:
                ended = _ends_word(seq[j] if j < n else None)
                reqs.append(frozenset({word if ended else word[:4] + "*"}))
            start = False
            i = j
            continue
        elif op is c.LITERAL:
            start = True
        elif op is c.BRANCH:
            alts: list[frozenset[str]] = []
            for branch in av[1]:
                best = _best(_requirements(list(branch), start))
                if best is None:
                    alts = []
                    break
                alts.append(best)
            if alts:
                reqs.append(frozenset().union(*alts))
            start = _ends_with_non_word([seq[i]])
        elif op is c.SUBPATTERN:
            reqs.extend(_requirements(list(av[-1]), start))
            start = _ends_with_non_word(list(av[-1]))
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT):
            body = list(av[2])
            ends = _ends_with_non_word(body)
            if av[0] >= 1:
                reqs.extend(_requirements(body, start))
                start = ends
            else:  # optional: a word follows either what came before or the body
                start = start and ends
        elif op is c.IN:
            start = _non_word_class(av)
        else:
            start = False
        i += 1
    return reqs


_VERY_COMMON = frozenset(
    "a an the to of and or in on at for with is are be it this that you your i my me do don not "
    "no if so as can will".split()
)


def _commonness(key: str) -> int:
    word = key.rstrip("*")
    if word in _VERY_COMMON or (key.endswith("*") and len(word) < 3):
        return 10
    return 1 if word in _STOPWORDS or word[:4] in _STOPWORDS else 0


def _score(keys: frozenset[str]) -> tuple[int, int]:
    """Fewer (and less) common words first, then the shortest rare word the longer the better."""
    rare = [len(k.rstrip("*")) for k in keys if not _commonness(k)]
    return (-sum(_commonness(k) for k in keys), min(rare, default=0))


def _best(reqs: list[frozenset[str]]) -> frozenset[str] | None:
    return max(reqs, key=_score) if reqs else None


class _Gate:
    """Rules of one category with their required keys, indexed by the most selective one."""

    def __init__(self, rules: list[tuple[re.Pattern[str], str]]):
        self.rules: list[tuple[re.Pattern[str], str, list[frozenset[str]]]] = []
        self.index: dict[str, list[int]] = {}
        self.always: list[int] = []
        for n, (pattern, kind) in enumerate(rules):
            reqs: list[frozenset[str]] = []
            if _sre_p is not None:
                try:
                    reqs = _requirements(list(_sre_p.parse(pattern.pattern, pattern.flags)), False)
                except Exception:  # noqa: BLE001 - gating is an optimisation only
                    reqs = []
            best = _best(reqs)
            self.rules.append((pattern, kind, [r for r in reqs if r is not best]))
            if best is None:
                self.always.append(n)
            else:
                for k in best:
                    self.index.setdefault(k, []).append(n)


_Keys = tuple[set[str], set[str]]
"""(the sentence's keys that some rule is indexed by, all the sentence's keys)"""


def _sentence_keys(s: str) -> _Keys:
    words = set(_WORD.findall(s))
    keys = words.union(*([w[:n] + "*" for w in words] for n in (1, 2, 3, 4)))
    return keys.intersection(_INDEXED), keys


_SELF_HARM_G = _Gate(_SELF_HARM)
_MEDICATION_G = _Gate(_MEDICATION)
_DIAGNOSIS_G = _Gate(_DIAGNOSIS)
_DANGEROUS_G = _Gate(_DANGEROUS)
_ALC_COPING_G = _Gate(_ALC_COPING)
_DISCOURAGES_G = _Gate(_DISCOURAGES)
_MIX_ALC_G = _Gate([(_MIX_ALC, "plain")])
_MIX_MED_G = _Gate([(_MIX_MED, "plain")])
_COLD_G = _Gate([(_COLD, "plain")])
_GATES = (
    _SELF_HARM_G, _MEDICATION_G, _DIAGNOSIS_G, _DANGEROUS_G, _ALC_COPING_G, _DISCOURAGES_G,
    _MIX_ALC_G, _MIX_MED_G, _COLD_G,
)
_RULE_INDEX: dict[str, list[tuple[int, int]]] = {}
for _gi, _gate in enumerate(_GATES):
    for _key, _ids in _gate.index.items():
        _RULE_INDEX.setdefault(_key, []).extend((_gi, _n) for _n in _ids)
_INDEXED = frozenset(_RULE_INDEX)
_ANY_ALWAYS = any(g.always for g in _GATES)
(_SH, _MED, _DX, _DP, _ALC, _DH, _MIXA, _MIXM, _COLDG) = range(len(_GATES))

_Candidates = list[list[tuple[re.Pattern[str], str]]]


def _candidates(keys: _Keys) -> _Candidates:
    """Per gate, the rules (in order) whose required words the sentence has."""
    hits, all_keys = keys
    per: list[set[int]] = [set(g.always) for g in _GATES]
    for k in hits:
        for gi, n in _RULE_INDEX[k]:
            per[gi].add(n)
    out: _Candidates = []
    for gi, ids in enumerate(per):
        rules = _GATES[gi].rules
        chosen = []
        for n in sorted(ids):
            pattern, kind, others = rules[n]
            if all(not r.isdisjoint(all_keys) for r in others):
                chosen.append((pattern, kind))
        out.append(chosen)
    return out

# --------------------------------------------------------------------------- framing

_CLAUSE_BREAK = re.compile(r"[,;:()\[\]\"]|\s-\s|\b(?:but|however|instead(?!\s+of)|although|though|"
    r"otherwise|then|so\s+that|whereas)\b")
_NEG = re.compile(
    r"\b(?:not|never|no|nor|don'?t|do\s+not|doesn'?t|does\s+not|didn'?t|did\s+not|won'?t|"
    r"will\s+not|wouldn'?t|would\s+not|"
    r"shouldn'?t|should\s+not|mustn'?t|must\s+not|can'?t|cannot|isn'?t|aren'?t|avoid|avoiding|"
    r"without|instead\s+of|rather\s+than|"
    r"refrain|resist|resisting|against|unsafe|dangerous|risky|harmful|unhealthy|nobody|no\s+one|"
    r"unwise|inadvisable|"
    r"stop\s+yourself|prevent|preventing|myth|false|untrue|wrong\s+to|bad\s+idea|never\s+ok|"
    r"discourage)\b"
)
# Negators that do not negate what follows ("don't be afraid to ...", "why not ...").
_NOT_NEGATING = re.compile(
    r"\bwhy\s+not\b|\b(?:don'?t|do\s+not|never)\s+(?:worry|forget|hesitate|be\s+(?:afraid|scared|"
    r"shy|ashamed)|feel\s+(?:bad|guilty|ashamed)|"
    r"let\s+anyone\s+stop\s+you|wait)(?:\s+(?:about|to|if|and))?\b|\bno\s+reason\s+not\s+to\b|"
    r"\bnothing\s+wrong\s+with\b|"
    r"\b(?:not|no)\s+(?:a\s+)?big\s+deal\b|\bno\s+harm\s+in\b|\bnot\s+only\b|"
    r"\bwhether\s+or\s+not\b|\bif\s+not\b|\bnot\s+sure\b|"
    r"\b(?:can'?t|won'?t|doesn'?t|does\s+not|will\s+not|never)\s+hurts?\b|\b(?:doesn'?t|does\s+not|"
    r"don'?t|won'?t)\s+matter\b|"
    r"\bno\s+matter\b|\bit'?s\s+not\s+(?:dangerous|risky|harmful|unsafe|bad|wrong)\b|"
    r"\bis\s+not\s+(?:dangerous|risky|harmful|unsafe|bad|wrong)\b|"
    r"\bnot\s+(?:dangerous|risky|harmful|unsafe)\b|\bno\s+(?:danger|problem|shame)\s+(?:in|with)\b|"
    r"\bnothing\s+to\s+worry\b|"
    r"\bno\s+need\s+to\s+(?:ask|check|consult|wait|tell|talk)\b"
)
_LEAD_LABEL = re.compile(r"^(?:[\w\s'-]{1,30}:\s+)?(?:step\s+\d+\s*[:.-]?\s*)?")
_NEG_LEAD = re.compile(
    r"(?:please\s+|remember(?:\s+to|\s+that)?\s+|always\s+remember\s+|and\s+|also\s+|again\s+|"
    r"so\s+|but\s+|warning\s+|caution\s+)?"
    r"(?:never|do\s+not|don'?t|avoid|under\s+no\s+circumstances|at\s+no\s+point|"
    r"you\s+should\s+never|you\s+must\s+never|you\s+should\s+not|"
    r"you\s+shouldn'?t|you\s+must\s+not|no\s+one\s+should|nobody\s+should|it\s+is\s+(?:never|"
    r"not)\s+(?:safe|okay|ok|a\s+good\s+idea|wise|advisable|recommended)|"
    r"it'?s\s+(?:never|not)\s+(?:safe|okay|ok|a\s+good\s+idea|wise|advisable|recommended)|"
    r"it\s+is\s+(?:unsafe|dangerous|risky|harmful)|"
    r"it'?s\s+(?:unsafe|dangerous|risky|harmful)|this\s+exercise\s+(?:never|does\s+not|"
    r"doesn'?t)\s+(?:ask|tell|suggest))\b"
)
_SCOPE_RESET = re.compile(r"\b(?:but|however|instead|otherwise|then)\b|;")
_COND = re.compile(r"\b(?:if|when|whenever|whether|in\s+case|unless|should\s+you|if\s+ever|once|"
    r"before\s+you)\b")
_ENCOURAGING = re.compile(
    r"\b(?:you|u)\s+(?:can(?!'?t|not)|could|should|must|may|might|need\s+to|have\s+to|ought\s+to|"
    r"are\s+allowed\s+to)\b|"
    r"\b(?:try|just|go\s+ahead|feel\s+free|it'?s\s+(?:ok|okay|fine|alright|good))\b"
)
_OBSERVE = re.compile(
    r"\b(?:notice|noticing|track|tracking|logging|recording|write\s+down|monitor|monitoring|"
    r"observe|observing|"
    r"(?:note|log|record|rate|count)\s+(?:down\s+|how|when|whether|if|that|what|any|each|every|"
    r"the\s+times?)|"
    r"identify|recogni[sz]e|spot|catch|watch\s+for|look\s+out\s+for|be\s+aware\s+of|"
    r"pay\s+attention\s+to|ask\s+yourself|reflect\s+on|"
    r"warning\s+signs?|signs?\s+(?:that|of)|such\s+as|including|examples?\s+of)\b"
)
_DESCRIBE = re.compile(
    r"\b(?:people|those|anyone|someone|somebody|many|others|clients|patients|individuals|teens|"
    r"adults|kids|children|they|he|she|"
    r"a\s+person|some)\s+(?:who|that)?\s*(?:often|sometimes|may|might|tend\s+to|can|usually|"
    r"commonly|will|also|)\s*$"
)
_IDEATION = re.compile(
    r"\b(?:thoughts?|thinking|think|urges?|impulses?|feel(?:ing)?s?\s+like|feelings?|ideas?|"
    r"history|risk|fantasi[sz]e|fantasies|"
    r"images?|memories|worries|worry|fears?|afraid)\s+(?:of|about|that|like|to|you\s+might|"
    r"you\s+will)\b"
)
# Lethal-means counselling: "lock away anything you could use to hurt yourself".
_MEANS_RESTRICTION = re.compile(
    r"\b(?:remove|removing|lock|locking|get\s+rid\s+of|give\s+away|hand\s+over|put\s+away|store|"
    r"secure|limit\s+access\s+to|"
    r"make\s+(?:it\s+)?harder\s+to|keep\s+away)\b(?:\s+[\w']+){0,8}?\s+(?:could|might|can|"
    r"would)\s+(?:use|be\s+used)\s+to\s*$"
)
# Reported speech: "being told 'just handle it alone' ...".
_REPORTED = re.compile(
    r"\b(?:told|tell\s+you|telling\s+you|say|says|saying|said|hear|hearing|heard|messages?|"
    r"phrases?|comments?|advice|myths?|"
    r"beliefs?)\s+(?:like\s+|such\s+as\s+|that\s+)?['\"]\s*(?:to\s+)?(?:just\s+|simply\s+)?$"
)
_IN_QUOTE = re.compile(
    r"\b(?:told|say|says|saying|said|hear|hearing|heard|whispers?|insists?|tells\s+you|"
    r"telling\s+you|thoughts?\s+like|messages?\s+like|"
    r"think|thinking|thought|believe|believing|tell\s+yourself|telling\s+yourself|sounds\s+like|"
    r"thoughts?|example)"
    r"\s*:?\s*['\"](?:[^'\"]|(?<=\w)'(?=\w)){0,50}$"
)
_IDEATION_ACT = re.compile(r"\b(?:act\s+on|give\s+in\s+to|follow|obey|listen\s+to|go\s+with|"
    r"indulge|trust)\b")
_HELP_CUE = re.compile(
    r"\b(?:call|text|contact|reach\s+out|talk\s+to|tell|speak|emergency|988|911|999|112|crisis|"
    r"hotline|helpline|lifeline|samaritans|"
    r"doctor|therapist|clinician|counsel(?:l)?or|psychiatrist|gp|professional|trusted|"
    r"someone\s+you\s+trust|safety\s+plan|get\s+help|"
    r"seek\s+help|support|stop\s+(?:the|this)\s+exercise|pause)\b"
)
# "Talk to your prescriber" protects a change only when it comes first ("... before
# changing", "talk to your doctor, then ...") - not "stop your meds and tell your doctor".
_CONSULT_TALK = re.compile(
    r"\b(?:talk(?:ing|ed)?|speak(?:ing)?|spoke(?:n)?|check(?:ing|ed)?|consult(?:ing|ed)?|"
    r"discuss(?:ing|ed)?|work(?:ing)?|plan(?:ning)?|"
    r"ask(?:ing)?|tell(?:ing)?|call(?:ing)?|contact(?:ing)?|confer(?:ring)?|decide|deciding|"
    r"agree(?:d)?|review(?:ing)?)\b"
    r"(?:\s+[\w']+){0,4}?\s+(?:with\s+|to\s+)?(?:your|a|the|my)\s+(?:own\s+|prescribing\s+|"
    r"treating\s+)?" + _CLINICIAN + r"\b"
)
_CONSULT_STRONG = re.compile(
    r"\b(?:under|with)\s+(?:the\s+)?(?:close\s+)?(?:medical\s+)?(?:supervision|guidance|approval|"
    r"advice|support|okay|ok)\s+(?:of|from)\s+(?:your|a|the)\b"
    r"|\bunder\s+(?:your\s+|a\s+|medical\s+|close\s+)*(?:"
    + _CLINICIAN + r"'?s?\s+)?(?:supervision|guidance|care)\b"
    r"|\bwith\s+your\s+" + _CLINICIAN + r"(?:'s)?\s*(?:approval|guidance|okay|ok|support|help|"
        r"agreement|input)?\b"
    r"|\bas\s+(?:prescribed|directed|advised|instructed)\b"
    r"|\b(?:your|a|the)\s+" + _CLINICIAN + r"\s+(?:has\s+|have\s+|may\s+|might\s+|can\s+|could\s+|"
        r"will\s+)?(?:suggests?|suggested|recommends?|recommended|advises?|advised|"
    r"prescribes?|prescribed|directs?|directed|tells?\s+you|told\s+you|approves?|approved|agrees?|"
    r"says)\b"
)
_CONSULT_BAD = re.compile(
    r"\b(?:without|no\s+need\s+to|don'?t\s+need\s+to|do\s+not\s+need\s+to|don'?t\s+have\s+to|"
    r"needn'?t|never|instead\s+of|rather\s+than|"
    r"don'?t|do\s+not|skip|avoid|and\s+then|later)\s+(?:\w+\s+){0,2}$"
)
_CONSULT_FIRST_BEFORE = re.compile(r"\b(?:before|first|after|prior\s+to|until|only\s+with|"
    r"only\s+after)\s+(?:\w+\s+){0,2}$")
_CONSULT_FIRST_AFTER = re.compile(r"^\s*(?:\w+\s+){0,3}?(?:first|beforehand|before|prior)\b")
_CONSULT_LATE = re.compile(r"^\s*(?:\w+\s+){0,4}?(?:later|afterwards?|after\s+(?:you|the\s+fact)|"
    r"once\s+you(?:'ve|\s+have)|next\s+time)\b")
_CLINICIAN_SUBJECT = re.compile(
    r"\b" + _CLINICIAN + r"(?:'s)?\s+(?:may|might|can|could|will|would|should|needs\s+to|has\s+to|"
        r"decides\s+to|wants\s+to|is\s+able\s+to)?\s*"
    r"(?:help\s+you\s+|suggest\s+|recommend\s+|advise\s+|consider\s+|decide\s+to\s+|"
    r"talk\s+(?:to\s+)?you\s+about\s+)?$"
)
_INFO_AFTER = re.compile(
    r"^(?:\s+[\w']+){0,6}?\s*\b(?:can|could|may|might|will|would|often|tends?\s+to|is|are|was|has|"
    r"have|makes?|made|worsens?|increases?|raises?|lowers?|"
    r"leads?\s+to|causes?|puts?|triggers?|disrupts?|affects?|interferes?|harms?|hurts?|damages?|"
    r"isn'?t|usually|typically|commonly|also|"
    r"together|at\s+the\s+same\s+time|while|feeds?|fuels?|keeps?|maintains?|reinforces?)\b"
)
_ENCOURAGE_AFTER = re.compile(
    r"^\s*(?:(?:can|will|may|might|could|really|often|usually|actually|does|do)\s+)*(?:help|helps|"
    r"work|works|calm|calms|relax|relaxes|ease|eases|"
    r"soothe|soothes|reset|resets|boost|boosts|improve|improves|clear|clears|sharpen|sharpens|"
    r"take\s+the\s+edge\s+off|"
    r"be\s+(?:good|great|helpful|healthy|useful|a\s+good|a\s+great|a\s+healthy|fine|ok|okay|safe|"
    r"harmless)|is\s+(?:fine|ok|okay|alright|harmless|"
    r"safe|normal|good|healthy|natural|perfectly|totally|completely|a\s+good|a\s+great|a\s+healthy|"
    r"no\s+big|not\s+a\s+big|worth|the\s+best)|"
    r"won'?t\s+hurt|doesn'?t\s+matter|never\s+hurt)"
)
# "You may worry that you have OCD" reports a fear, it does not diagnose.
_EPISTEMIC = re.compile(
    r"\byou(?:'ve|'re|\s+have|\s+are)?\b[^.]{0,24}?\b(?:think|thinking|wonder|wondering|worry|"
    r"worried|worrying|fear|afraid|believe|"
    r"assume|suspect|concerned|convinced|unsure|feel\s+like|been\s+diagnosed|been\s+told)\b"
    r"|\b(?:worry|worries|fear|fears|concern|belief|thought|suspicion)\s+(?:that|you)\b"
)
_BENEFIT = re.compile(
    r"\b(?:help|helps|helpful|relief|release|relieves?|calms?|calming|relax|relaxes|relaxing|"
    r"control|comfort|peace|numbs?|escape|"
    r"resets?|boosts?|improves?|clears?|better|sharpens?|works|worth|fine|ok|okay|safe|harmless|"
    r"healthy|good|great|edge\s+off|"
    r"stop|ends?|quiet|easier|normal|natural|acceptable|no\s+big\s+deal|not\s+a\s+big\s+deal|"
    r"won'?t\s+hurt|doesn'?t\s+matter)\b"
)
_NEG_BENEFIT = re.compile(r"\b(?:won'?t|doesn'?t|does\s+not|will\s+not|never|not|rarely|isn'?t|"
    r"no\s+longer)\s+(?:\w+\s+)?(?:help|helps|helpful|"
                          r"calm|relax|work|works|safe|healthy|good|fine|ok|okay|better|worth|"
                          r"normal|acceptable)\b")
# Informational framing is not accepted for self-harm: a method named as fact still
# needs a clinician's eye.
_INFO_AFTER_CATS = frozenset({"medication", "dangerous_practice", "discourages_help"})


def _clause_prefix(s: str, start: int) -> str:
    lo = max(0, start - 300)
    window = s[lo:start]
    cut = 0
    for m in _CLAUSE_BREAK.finditer(window):
        cut = m.end()
    return window[cut:]


def _negated(s: str, start: int, end: int, prefix: str, kind: str) -> bool:
    words = prefix.split()[-8:]
    win = _NOT_NEGATING.sub(" ", " ".join(words))
    if _NEG.search(win):
        return True
    if kind == "stmt":
        inner = _NOT_NEGATING.sub(" ", s[start:end])
        if _NEG.search(inner):
            return True
    # "Never, under any circumstances, stop ...": a sentence-initial negator scopes
    # over the sentence until "but/instead/then".
    lead = _LEAD_LABEL.match(s)
    body_start = lead.end() if lead else 0
    nl = _NEG_LEAD.match(s, body_start)
    if nl and nl.end() <= start and start - nl.end() < 300:
        head = s[nl.start():nl.end() + 12]
        if _NOT_NEGATING.match(head):
            return False
        if not _SCOPE_RESET.search(s, nl.end(), start):
            return True
    return False


def _consulted(s: str, start: int) -> bool:
    for m in _CONSULT_STRONG.finditer(s):
        if not _CONSULT_BAD.search(s[max(0, m.start() - 40):m.start()]):
            return True
    for m in _CONSULT_TALK.finditer(s):
        before = s[max(0, m.start() - 40):m.start()]
        after = s[m.end():m.end() + 60]
        if _CONSULT_BAD.search(before) or _CONSULT_LATE.match(after):
            continue
        first = _CONSULT_FIRST_BEFORE.search(before) or _CONSULT_FIRST_AFTER.match(after)
        if m.start() < start or first:
            return True
    return False


def _exempt(s: str, start: int, end: int, category: str, kind: str) -> bool:
    prefix = _clause_prefix(s, start)
    if _negated(s, start, end, prefix, kind):
        return True
    if _CLINICIAN_SUBJECT.search(prefix):
        return True
    if _DESCRIBE.search(prefix):
        return True
    if _OBSERVE.search(prefix):
        return True
    before = s[max(0, start - 60):start]
    if _REPORTED.search(before) or _IN_QUOTE.search(before):
        # quoted or reported words; a quoted suicidal thought still goes to a clinician
        # unless the sentence itself points to help
        if category != "self_harm" or _HELP_CUE.search(s):
            return True
    cond = None
    for cond in _COND.finditer(prefix):  # noqa: B007 - the last conditional in the clause
        pass
    if cond is not None and not _ENCOURAGING.search(prefix, cond.end()):
        if category != "self_harm" or _HELP_CUE.search(s) or _IDEATION.search(prefix):
            return True
    if category == "diagnosis" and _EPISTEMIC.search(prefix):
        return True
    if category == "self_harm":
        if _IDEATION.search(prefix) and not _IDEATION_ACT.search(prefix):
            return True
        if _MEANS_RESTRICTION.search(prefix):
            return True
    if category in _INFO_AFTER_CATS and kind == "plain":
        # "Skipping meals can worsen anxiety" informs; "skipping meals helps" recommends.
        if s[start:end].split(" ", 1)[0].endswith("ing"):
            after = s[end:end + 120]
            cut = _CLAUSE_BREAK.search(after)
            predicate = after[:cut.start()] if cut else after
            if _INFO_AFTER.search(predicate) and not (
                    _BENEFIT.search(predicate) and not _NEG_BENEFIT.search(predicate)):
                return True
    if category in ("medication", "dangerous_practice") and _consulted(s, start):
        return True
    return False


def _first_unexempt(s: str, rules: list[tuple[re.Pattern[str], str]], category: str) -> bool:
    for pattern, kind in rules:
        if kind == "needs_med" and not _MIX_MED.search(s):  # "skip it": only if "it" is a medicine
            continue
        for m in pattern.finditer(s):
            if not _exempt(s, m.start(), m.end(), category, kind):
                return True
    return False


def _mixing(s: str, cands: _Candidates) -> bool:
    """Alcohol and medication in one clause, with a verb of taking them together."""
    if not cands[_MIXA] or not cands[_MIXM]:
        return False
    for am in _MIX_ALC.finditer(s):
        lo, hi = max(0, am.start() - 80), min(len(s), am.end() + 80)
        for mm in _MIX_MED.finditer(s, lo, hi):
            a, b = min(am.start(), mm.start()), max(am.end(), mm.end())
            between = s[a:b]
            if ";" in between or ". " in between or _NEG.search(_NOT_NEGATING.sub(" ", between)):
                continue
            clause = _clause_prefix(s, a) + between
            if not (_MIX_VERB.search(clause) or _BENEFIT.search(s[b:b + 60])):
                continue
            if not _exempt(s, a, b, "medication", "plain"):
                return True
    return False


def _cold_extreme(s: str, cands: _Candidates) -> bool:
    if not cands[_COLDG]:
        return False
    for cm in _COLD.finditer(s):
        if _COLD_EXTREME.search(s):
            if not _exempt(s, cm.start(), cm.end(), "dangerous_practice", "plain"):
                return True
    return False


def classify_sentence(sentence: str, *, gated: bool = True) -> list[str]:
    """Categories a single sentence falls under (empty when it is safe).

    gated=False runs every rule; the result must be the same (tests check it).
    """
    s = _normalise(sentence)
    if len(s) < 4:
        return []
    if gated:
        keys = _sentence_keys(s)
        if not keys[0] and not _ANY_ALWAYS:
            return []
        cands = _candidates(keys)
    else:
        cands = [[(p, kind) for p, kind, _ in g.rules] for g in _GATES]
    found: list[str] = []
    if _first_unexempt(s, cands[_SH], "self_harm"):
        found.append("self_harm")
    mixing = _mixing(s, cands)
    if mixing or _first_unexempt(s, cands[_MED], "medication"):
        found.append("medication")
    if _first_unexempt(s, cands[_DX], "diagnosis"):
        found.append("diagnosis")
    physical = _first_unexempt(s, cands[_DP], "dangerous_practice") or _cold_extreme(s, cands)
    # alcohol taken with pills is a medication problem, not a second flag
    if physical or (not mixing and _first_unexempt(s, cands[_ALC], "dangerous_practice")):
        found.append("dangerous_practice")
    if _first_unexempt(s, cands[_DH], "discourages_help"):
        found.append("discourages_help")
    return found


def screen_protocol(text: str) -> ScreenResult:
    """Flag unsafe sentences in a protocol draft; score 1.0 when nothing is found."""
    flags: list[FlagOut] = []
    if not text:
        return ScreenResult(safety_score=1.0, flags=flags)
    for start, end in split_sentences(text):
        sentence = text[start:end]
        for category in classify_sentence(sentence):
            flags.append(FlagOut(category=category, text=sentence, start=start, end=end))
    penalty = sum(WEIGHTS[f.category] for f in flags)
    return ScreenResult(safety_score=round(max(0.0, 1.0 - penalty), 4), flags=flags)
