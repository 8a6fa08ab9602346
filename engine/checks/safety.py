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

- Measured honestly (tests/data/safety_fresh_README.md): on passages written by someone
  who never saw the rules and never used for tuning, recall 0.43 at a false-alarm rate of
  0.07 - far from catching everything; the LLM Safety Guardian stays necessary.

Where things are: the rules, lexicons and frames are data (engine/checks/data/*.toml, loaded
by safety_rules.py); sentence splitting and normalising in sentences.py; here, the framing
logic that drops protective hits, and the screen. tools/evaluate_safety.py scores it on a
labelled set.
"""

from __future__ import annotations

import re
from functools import lru_cache

from engine.checks.base import FlagOut, ScreenResult
from engine.checks.safety_framing import F, clause_prefix, exempt
from engine.checks.safety_model import get_model
from engine.checks.safety_rules import RULES, SINGLE, Rule, compile_pattern
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

S = SINGLE


class _RuleSet:
    """One category's rules and, for speed, all of them as one alternation: most sentences
    match none, and one search of the alternation settles that in a single call."""

    def __init__(self, rules: list[Rule]):
        self.rules = rules
        regex = [r for r in rules if r.pattern is not None]
        joined = "|".join(f"(?:{r.pattern.pattern})" for r in regex)
        self.any = re.compile(joined) if regex else None
        self.near = [r for r in rules if r.near is not None]


_SETS = {name: _RuleSet(rules) for name, rules in RULES.items()}


def _first_unexempt(s: str, rule_set: str, category: str) -> str | None:
    """Why the first hit of the set that no protective frame clears is unsafe, or None."""
    rs = _SETS[rule_set]
    # the regex rules only when their alternation finds something; near-rules scan cheaply
    rules = rs.rules if rs.any is not None and rs.any.search(s) else rs.near
    for n, rule in enumerate(rs.rules, 1):
        if rule not in rules:
            continue
        # "skip it": only if "it" is a medicine
        if rule.kind == "needs_med" and not S["mix_medication"].search(s):
            continue
        for start, end in rule.spans(s):
            if not exempt(s, start, end, category, rule.kind):
                what = "near-rule" if rule.near else "rule"
                return f'{what} {rule_set} #{n} matched "{s[start:end].strip()}"'
    return None


def _mixing(s: str) -> str | None:
    """Alcohol and medication in one clause, with a verb of taking them together."""
    for am in S["mix_alcohol"].finditer(s):
        lo, hi = max(0, am.start() - 80), min(len(s), am.end() + 80)
        for mm in S["mix_medication"].finditer(s, lo, hi):
            a, b = min(am.start(), mm.start()), max(am.end(), mm.end())
            between = s[a:b]
            if ";" in between or ". " in between or F.neg.search(F.not_negating.sub(" ", between)):
                continue
            clause = clause_prefix(s, a) + between
            if not (S["mix_verb"].search(clause) or F.benefit.search(s[b:b + 60])):
                continue
            if not exempt(s, a, b, "medication", "plain"):
                return f'alcohol taken with medication: "{between}"'
    return None


def _cold_extreme(s: str) -> str | None:
    for cm in S["cold"].finditer(s):
        if S["cold_extreme"].search(s):
            if not exempt(s, cm.start(), cm.end(), "dangerous_practice", "plain"):
                return f'extreme cold: "{cm.group(0)}"'
    return None


def explain_sentence(sentence: str) -> list[tuple[str, str]]:
    """(category, why) for each category the rules find a single sentence unsafe under."""
    s = _normalise(sentence)
    return list(_explain(s)) if len(s) >= 4 else []


# A loop screens the same sentences again and again (each revision keeps most of them, the
# critics and the gate screen the same text), so verdicts are kept per normalised sentence.
@lru_cache(maxsize=16384)
def _explain(s: str) -> tuple[tuple[str, str], ...]:
    found: list[tuple[str, str]] = []
    if why := _first_unexempt(s, "self_harm", "self_harm"):
        found.append(("self_harm", why))
    mixing = _mixing(s)
    if why := mixing or _first_unexempt(s, "medication", "medication"):
        found.append(("medication", why))
    if why := _first_unexempt(s, "diagnosis", "diagnosis"):
        found.append(("diagnosis", why))
    why = _first_unexempt(s, "dangerous_practice", "dangerous_practice") or _cold_extreme(s)
    # alcohol taken with pills is a medication problem, not a second flag
    if why or (not mixing and (why := _first_unexempt(s, "alcohol_coping", "dangerous_practice"))):
        found.append(("dangerous_practice", why))
    if why := _first_unexempt(s, "discourages_help", "discourages_help"):
        found.append(("discourages_help", why))
    return tuple(found)


def classify_sentence(sentence: str) -> list[str]:
    """Categories a single sentence falls under (empty when it is safe)."""
    return [category for category, _ in explain_sentence(sentence)]


# The classifier's second signal must land on a topic of its category that no protective
# frame clears: it learns how unsafe sentences are phrased, the frames keep it off warnings.
_TOPICS = {
    "self_harm": ("death", "harm", "means", "farewell"),
    "medication": ("med_any",),
    "diagnosis": ("condition_any",),
    "dangerous_practice": ("practice",),
    "discourages_help": ("help_any",),
}
_TOPIC_RE = {c: [compile_pattern(rf"\b<<{n}>>\b", f"topic {n}") for n in names]
             for c, names in _TOPICS.items()}
_ANY_TOPIC = [t for topics in _TOPIC_RE.values() for t in topics]
MODEL_MIN_WORDS = 6
MODEL_THRESHOLD = 0.7  # 5-fold on fresh1: +recall, no added false alarm (see README)


def model_hits(sentences: list[str], model, threshold: float = MODEL_THRESHOLD,
               ) -> list[list[tuple[str, str]]]:
    """(category, why) per sentence from the classifier, each on an unexempt topic."""
    out: list[list[tuple[str, str]]] = [[] for _ in sentences]
    norm = [_normalise(s) for s in sentences]
    # only sentences with some topic can be flagged, so only they go to the classifier,
    # and a heading or fragment ("Tips from your therapist") is too short for it to judge
    todo = [i for i, s in enumerate(norm)
            if len(s.split()) >= MODEL_MIN_WORDS and any(t.search(s) for t in _ANY_TOPIC)]
    if not todo:
        return out
    for i, verdicts in zip(todo, model.predict([sentences[i] for i in todo], threshold),
                           strict=True):
        s = norm[i]
        for v in verdicts:
            if v.probability < threshold:
                break
            for topic in _TOPIC_RE[v.category]:
                hit = next((m for m in topic.finditer(s)
                            if not exempt(s, m.start(), m.end(), v.category, "stmt")), None)
                if hit:
                    cues = ", ".join(f'"{c}"' for c in v.cues)
                    out[i].append((v.category, f'classifier p={v.probability:.2f} on '
                                   f'"{hit.group(0)}" (cues {cues})'))
                    break
    return out


def screen_protocol(text: str, *, use_model: bool = True) -> ScreenResult:
    """Flag unsafe sentences in a protocol draft; score 1.0 when nothing is found. Each flag
    names its sentence (exact span) and why (flag.reason): a rule and the words it matched, or
    the classifier's probability, the topic it landed on and its cues."""
    flags: list[FlagOut] = []
    if not text:
        return ScreenResult(safety_score=1.0, flags=flags)
    spans = split_sentences(text)
    found = [explain_sentence(text[a:b]) for a, b in spans]
    model = get_model() if use_model else None
    if model is not None:
        for i, hits in enumerate(_model_hits_cached(tuple(text[a:b] for a, b in spans), model)):
            have = {c for c, _ in found[i]}
            found[i] += [(c, why) for c, why in hits if c not in have]
    for (start, end), hits in zip(spans, found, strict=True):
        for category, why in hits:
            flags.append(FlagOut(category=category, text=text[start:end], start=start, end=end,
                                 reason=why))
    penalty = sum(WEIGHTS[f.category] for f in flags)
    return ScreenResult(safety_score=round(max(0.0, 1.0 - penalty), 4), flags=flags)


def _model_hits_cached(sentences: tuple[str, ...], model) -> list[list[tuple[str, str]]]:
    """The classifier on the sentences it has not seen yet (a loop repeats most of them)."""
    todo = [s for s in dict.fromkeys(sentences) if s not in _MODEL_CACHE]
    for s, hits in zip(todo, model_hits(todo, model), strict=True):
        if len(_MODEL_CACHE) >= 16384:
            _MODEL_CACHE.clear()
        _MODEL_CACHE[s] = hits
    return [list(_MODEL_CACHE[s]) for s in sentences]


_MODEL_CACHE: dict[str, list[tuple[str, str]]] = {}
