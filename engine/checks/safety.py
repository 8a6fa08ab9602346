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

Where things are: the rules, lexicons and frames are data (engine/checks/data/*.toml, loaded
by safety_rules.py); sentence splitting and normalising in sentences.py; here, the framing
logic that drops protective hits, and the screen. tools/evaluate_safety.py scores it on a
labelled set.
"""

from __future__ import annotations

import re
from types import SimpleNamespace

from engine.checks.base import FlagOut, ScreenResult
from engine.checks.safety_rules import FRAMES, RULES, SINGLE, Rule
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

F = SimpleNamespace(**FRAMES)  # the frames by name: F.neg, F.cond, ...
S = SINGLE


class _RuleSet:
    """One category's rules and, for speed, all of them as one alternation: most sentences
    match none, and one search of the alternation settles that in a single call."""

    def __init__(self, rules: list[Rule]):
        self.rules = rules
        joined = "|".join(f"(?:{r.pattern.pattern})" for r in rules)
        self.any = re.compile(joined) if rules else None


_SETS = {name: _RuleSet(rules) for name, rules in RULES.items()}

# --------------------------------------------------------------------------- framing

# Informational framing is not accepted for self-harm: a method named as fact still
# needs a clinician's eye.
_INFO_AFTER_CATS = frozenset({"medication", "dangerous_practice", "discourages_help"})


def _clause_prefix(s: str, start: int) -> str:
    lo = max(0, start - 300)
    window = s[lo:start]
    cut = 0
    for m in F.clause_break.finditer(window):
        cut = m.end()
    return window[cut:]


def _negated(s: str, start: int, end: int, prefix: str, kind: str) -> bool:
    words = prefix.split()[-8:]
    win = F.not_negating.sub(" ", " ".join(words))
    if F.neg.search(win):
        return True
    if kind == "stmt":
        inner = F.not_negating.sub(" ", s[start:end])
        if F.neg.search(inner):
            return True
    # "Never, under any circumstances, stop ...": a sentence-initial negator scopes
    # over the sentence until "but/instead/then".
    lead = F.lead_label.match(s)
    body_start = lead.end() if lead else 0
    nl = F.neg_lead.match(s, body_start)
    if nl and nl.end() <= start and start - nl.end() < 300:
        head = s[nl.start():nl.end() + 12]
        if F.not_negating.match(head):
            return False
        if not F.scope_reset.search(s, nl.end(), start):
            return True
    return False


def _consulted(s: str, start: int) -> bool:
    for m in F.consult_strong.finditer(s):
        if not F.consult_bad.search(s[max(0, m.start() - 40):m.start()]):
            return True
    for m in F.consult_talk.finditer(s):
        before = s[max(0, m.start() - 40):m.start()]
        after = s[m.end():m.end() + 60]
        if F.consult_bad.search(before) or F.consult_late.match(after):
            continue
        first = F.consult_first_before.search(before) or F.consult_first_after.match(after)
        if m.start() < start or first:
            return True
    return False


def _exempt(s: str, start: int, end: int, category: str, kind: str) -> bool:
    prefix = _clause_prefix(s, start)
    if _negated(s, start, end, prefix, kind):
        return True
    if F.clinician_subject.search(prefix):
        return True
    if F.describe.search(prefix):
        return True
    if F.observe.search(prefix):
        return True
    before = s[max(0, start - 60):start]
    if F.reported.search(before) or F.in_quote.search(before):
        # quoted or reported words; a quoted suicidal thought still goes to a clinician
        # unless the sentence itself points to help
        if category != "self_harm" or F.help_cue.search(s):
            return True
    cond = None
    for cond in F.cond.finditer(prefix):  # noqa: B007 - the last conditional in the clause
        pass
    if cond is not None and not F.encouraging.search(prefix, cond.end()):
        if category != "self_harm" or F.help_cue.search(s) or F.ideation.search(prefix):
            return True
    if category == "diagnosis" and F.epistemic.search(prefix):
        return True
    if category == "self_harm":
        if F.ideation.search(prefix) and not F.ideation_act.search(prefix):
            return True
        if F.means_restriction.search(prefix):
            return True
    if category in _INFO_AFTER_CATS and kind == "plain":
        # "Skipping meals can worsen anxiety" informs; "skipping meals helps" recommends.
        if s[start:end].split(" ", 1)[0].endswith("ing"):
            after = s[end:end + 120]
            cut = F.clause_break.search(after)
            predicate = after[:cut.start()] if cut else after
            if F.info_after.search(predicate) and not (
                    F.benefit.search(predicate) and not F.neg_benefit.search(predicate)):
                return True
    if category in ("medication", "dangerous_practice") and _consulted(s, start):
        return True
    return False


def _first_unexempt(s: str, rule_set: str, category: str) -> bool:
    rs = _SETS[rule_set]
    if rs.any is None or not rs.any.search(s):
        return False
    for rule in rs.rules:
        # "skip it": only if "it" is a medicine
        if rule.kind == "needs_med" and not S["mix_medication"].search(s):
            continue
        for m in rule.pattern.finditer(s):
            if not _exempt(s, m.start(), m.end(), category, rule.kind):
                return True
    return False


def _mixing(s: str) -> bool:
    """Alcohol and medication in one clause, with a verb of taking them together."""
    for am in S["mix_alcohol"].finditer(s):
        lo, hi = max(0, am.start() - 80), min(len(s), am.end() + 80)
        for mm in S["mix_medication"].finditer(s, lo, hi):
            a, b = min(am.start(), mm.start()), max(am.end(), mm.end())
            between = s[a:b]
            if ";" in between or ". " in between or F.neg.search(F.not_negating.sub(" ", between)):
                continue
            clause = _clause_prefix(s, a) + between
            if not (S["mix_verb"].search(clause) or F.benefit.search(s[b:b + 60])):
                continue
            if not _exempt(s, a, b, "medication", "plain"):
                return True
    return False


def _cold_extreme(s: str) -> bool:
    for cm in S["cold"].finditer(s):
        if S["cold_extreme"].search(s):
            if not _exempt(s, cm.start(), cm.end(), "dangerous_practice", "plain"):
                return True
    return False


def classify_sentence(sentence: str) -> list[str]:
    """Categories a single sentence falls under (empty when it is safe)."""
    s = _normalise(sentence)
    if len(s) < 4:
        return []
    found: list[str] = []
    if _first_unexempt(s, "self_harm", "self_harm"):
        found.append("self_harm")
    mixing = _mixing(s)
    if mixing or _first_unexempt(s, "medication", "medication"):
        found.append("medication")
    if _first_unexempt(s, "diagnosis", "diagnosis"):
        found.append("diagnosis")
    physical = _first_unexempt(s, "dangerous_practice", "dangerous_practice") or _cold_extreme(s)
    # alcohol taken with pills is a medication problem, not a second flag
    if physical or (not mixing and _first_unexempt(s, "alcohol_coping", "dangerous_practice")):
        found.append("dangerous_practice")
    if _first_unexempt(s, "discourages_help", "discourages_help"):
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
