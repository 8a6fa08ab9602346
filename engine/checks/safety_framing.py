"""How the safety screen reads the frame around a rule's hit: is it an instruction or
encouragement aimed at the reader, or a protective mention - negated ("never stop your
medication"), conditional ("if you have thoughts of hurting yourself, call 988"), observed
("notice when you skip meals"), described ("people who skip meals..."), informational
("skipping meals can worsen anxiety"), quoted or reported, or routed through a clinician
("talk to your prescriber before changing your dose")? The frame patterns are data
(engine/checks/data/safety_frames.toml); the order in which they are asked is here."""

from __future__ import annotations

import re
from types import SimpleNamespace

from engine.checks.safety_rules import FRAMES, compile_pattern

F = SimpleNamespace(**FRAMES)  # the frames by name: F.neg, F.cond, ...

# Informational framing is not accepted for self-harm: a method named as fact still
# needs a clinician's eye.
_INFO_AFTER_CATS = frozenset({"medication", "dangerous_practice", "discourages_help"})

# The words of each category a verdict can rest on (lexicon names).
TOPICS = {
    "self_harm": ("death", "harm", "means", "farewell"),
    "medication": ("med_any",),
    "diagnosis": ("condition_any",),
    "dangerous_practice": ("practice",),
    "discourages_help": ("help_any",),
}
_TOPIC_RE = {c: [compile_pattern(rf"\b<<{n}>>\b", f"topic {n}") for n in names]
             for c, names in TOPICS.items()}
_READER = compile_pattern(r"\b<<reader>>\b", "lexicon reader")
_IMPERATIVE = compile_pattern(r"[^a-z]*<<imperative>>\b", "lexicon imperative")


def topic_hits(s: str, category: str) -> list[re.Match[str]]:
    """The words of `category` in the normalised sentence `s`."""
    return [m for topic in _TOPIC_RE[category] for m in topic.finditer(s)]


def instructs(s: str) -> bool:
    """The sentence opens with an instruction (after a label such as "Step 3:")."""
    lead = F.lead_label.match(s)
    return bool(_IMPERATIVE.match(s, lead.end() if lead else 0))


def aimed(s: str) -> bool:
    """The sentence speaks to the reader or opens with an instruction."""
    return bool(_READER.search(s)) or instructs(s)


def clause_prefix(s: str, start: int) -> str:
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


def exempt(s: str, start: int, end: int, category: str, kind: str,
           negation: bool = True) -> bool:
    """The words s[start:end] of `category` are framed protectively. `negation`: a negation
    counts as such a frame (not for the classifier's help and condition words, where the
    negation is often the harm: "don't bother with the doctor", "that's not anxiety")."""
    prefix = clause_prefix(s, start)
    if _shown_or_warned(s, start, end, category):
        return True
    if negation and _negated(s, start, end, prefix, kind):
        return True
    if F.clinician_subject.search(prefix):
        return True
    if F.describe.search(prefix) or F.describe_other.search(prefix):
        return True
    if F.observe.search(prefix):
        return True
    before = s[max(0, start - 60):start]
    if F.third_party_quote.search(s[max(0, start - 160):start]):
        return True
    # a quotation standing alone, or advice attributed to a medium (a quoted or reported
    # suicidal statement still goes to a clinician)
    if category != "self_harm" and (F.whole_quote.match(s) or F.media_source.search(prefix)):
        return True
    if F.reported.search(before) or F.in_quote.search(before):
        # quoted or reported words; a quoted suicidal thought still goes to a clinician
        # unless the sentence points to help or asks the reader to question the thought
        if category != "self_harm" or F.help_cue.search(s) or F.challenge.search(s):
            return True
    cond = None
    for cond in F.cond.finditer(prefix):  # noqa: B007 - the last conditional in the clause
        pass
    if cond is not None and not F.encouraging.search(prefix, cond.end()):
        if category != "self_harm" or F.help_cue.search(s) or F.ideation.search(prefix):
            return True
    if category == "self_harm" and _conditional_help(s, start):
        return True
    if _asked(s, start, end) or _urge(prefix):
        return True
    if (category != "discourages_help" and F.info_inner.search(s[start:min(len(s), end + 60)])
            and not F.encouraging.search(prefix)):
        return True
    if category == "diagnosis" and F.epistemic.search(prefix):
        return True
    if category == "self_harm":
        if F.ideation.search(prefix) and not F.ideation_act.search(prefix):
            return True
        if F.means_restriction.search(prefix):
            return True
    if category in _INFO_AFTER_CATS and kind in ("plain", "stmt"):
        # "Skipping meals can worsen anxiety" informs; "skipping meals helps" recommends.
        lead = prefix.split()
        if s[start:end].split(" ", 1)[0].endswith("ing") or (
                len(lead) <= 2 and lead and lead[-1].endswith("ing")):
            after = s[end:end + 120]
            cut = F.clause_break.search(after)
            predicate = after[:cut.start()] if cut else after
            if F.info_after.search(predicate) and not (
                    F.benefit.search(predicate) and not F.neg_benefit.search(predicate)):
                return True
    if category in ("medication", "dangerous_practice") and _consulted(s, start):
        return True
    return False


def _conditional_help(s: str, start: int) -> bool:
    """"If you are thinking about X, Y or Z, ... call 988": a condition earlier in the
    sentence (not only in the hit's clause) that leads to help, with no encouragement."""
    cond = F.cond.search(s, 0, start)
    return bool(cond and F.help_cue.search(s) and not F.encouraging.search(s, cond.end(), start))


def _asked(s: str, start: int, end: int) -> bool:
    """The hit sits in a question ("should I stop my Prozac?")."""
    q = s.find("?", end)
    if q < 0 or any(c in s[end:q] for c in ".!;"):
        return False
    return bool(F.question_lead.search(s[max(0, start - 40):end]))


def _urge(prefix: str) -> bool:
    """The reader feels drawn to it ("the urge to skip ..."), not told to act on it."""
    return bool(F.urge.search(prefix)) and not F.ideation_act.search(prefix)



def _shown_or_warned(s: str, start: int, end: int, category: str) -> bool:
    """A quoted example to work with, a hit the sentence calls a warning sign or dangerous,
    or permission that is for telling someone."""
    label = F.quote_label.match(s)
    if label and label.end() <= start + 1 and (
            category != "self_harm" or F.quote_label_cleared.search(label.group(0))
            or F.challenge.search(s) or F.help_cue.search(s)):
        return True
    after = s[end:]
    warn = F.warning_after.match(after)
    if warn and not F.scope_reset.search(after, 0, warn.end()):
        return True
    return bool(F.permission_to_help.search(s))


def answers(s: str) -> bool:
    """The normalised sentence `s` may answer a risky line just before it: it opens with a
    negation ("Don't.", "Never do that"), points to help or a clinician, or calls something
    dangerous or a warning sign."""
    lead = F.lead_label.match(s)
    return bool(F.neg_lead.match(s, lead.end() if lead else 0) or F.help_cue.search(s)
                or F.consult_strong.search(s) or F.warning_after.search(s))
