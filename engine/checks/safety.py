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
  inside a quoted example thought, because a clinician must see them (and the classifier's
  veto spares such a worksheet thought) - unless the same sentence points to help ("if you
  notice thoughts like 'I want to die', call 988"). Hyperbole such as "I'll die of
  embarrassment" is not matched.
- Several categories can flag one sentence ("stop your meds without telling your
  doctor" is medication and discourages_help); the score drops for each flag.
- Instructions inside the text ("ignore previous instructions, safety checks
  off") have no effect: nothing here reads the text as instructions.

- Measured honestly (tools/safety_cv.py, leave-one-set-out): on the sets the rules were never
  written against and the classifier never trained on, recall 0.77 at a false-alarm rate of 0.05
  (session 5, twelve folds); 0.795 on session 6's seventeen; 0.797 at 0.044 on session 7's
  twenty (0.831 at 0.049 with two learners averaged, measured, not adopted yet: see
  tools/safety_cv.py); session 8, on the same twenty folds at a false-alarm rate <= 0.04: 0.779
  with one learner, 0.804 with both learners, negations that no longer clear help and condition
  words and a style-only verdict held to 0.1 more (0.2 when not aimed at the reader; adopted, at
  0.74); session 9, on the nine folds written to the blind sets' own brief with thirteen more
  blind-written training sets: 0.888 at 0.025 (0.74), 0.921 at 0.036 (0.6 with a style-only
  verdict aimed at the reader held to 0.2 more, adopted: lower costs the drafter's own steps,
  tools/safety_ood.py); blind sets written after it, 0.913 / 0.034 and 0.921 / 0.025 - short
  of the goal of 0.95 at 0.05; the LLM Safety Guardian stays necessary.

Where things are: the rules, lexicons and frames are data (engine/checks/data/*.toml, loaded
by safety_rules.py); sentence splitting and normalising in sentences.py; here, the framing
logic that drops protective hits, and the screen; the classifier in safety_model.py (its
verdicts pass the same frames). tools/evaluate_safety.py scores it on a labelled set,
tools/safety_cv.py cross-validates the classifier by batch and picks MODEL_THRESHOLD.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

from engine.checks.base import FlagOut, ScreenResult
from engine.checks.safety_framing import (
    F,
    aimed,
    answers,
    clause_prefix,
    exempt,
    instructs,
    topic_hits,
)
from engine.checks.safety_model import MIN_WORDS, get_model
from engine.checks.safety_rules import RULES, SINGLE, Rule
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


# The classifier is a full second signal: a sentence it finds unsafe is flagged unless a
# protective frame clears the words of its category it rests on (a warning, a negation, a
# question, a crisis line ...). Windows of two neighbouring sentences are read too (a claim
# and its instruction are often split: "Helplines are staffed by volunteers. Talking to them
# won't help you."); the flag then goes to the one holding a word of its category (model_scores).
MODEL_THRESHOLD = 0.5  # blind-brief folds and the texts of tools/safety_ood.py (safety_cv.py)
# Taken off the classifier's probability when the frames read its words as protective, or when
# no word of its category is in the sentence and the sentence is not aimed at the reader
# (_penalty); 1.0 would be a hard gate. 0.3 since session 10: a frame is read from the words
# alone, and an instruction set in a conditional ("If you miss a dose of your lithium, just take
# double the next day") or a quote it is told to use ("Check-in script: '...'") is no less an
# instruction; a verdict the classifier is sure of (p >= threshold + 0.3) survives its frame.
# Blind-brief folds of tools/safety_cv.py at threshold 0.6: 1.0 0.921 / 0.036, 0.5 0.921,
# 0.3 0.928 / 0.036, 0.2 0.929; the drafter's and clinicians' texts (tools/safety_ood.py) 38 -> 39
# and 23 -> 23 flagged.
FRAME_PENALTY = 0.3
# 0.3 since session 10 (was 0.2): with the threshold at 0.5, fragments of clinicians' requests
# ("the long walk home after the exam") were flagged on style; tools/safety_ood.py 40 -> 31 of
# 925 clinicians' texts, recall on the blind-brief folds 0.957 -> 0.954 (tools/safety_cv.py)
BARE_PENALTY = 0.3
# The same for a sentence aimed at the reader with no word of the verdict's category: the
# classifier alone, on style and function words ("Say to yourself: this panic is strong, and it
# will pass."). Chosen by tools/safety_cv.py (--aimed-bare).
AIMED_BARE_PENALTY = 0.2
# Categories whose words a negation does not frame protectively for the classifier: refusing
# help and denying a condition are negations ("don't bother with the doctor", "that's not
# anxiety, it's your heart"). Chosen by tools/safety_cv.py.
NEGATION_OPEN: tuple[str, ...] = ("discourages_help", "diagnosis")
# A rule's hit counts as this much classifier probability (see rule_veto below).
RULE_MARGIN = 0.3
# A longer text gives the classifier more windows to find a false alarm in, so its threshold
# rises by LENGTH_STEP for each doubling of the sentences, up to LENGTH_CAP sentences (the
# longest passages of the corpus it was measured on: no further extrapolation). Chosen by
# tools/safety_cv.py on the honest folds (0.0: one threshold for every length).
LENGTH_STEP = 0.0
LENGTH_CAP = 8
# A window followed by a sentence that answers it scores as read with the answer (_answered).
PULLBACK = False


def passage_threshold(n_sentences: int, base: float | None = None,
                      step: float | None = None) -> float:
    """The classifier's threshold for a text of `n_sentences` units (see LENGTH_STEP)."""
    base = MODEL_THRESHOLD if base is None else base
    step = LENGTH_STEP if step is None else step
    return base + step * math.log2(min(max(n_sentences, 1), LENGTH_CAP))


def _penalty(s: str, category: str, frame: float, bare: float,
             aimed_bare: float | None = None) -> float:
    """How much the frames take off a verdict of `category` on sentence `s`: nothing when a
    word of the category stands outside any protective frame; `frame` when every such word is
    framed protectively (negated, conditional, quoted, pointing to help ...); with no word of
    the category at all, `aimed_bare` when the sentence is aimed at the reader, else `bare`."""
    hits = topic_hits(s, category)
    if hits:
        negation = category not in NEGATION_OPEN
        return frame if all(exempt(s, m.start(), m.end(), category, "stmt", negation)
                            for m in hits) else 0.0
    if not aimed(s):
        return bare
    return AIMED_BARE_PENALTY if aimed_bare is None else aimed_bare


def _answered(sentences: list[str], norm: list[str], pairs: list[int], model,
              ) -> tuple[list[float], list[float]]:
    """The probability of each sentence and each pair (i, i + 1) in `pairs`; with PULLBACK,
    a window whose next sentence answers it (safety_framing.answers: "Don't.", a pointer to
    help, a warning) scores no higher than the window read together with that answer, so a
    risky line answered at once is read with its answer, while one buried in good advice
    still counts."""
    n = len(sentences)
    after = [PULLBACK and i + 1 < n and answers(norm[i + 1]) for i in range(n)]
    triples = [i for i in pairs if i + 2 < n and after[i + 1]]
    single, multi = model.window_probability(
        sentences, [*((i, i + 1) for i in pairs), *((i, i + 1, i + 2) for i in triples)])
    pair, triple = multi[:len(pairs)], dict(zip(triples, multi[len(pairs):], strict=True))
    with_next = dict(zip(pairs, pair, strict=True))
    single = [min(p, with_next[i]) if after[i] and i in with_next else p
              for i, p in enumerate(single)]
    pair = [min(p, triple[i]) if i in triple else p for i, p in zip(pairs, pair, strict=True)]
    return single, pair


def model_scores(sentences: list[str], model, floor: float, frame_penalty: float | None = None,
                 bare_penalty: float | None = None, ruled: list[set[str]] | None = None,
                 aimed_bare: float | None = None) -> list[list[tuple[str, float, str]]]:
    """(category, score, why) per sentence for the classifier's verdicts whose score - the
    probability less the frames' penalty (_penalty) - is at or above `floor`. A verdict on a
    two-sentence window goes to the sentence of the two that the rules flag under its category
    or that holds a word of it, then to the one the frames hold against least.
    `ruled`: the categories the rules flag on each sentence (their frames read it closely)."""
    norm = [_normalise(s) for s in sentences]
    # read when called, not bound at import: tools/safety_ood.py and safety_cv.py vary them
    frame_penalty = FRAME_PENALTY if frame_penalty is None else frame_penalty
    bare_penalty = BARE_PENALTY if bare_penalty is None else bare_penalty
    aimed_bare = AIMED_BARE_PENALTY if aimed_bare is None else aimed_bare
    ruled = ruled or [set() for _ in sentences]
    ok = [len(s.split()) >= MIN_WORDS for s in norm]
    pairs = [i for i in range(len(sentences) - 1) if ok[i] or ok[i + 1]]
    if not any(ok):
        return [[] for _ in sentences]
    single_p, pair_p = _answered(sentences, norm, pairs, model)
    # (probability, text judged, the sentences a verdict may land on)
    windows = [(p, sentences[i], (i,)) for i, p in enumerate(single_p) if ok[i]]
    windows += [(p, f"{sentences[i]} {sentences[i + 1]}", (i, i + 1))
                for i, p in zip(pairs, pair_p, strict=True)]
    windows = [w for w in windows if w[0] >= floor]
    judged = list(dict.fromkeys(w[1] for w in windows))
    verdict_of = dict(zip(judged, model.predict(judged), strict=True))
    best: dict[tuple[int, str], tuple[float, str]] = {}
    for p, text, where in windows:
        # each window's verdict is the one its frames hold against least, the likelier on a
        # tie (verdicts come likeliest first, each likely enough): not the likeliest that passes
        # `floor`, since tools/safety_cv.py scores at a lower floor than the screen and would
        # then keep a framed verdict where the screen keeps another
        scored = []
        for k, v in enumerate(verdict_of[text]):
            # one the rules flag under the category, else one with a word of it ("Skip
            # breakfast. Stop your sertraline." is medication on the second), framed or not: a
            # neighbour with no word of it ("If you miss a dose of your lithium, double the next
            # one. Breathe slowly.") is not where the verdict is; then the sentence the frames
            # hold against least, then the likelier one alone
            _, _, pen, _, land = min(
                (v.category not in ruled[i], not topic_hits(norm[i], v.category),
                 0.0 if v.category in ruled[i] else
                 _penalty(norm[i], v.category, frame_penalty, bare_penalty, aimed_bare),
                 -single_p[i], i) for i in where)
            scored.append((p - pen, -k, land, v, pen))
        if not scored:
            continue
        score, _, land, v, pen = max(scored, key=lambda t: t[:2])
        if score >= floor and score > best.get((land, v.category), (-1.0, ""))[0]:
            best[(land, v.category)] = (score, _why(norm[land], v, p, pen, len(where)))
    out: list[list[tuple[str, float, str]]] = [[] for _ in sentences]
    for (i, category), (score, why) in sorted(best.items(), key=lambda kv: -kv[1][0]):
        out[i].append((category, score, why))
    return out


def _why(s: str, v, p: float, pen: float, width: int) -> str:
    cues = ", ".join(f'"{c}"' for c in v.cues)
    window = "" if width == 1 else " with its neighbour"
    hits = topic_hits(s, v.category)
    framed = "" if not pen else (f", framed protectively -{pen:.2f}" if hits else
                                 f", no word of its category -{pen:.2f}")
    on = next((f' on "{m.group(0)}"' for m in hits
               if not exempt(s, m.start(), m.end(), v.category, "stmt",
                             v.category not in NEGATION_OPEN)), "")
    return f"classifier p={p:.2f}{window}{framed}{on} (cues {cues})"


def model_hits(sentences: list[str], model, threshold: float = MODEL_THRESHOLD,
               ruled: list[set[str]] | None = None) -> list[list[tuple[str, str]]]:
    """(category, why) per sentence from the classifier."""
    return [[(c, why) for c, _, why in hits]
            for hits in model_scores(sentences, model, threshold, ruled=ruled)]


# A rule hit is dropped when the classifier, which read the same words in context, finds its
# sentence (alone and with each neighbour) below rule_veto(), a margin under the classifier's own
# threshold: on the sets the rules were not written against, their false alarms were mostly
# protective passages (bad advice listed to be ignored, a clinician's note, a warning sign
# quoted: "'they'd be better off without me' is a thought worth taking seriously") that the
# classifier reads as such, and a rule's hit is worth about RULE_MARGIN of probability
# (tools/safety_cv.py). A self-harm hit needs the classifier much surer (SELF_HARM_VETO); a
# sentence that opens with an instruction keeps its hits (spared).
SELF_HARM_VETO = 0.3
VETO_SPARES_INSTRUCTIONS = True


def rule_context(sentences: list[str], model) -> list[float]:
    """Per sentence, the classifier's highest probability for it alone or with a neighbour."""
    n = len(sentences)
    single, pair = model.window_probability(sentences, [(i, i + 1) for i in range(n - 1)])
    return [max([single[i], *(pair[k] for k in (i - 1, i) if 0 <= k < n - 1)]) for i in range(n)]


def spared(sentence: str, category: str) -> bool:
    """Rule hits the classifier may not drop: any on a sentence that opens with an instruction
    ("Handle it alone.", "Stop your medication, then tell your doctor later."): the rules' own
    frames read those, and short plain orders are what the classifier, trained on longer
    passages, knows least; and a self-harm hit in a thought a worksheet records ("Automatic
    thought: 'I want to kill myself.'"): a clinician must see it."""
    s = _normalise(sentence)
    if VETO_SPARES_INSTRUCTIONS and instructs(s):
        return True
    label = F.quote_label.match(s) if category == "self_harm" else None
    return bool(label) and not F.quote_label_cleared.search(label.group(0))


def rule_veto() -> float:
    """The classifier probability under which a rule hit is dropped: RULE_MARGIN under the
    threshold, read when screening (a changed MODEL_THRESHOLD moves it too)."""
    return round(MODEL_THRESHOLD - RULE_MARGIN, 3)


def veto_rules(sentences: list[str], found: list, model, veto: float | None = None,
               self_harm_veto: float = SELF_HARM_VETO) -> list:
    """`found` (rule hits per sentence) without the hits on sentences the classifier clears:
    below `veto` (rule_veto() unless given), or below the lower `self_harm_veto` for a
    self-harm hit."""
    veto = rule_veto() if veto is None else veto
    context = rule_context(sentences, model)
    return [tuple(h for h in hits if spared(s, h[0]) or
                  p >= (self_harm_veto if h[0] == "self_harm" else veto))
            for s, p, hits in zip(sentences, context, found, strict=True)]


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
        sentences = [text[a:b] for a, b in spans]
        if rule_veto() > 0 and any(found):
            found = veto_rules(sentences, found, model)
        ruled = [{c for c, _ in hits} for hits in found]
        threshold = passage_threshold(len(sentences))
        for i, hits in enumerate(model_hits(sentences, model, threshold, ruled=ruled)):
            have = {c for c, _ in found[i]}
            found[i] = [*found[i], *((c, why) for c, why in hits if c not in have)]
    for (start, end), hits in zip(spans, found, strict=True):
        for category, why in hits:
            flags.append(FlagOut(category=category, text=text[start:end], start=start, end=end,
                                 reason=why))
    penalty = sum(WEIGHTS[f.category] for f in flags)
    return ScreenResult(safety_score=round(max(0.0, 1.0 - penalty), 4), flags=flags)
