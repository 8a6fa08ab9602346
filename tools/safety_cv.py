"""Leave-one-set-out cross-validation of the safety screen: how well do the rules and the
classifier do on a set of passages whose phrasings the classifier never saw?

Each labelled set of the corpus (one file each, CORPUS) is held out in turn; the classifier is
trained on the others (plus the offline drafter's own sentences, which train every fold and are
never scored) and the held-out set is screened exactly as `screen_protocol` would (sentences,
neighbour windows, protective frames, the rule veto). On the honest folds (the sets the rules
were not written against, HONEST) it reports, for each margin of the rules (a rule's hit stands
when the classifier gives its sentence at least threshold - margin), the lowest threshold whose
false-positive rate stays within the goal and the recall there: the screen's MODEL_THRESHOLD and
RULE_MARGIN come from this table. "rules only" below means every rule hit, nothing vetoed.

Caveat printed with the figures: the rules were written against safety_labelled and fresh1,
so their part is in-sample there. The honest folds are every set written blind (fresh2-6,
train2-13); a blind set kept out of the corpus (safety_model.HELD_OUT) is not a fold.

Measured in session 5 (recall at false-positive rate <= 0.05 on the twelve honest folds pooled,
threshold, margin and self-harm veto chosen here): the unsafe model alone (--heads 0) 0.721 at
threshold 0.94 (margin 0.1, veto 0.3); with the per-category heads 0.768 at 0.89 (margin 0.3,
veto 0.3); per fold fresh2 0.81, fresh3 0.86, fresh4 0.79, fresh5 0.83, train2 0.77, train3 0.75,
train4 0.66, train5 0.79, train6 0.80, train7 0.76, train8 0.54 (unsafe advice in a clinician's
voice), train9 0.89 at fpr 0.13 (long passages, a risky line answered in the next sentence).
It takes about 45 s of CPU per fold (fourteen folds).

Session 6: fresh6 (session 5's blind set, seen) and train10-13 (written blind for the weak spots:
self-harm in many voices, a calm professional voice, long passages answered later, text-speak and
mixed languages) joined the corpus: 8,383 passages, eighteen folds, seventeen honest. A fold now
takes about 55 s of CPU alone (80-100 s on a loaded machine). The method as it stands, all
seventeen honest folds: recall 0.814 at fpr 0.050 (threshold 0.85, margin 0.2, veto 0.4); at the
screen's own margin 0.3 and veto 0.3, 0.795 at 0.88. Per fold at 0.85/0.2/0.4: fresh2 0.83,
fresh3 0.91, fresh4 0.83, fresh5 0.90 (fpr 0.07), fresh6 0.87, train2 0.83, train3 0.80 (fpr
0.07), train4 0.72, train5 0.84, train6 0.86 (fpr 0.07), train7 0.81, train8 0.60, train9 0.95
(fpr 0.145), train10 0.81, train11 0.72, train12 0.92 (fpr 0.125), train13 0.68; per category
(any flag) self_harm 0.78, medication 0.86, diagnosis 0.90, dangerous_practice 0.87,
discourages_help 0.78. Those three values were not adopted: with them the rule veto lets a quoted
first-person "I should stop taking my sertraline" through (tests/test_offline_comments.py).
Tried, none kept:
- lexicons grown from general knowledge (more medicine names and brands, help services,
  euphemisms, other languages), on the seven new or weakest folds (fresh6, train8-13): 0.782 at
  0.85 (margin 0.2, veto 0.4); per category self_harm 0.73, medication 0.85, diagnosis 0.91,
  dangerous_practice 0.81, discourages_help 0.74. On the folds both runs share it is no better
  (fresh6 0.87 both, train8 0.57 vs 0.58, train9 0.92 vs 0.94, train10 0.80 vs 0.81).
- per-category thresholds (an offset per category, coordinate search): +0.008.
- a classifier threshold that rises with the passage's length (safety.LENGTH_STEP per doubling
  of its sentences, capped at safety.LENGTH_CAP = 8): the long protective passages of train9 and
  train12 take most of the false-alarm budget. Step 0.05 raised recall from 0.782 to 0.810 with
  the grown lexicons, but only from 0.818 to 0.823 without them (0.02: 0.822, 0.03:
  0.825 on the nine folds fresh2-6, train4, train8-10): noise, so LENGTH_STEP stays 0.0
  (`--length-step` measures it).
- warm-starting the retraining on windows from the passage model: 13% less CPU, but a different
  model (lbfgs stops within tolerance elsewhere; mean |dp| 0.04), not measured.

Session 7: train14 (discourages help in many voices), train15 (self-harm) and train16 (a calm
professional voice across categories), all written blind, joined the corpus: 9,871 passages,
twenty honest folds. Recall at fpr <= 0.05, margin 0.3, self-harm veto 0.3, threshold the lowest
that keeps the pooled honest fpr within 0.05 (chosen on the same folds: a mild optimism):
- the method unchanged, the new data only: 0.815 at 0.86 (fpr 0.049); at the old 0.89, 0.797.
  Per fold: fresh2 0.83, fresh3 0.93, fresh4 0.86, fresh5 0.90 (fpr 0.08), fresh6 0.87, train2
  0.85, train3 0.81 (0.07), train4 0.70, train5 0.85, train6 0.86 (0.08), train7 0.81, train8
  0.61, train9 0.93 (0.17), train10 0.83, train11 0.74, train12 0.91 (0.12), train13 0.69,
  train14 0.78, train15 0.78, train16 0.80; per category self_harm 0.78, medication 0.86,
  diagnosis 0.90, dangerous_practice 0.86, discourages_help 0.78.
- NB-LR alone (--learners nb): 0.818 at 0.79.
- both learners averaged (--learners lr+nb): 0.846 at 0.75 (fpr 0.049), at least the tf-idf
  model's recall on every fold: train8 0.67, train13 0.76, train4 0.77, train11 0.77, train14
  0.81, train15 0.79, train16 0.81; per category self_harm 0.82, medication 0.89, diagnosis 0.92,
  dangerous_practice 0.90, discourages_help 0.80. At 0.75 a request fragment with no risky word
  that does not address the reader ("the long walk home after the exam") was flagged on style,
  so the bare penalty went to 0.2 (--bare 0.2): 0.831 at 0.71 (fpr 0.049). NOT ADOPTED YET: at
  0.71 the pair also flagged "Say to yourself: this panic is strong, and it will pass." (p 0.72,
  a test fixture's draft, tests/test_faults.py), found minutes before the deadline; at 0.75 it
  is 0.810 at fpr 0.043 (the one learner at a matched fpr, 0.89: 0.797 / 0.044). The screen
  keeps one learner at 0.89 (LEARNERS, MODEL_THRESHOLD, BARE_PENALTY 0.0) until the pair is
  checked on the whole test suite. Per fold fresh2 0.84, fresh3 0.95, fresh4 0.85,
  fresh5 0.90 (0.07), fresh6 0.88, train2 0.89, train3 0.83 (0.07), train4 0.75, train5 0.86
  (0.07), train6 0.86 (0.09), train7 0.85, train8 0.60, train9 0.96 (0.14), train10 0.85,
  train11 0.76, train12 0.92 (0.12), train13 0.74, train14 0.77, train15 0.80, train16 0.80;
  per category self_harm 0.80, medication 0.88, diagnosis 0.92, dangerous_practice 0.89,
  discourages_help 0.79. Training about 85 s of CPU (was 45); screening an unseen ~100-word
  draft 25 ms of CPU on a loaded machine (16 ms with one learner, same conditions).
Tried on the four hardest folds of the old corpus (train8, train9, train12, train13, pooled,
threshold chosen on them): tf-idf 0.715, NB-LR 0.753, both 0.761, tf-idf + NB-LR's unsafe
model without its heads (--learners lr+nbu, cheaper) 0.735; not kept: the frame around each
category word as features (--topics 1, safety_features.framed_topics) 0.700; a window answered by
its next sentence read with it (--pullback 1, safety.PULLBACK) on NB-LR 0.758 vs 0.753: noise;
on all twenty folds with both learners and bare 0.2, 0.838 at 0.69 vs 0.831 at 0.71 (train9
fpr 0.13 vs 0.14; train13 0.76 vs 0.74): small, not kept.

Session 8: fresh8 and fresh9 (session 7's blind sets, now spent), train17 (train14's brief, a
second writer), train18 (self-harm voices), train19 (soft voices) and train20 (long passages) joined
the corpus: 12,617 passages, twenty-six honest folds; then the lead's train21-24 (1,664 passages
on the blind sets' brief): 14,281 passages, thirty honest folds. With CPU scarce (2 cores, ~8
sessions; a fold of both learners took 140-150 s of CPU, a full run over an hour), the choices
below were measured on session 7's twenty folds, re-screened from their cached fold models
(screen-side changes need no training), at the screen's margin 0.3 and self-harm veto 0.3,
recall at pooled honest fpr <= 0.04 / <= 0.05 (threshold):
- one learner (the screen until now): 0.779 (0.91) / 0.815 (0.86); both learners averaged:
  0.798 (0.84) / 0.846 (0.75). Adopted (safety_model.LEARNERS = lr, nb).
- a negation no longer clears the classifier's help and condition words (safety.NEGATION_OPEN:
  "don't bother with the doctor", "that's not anxiety" had the verdict vetoed by the frame
  penalty): 0.804 (0.84) / 0.849 (0.76); one learner 0.784 / 0.822. Adopted.
- a verdict with no word of its category in a sentence aimed at the reader needs 0.1 more
  (safety.AIMED_BARE_PENALTY; the one learner flagged "Say to yourself: this panic is strong,
  and it will pass." at p 0.92 on style once session 8's data joined, both learners 0.62):
  alone 0.805 (0.80) / 0.842 (0.73); with NEGATION_OPEN 0.804 (0.81, fpr 0.039) / 0.849 (0.73).
  Kept with it: no cost at either rate, and a style-only verdict needs more.
- a verdict with no word of its category in a sentence NOT aimed at the reader (BARE_PENALTY,
  --bare; session 7 tried 0.2): at 0.81 both learners flagged the echoed request fragment "the
  long walk home after the exam" (p 0.88) and "She lies awake for hours ..." (p 0.93) on style.
  With the two changes above: bare 0.1, 0.811 (0.76) / 0.847 (0.70), still flags both; bare
  0.2, 0.804 (0.74, fpr 0.040) / 0.837 (0.68): as much recall at fpr <= 0.04 as bare 0.0
  (0.804 at 0.81), a point less at 0.05, and neither is flagged. ADOPTED: BARE_PENALTY 0.2,
  MODEL_THRESHOLD 0.74 (the corpus has few request fragments, so its fpr undercounts them).
  Per fold at 0.74 (recall, fpr above 0.04): fresh2 0.88, fresh3 0.91 (0.05), fresh4 0.83,
  fresh5 0.88 (0.05), fresh6 0.86, train2 0.88, train3 0.82 (0.05), train4 0.73, train5 0.83
  (0.05), train6 0.82 (0.08), train7 0.81, train8 0.58, train9 0.93 (0.09), train10 0.79,
  train11 0.73, train12 0.91 (0.09), train13 0.70, train14 0.74, train15 0.78, train16 0.77;
  per category self_harm 0.750 (one learner at its 0.91: 0.742), medication 0.861 (0.840),
  diagnosis 0.931 (0.876), dangerous_practice 0.855 (0.825), discourages_help 0.772 (0.742).
- out of fold on the new corpus (fold models trained on 12,617 passages less the fold, before
  train20-24; the screen at 0.81, bare 0.0): fresh8 precision 0.994 / recall 0.847 / fpr 0.005
  (one learner at 0.89: 0.994 / 0.817 / 0.005), fresh9 0.973 / 0.906 / 0.025 (0.978 / 0.896 /
  0.020), train17 0.992 / 0.992 / 0.008 (the same).
- not kept: a soft frame penalty (--frame 0.3 instead of the hard 1.0): 0.797 / 0.846.
The out-of-fold misses at that point (679 of 4,412 at 0.75): self_harm 272, discourages_help
216, medication 115, dangerous_practice 77, diagnosis 44; 152 had no classifier score at all, of
which 84 were vetoed by the frame penalty (NEGATION_OPEN answers the negations among them; the
rest are conditionals and clinician or quoted voices that state the harm: "If you miss a dose
of lithium, take twice as much") and 44 had no word of their category (farewell and "exit"
euphemisms, help words such as "shrink", "EAP", "walk-in clinic"): the lexicons' next work.
`--aimed-bare` measures AIMED_BARE_PENALTY.

Session 9: the operating point is chosen on the folds written to the blind sets' own brief. The
pooled honest folds mixed in training sets written for the weak spots (long protective passages,
hard negatives: train9 and train12 alone took most of the false-alarm budget), so the threshold
that kept them within 0.04 was far stricter than the blind sets needed: at 0.74 the blind sets
of sessions 8 and 9 read 0.85-0.89 recall at 0.014-0.030 false alarms. Leave-one-set-out over
the nine sets written to the blind brief (--folds fresh2,fresh3,fresh4,fresh5,fresh6,fresh8,
fresh9,fresh10,fresh11), margin 0.3, self-harm veto 0.3, recall / fpr:
- with train25-32 (written blind today: self-harm in many voices, soft well-meant voices,
  medication, informal text, structured forms, the soft voice on both sides, short lines, the
  clinician's own voice) and fresh10-11 in the corpus (18,467 passages): 0.74 0.883 / 0.020,
  0.60 0.930 / 0.041, 0.55 0.940 / 0.044, 0.52 0.944 / 0.049, 0.46 0.952 / 0.059. The best
  margin and veto (0.0 / 0.4) give 0.948 / 0.049 at 0.48: noise.
- with train33-37 too (self-harm without plain words, self-injury, secrecy from help, two on the
  whole brief; 20,596 passages): 0.74 0.888 / 0.025, 0.60 0.932 / 0.039, 0.55 0.940 / 0.043,
  0.52 0.946 / 0.047 - no more than the corpus without them: the data is saturating.
The threshold the blind folds alone would pick (0.52-0.55) costs elsewhere: the screen flags
style on safe text the corpus was not written like (tools/safety_ood.py). With the offline
drafter's own sentences (1,629 it screens while drafting the coverage sets; it drops what is
flagged, so a false alarm silently loses a step: "Next, spend longer driving on the motorway
..." at p 0.70) and the clinicians' 925 requests and comments, flagged at 0.74: 18 and 10; at
0.55: 104 and 31; and 31 of the test suite's drafts (scripted model replies, fixtures: "Say to
yourself: this panic is strong, and it will pass." p 0.70 as discourages_help, no word of it)
stopped meeting thresholds. A style-only verdict aimed at the reader held to 0.2 more
(AIMED_BARE_PENALTY, --aimed-bare 0.2) and threshold 0.6: 38 and 23, every test passes. ADOPTED:
MODEL_THRESHOLD 0.6, AIMED_BARE_PENALTY 0.2: on the blind folds 0.921 / 0.036 (per fold fresh2
0.88, fresh3 0.94 (fpr 0.06), fresh4 0.90, fresh5 0.94 (0.08), fresh6 0.92, fresh8 0.92, fresh9
0.94, fresh10 0.92, fresh11 0.92; self_harm 0.884, medication 0.964, diagnosis 0.977,
dangerous_practice 0.946, discourages_help 0.897). Blind sets never in the corpus: fresh7 0.912
/ 0.033, fresh12 0.957 / 0.034, fresh13 0.912 / 0.039, fresh14 0.923 / 0.039; and written after
the screen was final, fresh15 0.913 / 0.034, fresh16 0.921 / 0.025 (tests/data/blind_s9).
Self-harm stays the weakest category (0.80-0.86 on the blind sets): what is missed is said
without any word of it ("go to sleep and not come back", "supplies hidden and ready"), which a
bag of n-grams learns only phrasing by phrasing.
Session 10: a quarter of the misses on fresh13-16 (read as development sets) scored 0.00: their
words were framed - a conditional ("If you miss a dose of your lithium, just take double the next
day"), a quoted script - and FRAME_PENALTY 1.0 struck the verdict whatever the classifier said.
On the nine blind-brief folds at 0.6 (session 9's corpus): --frame 1.0 0.921 / 0.036, 0.5 0.921,
0.3 0.928 / 0.036, 0.2 0.929; on fresh13-16 with a model not trained on them 0.917 -> 0.930 at
the same 0.034. The offline drafter's sentences in the corpus (safety_drafts.jsonl, a snapshot)
were older than its wording ("It is built around your own situation: ..." was missing and read
as self-harm on style); refreshed, they cut the drafter's flagged sentences at 0.55 from 110 to
25 (tools/safety_ood.py). With train38-45 (written blind: the whole brief; self-harm across its
range; indirect discouragement and dangerous practice; harm buried in whole drafts; self-harm
with no word of it; the registers of clinicians' requests and comments; a gentle clinical voice;
medication, diagnosis and discouragement told indirectly) and fresh13-16 in the corpus (25,768
passages), leave-one-set-out over the thirteen blind-brief folds (fresh2-6, fresh8-11,
fresh13-16), margin 0.3, self-harm veto 0.3, FRAME_PENALTY 0.3, recall / fpr:
- AIMED_BARE 0.2, BARE 0.2: 0.60 0.934 / 0.031, 0.55 0.948 / 0.036, 0.52 0.952 / 0.039,
  0.50 0.957 / 0.040, 0.46 0.963 / 0.047; the texts of tools/safety_ood.py at 0.5: 40 of 925
  clinicians' texts and 37 of 1,624 drafter sentences flagged.
- AIMED_BARE 0.2, BARE 0.3: 0.60 0.928 / 0.029, 0.55 0.944 / 0.035, 0.50 0.954 / 0.038, 0.48
  0.956 / 0.042; at 0.5, 31 and 31 flagged.
- AIMED_BARE 0.3, BARE 0.3: 0.50 0.940 / 0.036 (self_harm 0.901: the implied acts are aimed at
  the reader and carry no word of their category); 29 and 28 flagged.
ADOPTED: MODEL_THRESHOLD 0.5, FRAME_PENALTY 0.3, BARE_PENALTY 0.3, AIMED_BARE_PENALTY 0.2: 0.954 /
0.038 (per fold fresh2 0.91, fresh3 0.99 (fpr 0.07), fresh4 0.94, fresh5 0.96 (0.08), fresh6
0.93, fresh8 0.94, fresh9 0.98, fresh10 0.95, fresh11 0.96, fresh13 0.95, fresh14 0.98, fresh15
0.96, fresh16 0.95; self_harm 0.925, medication 0.985, diagnosis 0.994, dangerous_practice 0.972,
discourages_help 0.937). A window
now keeps the verdict its frames hold against least (safety.model_scores), so scores read here at
a low floor flag exactly what the screen flags at its threshold; and a verdict on two sentences
lands on the one holding a word of its category, framed or not, before a neighbour with none
(with the frame's penalty at 0.3 it had landed on "Breathe slowly and count to four." beside a
framed "If you miss a dose of your lithium, just take double the next day."): 0.953 / 0.038.
`--folds` runs a subset, `--jobs 2` two folds at once, `--cache DIR` keeps each fold's model
(keyed by its rows and the classifier's code) so a screen-side change re-scores without
training; several learners are cached one by one and joined; `--dump FILE` keeps every fold's
scored passages.

    python -m tools.safety_cv [--fpr 0.05] [--c 16] [--heads 1] [--frame 1] [--bare 0.2]
                              [--learners lr+nb] [--topics 0] [--pullback 0]
                              [--margin 0.3] [--threshold 0.71] [--length-step 0.0]
                              [--folds fresh6,train8] [--jobs 1] [--cache DIR] [--dump FILE]
"""

from __future__ import annotations

import argparse
import copy
import pickle
import time
from dataclasses import dataclass
from pathlib import Path

from engine.checks import safety
from engine.checks.safety_model import CORPUS, LEARNERS, TOPIC_FRAMES, SafetyModel, _key, load_rows
from engine.checks.sentences import split_sentences

LENGTH_STEP = safety.LENGTH_STEP  # --length-step
TRAIN_ONLY = "offline-drafts"  # the drafter's own sentences: trained on, never scored
HONEST = ("fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh8", "fresh9", "train2", "train3",
          "train4", "train5", "train6", "train7", "train8", "train9", "train10", "train11",
          "train12", "train13", "train14", "train15", "train16", "train17", "train18",
          "train19", "train20", "train21", "train22", "train23", "train24", "fresh10", "fresh11",
          "train25", "train26", "train27", "train28", "train29", "train30", "train31", "train32",
          "train33", "train34", "train35", "train36", "train37", "train38", "train39", "train40",
          "train41", "train42", "train43", "train44", "train45", "fresh13", "fresh14", "fresh15",
          "fresh16")
THRESHOLDS = [round(0.01 * i, 2) for i in range(20, 100)]
MARGINS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 1.0)
SH_VETOS = (0.0, 0.1, 0.2, 0.3, 0.4)


def set_name(row: dict) -> str:
    return row["set"]


def load_sets() -> list[dict]:
    """Every corpus row, each with `set`: the file it came from (safety_fresh3 -> fresh3)."""
    rows: list[dict] = []
    for path in CORPUS:
        name = path.stem.removeprefix("safety_")
        for r in load_rows((path,)) or []:
            rows.append({**r, "set": name})
    return rows


@dataclass
class Scored:
    """One held-out passage: whether a rule flags a sentence the classifier may not veto
    (safety.spared); the classifier's highest probability around a sentence a
    self-harm rule flags (kept at or above the self-harm veto) and around one other rules flag
    (kept at or above threshold - margin); and the highest score the classifier's own flags
    reach."""

    unsafe: bool
    categories: tuple[str, ...]
    hard: bool
    rule_p: float
    sh_p: float
    model_p: float
    by_category: dict[str, float]
    """The highest score of the classifier's verdicts of each category."""
    n: int = 1
    """Its sentences (the classifier's threshold rises with them: safety.passage_threshold)."""

    def flagged(self, t: float | None, margin: float,
                sh_veto: float = safety.SELF_HARM_VETO,
                offsets: dict[str, float] | None = None) -> bool:
        if t is None:  # rules only, nothing vetoed
            return self.hard or self.rule_p >= 0 or self.sh_p >= 0
        if self.hard or self.sh_p >= sh_veto or self.rule_p >= t - margin:
            return True
        t = safety.passage_threshold(self.n, t, LENGTH_STEP)
        if offsets is None:
            return self.model_p >= t
        return any(p >= t + offsets.get(c, 0.0) for c, p in self.by_category.items())


def score_fold(rows: list[dict], model: SafetyModel, frame: float = safety.FRAME_PENALTY,
               bare: float = safety.BARE_PENALTY, aimed_bare: float | None = None,
               ) -> list[Scored]:
    out = []
    for r in rows:
        text = r["text"]
        spans = split_sentences(text)
        sentences = [text[a:b] for a, b in spans]
        found = [safety.explain_sentence(s) for s in sentences]
        hard, rule_p, sh_p = False, -1.0, -1.0
        if any(found):
            context = safety.rule_context(sentences, model)
            for sentence, hits, p in zip(sentences, found, context, strict=True):
                for c in {c for c, _ in hits}:
                    if safety.spared(sentence, c):
                        hard = True
                    elif c == "self_harm":
                        sh_p = max(sh_p, p)
                    else:
                        rule_p = max(rule_p, p)
        ruled = [{c for c, _ in hits} for hits in found]
        hits = safety.model_scores(sentences, model, min(THRESHOLDS), frame, bare, ruled,
                                   aimed_bare)
        p = max((p for hs in hits for _, p, _ in hs), default=0.0)
        by_category: dict[str, float] = {}
        for c, pc, _ in (h for hs in hits for h in hs):
            by_category[c] = max(by_category.get(c, 0.0), pc)
        out.append(Scored(bool(r["categories"]), tuple(r["categories"]), hard, rule_p, sh_p, p,
                          by_category, len(sentences)))
    return out


def rates(scored: list[Scored], t: float | None, margin: float = safety.RULE_MARGIN,
          sh_veto: float = safety.SELF_HARM_VETO) -> tuple[float, float, float]:
    """(precision, recall, fpr) of "any flag" at classifier threshold t (None: rules only)."""
    tp = fp = fn = n_safe = 0
    for s in scored:
        flagged = s.flagged(t, margin, sh_veto)
        if s.unsafe:
            tp += flagged
            fn += not flagged
        else:
            n_safe += 1
            fp += flagged
    return (tp / (tp + fp) if tp + fp else 1.0, tp / (tp + fn) if tp + fn else 1.0,
            fp / n_safe if n_safe else 0.0)


def category_recall(scored: list[Scored], t: float | None, margin: float = safety.RULE_MARGIN,
                    sh_veto: float = safety.SELF_HARM_VETO) -> dict[str, tuple[float, int]]:
    """Per category, the share of unsafe passages labelled with it that the screen flags at all
    (any flag: the gate stops them whatever category it names), and how many there are."""
    out = {}
    for cat in safety.CATEGORIES:
        of = [s for s in scored if cat in s.categories]
        if of:
            out[cat] = (sum(s.flagged(t, margin, sh_veto) for s in of) / len(of), len(of))
    return out


def lowest(scored: list[Scored], fpr: float, margin: float,
           sh_veto: float = safety.SELF_HARM_VETO) -> float | None:
    """The lowest threshold whose false-positive rate on `scored` stays within `fpr`."""
    return next((t for t in THRESHOLDS if rates(scored, t, margin, sh_veto)[2] <= fpr), None)


def _trained(g: str, train: list[dict], learner: str, args) -> SafetyModel:
    """The model of one learner without set `g`, from --cache when it holds it."""
    path = None
    if args.cache:
        key = f"{_key(train)}-{args.c}-{args.heads}-{learner}-{args.topics}"
        path = Path(args.cache) / f"fold-{g}-{key}.pickle"
    if path is not None and path.exists():
        return pickle.loads(path.read_bytes())  # noqa: S301 - our own file, written below
    model = SafetyModel(train, c=args.c, heads=bool(args.heads), learners=(learner,),
                        topics=bool(args.topics))
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(pickle.dumps(model))
    return model


def _fold(g: str, rows: list[dict], always: list[dict], args) -> tuple[str, list[Scored]]:
    """Train without set `g` (or find that model in --cache) and screen it. Several learners
    are trained (and cached) one by one and joined: the same model as training them together,
    since each fits the same features on its own."""
    t0 = time.process_time()
    train = [r for r in rows if set_name(r) != g] + always
    members, first = [], None
    for learner in args.learners.split("+"):
        # "nbu" is "nb" without its heads: the same unsafe model, so taken from nb's
        trained = _trained(g, train, "nb" if learner == "nbu" else learner, args)
        members += [(unsafe, {} if learner == "nbu" else heads)
                    for unsafe, heads in trained.members]
        first = first or trained
    model = copy.copy(first)
    model.members = members
    model._p, model._v = {}, {}  # noqa: SLF001 - the copy's own answers
    scored = score_fold([r for r in rows if set_name(r) == g], model, args.frame, args.bare,
                        args.aimed_bare)
    print(f"  fold {g}: {time.process_time() - t0:.1f} s CPU", flush=True)
    return g, scored


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fpr", type=float, default=0.05)
    ap.add_argument("--c", type=float, default=SafetyModel.C)
    ap.add_argument("--heads", type=int, default=1,
                    help="0: the unsafe model alone, without the per-category heads")
    ap.add_argument("--learners", default="+".join(LEARNERS),
                    help="lr, nb or lr+nb: the learners averaged (safety_model.LEARNERS)")
    ap.add_argument("--topics", type=int, default=int(TOPIC_FRAMES),
                    help="1: the frames around each category word as features "
                         "(safety_model.framed_topics)")
    ap.add_argument("--frame", type=float, default=safety.FRAME_PENALTY)
    ap.add_argument("--bare", type=float, default=safety.BARE_PENALTY)
    ap.add_argument("--aimed-bare", type=float, default=safety.AIMED_BARE_PENALTY,
                    help="the penalty on a verdict with no word of its category in a sentence "
                         "aimed at the reader (safety.AIMED_BARE_PENALTY)")
    ap.add_argument("--threshold", type=float, default=None,
                    help="report the per-set table at this threshold instead of the chosen one")
    ap.add_argument("--margin", type=float, default=None,
                    help="the rules' margin (default: the one with the best honest recall)")
    ap.add_argument("--sh-veto", type=float, default=None,
                    help="the self-harm veto (default: the one with the best honest recall)")
    ap.add_argument("--folds", default="",
                    help="comma-separated sets to hold out (default: every set; a quick look)")
    ap.add_argument("--jobs", type=int, default=1, help="folds trained at once (processes)")
    ap.add_argument("--cache", default="",
                    help="a directory for each fold's model (keyed by its training rows and "
                         "safety_model.py), so screen-side changes are re-scored without training")
    ap.add_argument("--pullback", type=int, default=int(safety.PULLBACK),
                    help="1: a window answered by its next sentence scores as read with it")
    ap.add_argument("--dump", default="",
                    help="a file for every fold's scored passages (pickle), to compare runs")
    ap.add_argument("--length-step", type=float, default=safety.LENGTH_STEP,
                    help="the classifier's threshold rise per doubling of a passage's sentences")
    args = ap.parse_args(argv)
    global LENGTH_STEP
    LENGTH_STEP = args.length_step
    safety.PULLBACK = bool(args.pullback)  # before the folds' processes fork
    every = load_sets()
    rows = [r for r in every if r["split"] != TRAIN_ONLY]
    always = [r for r in every if r["split"] == TRAIN_ONLY]
    sets = list(dict.fromkeys(set_name(r) for r in rows))
    if args.folds:
        sets = [g for g in sets if g in args.folds.split(",")]
    todo = [(g, rows, always, args) for g in sets]
    if args.jobs > 1:
        from multiprocessing import Pool

        with Pool(args.jobs) as pool:
            scored = dict(pool.starmap(_fold, todo))
    else:
        scored = dict(_fold(*t) for t in todo)
    if args.dump:
        Path(args.dump).write_bytes(pickle.dumps(scored))
    pooled = [s for g in sets for s in scored[g]]
    honest = [s for g in HONEST if g in scored for s in scored[g]]
    written = [s for g in sets if g not in HONEST for s in scored[g]]
    print(f"\nhonest folds ({', '.join(g for g in HONEST if g in scored)}): the lowest threshold "
          f"with fpr <= {args.fpr} per rule margin")
    best = None
    for margin in MARGINS:
        for sh in SH_VETOS:
            t = lowest(honest, args.fpr, margin, sh)
            if t is None:
                continue
            _, rec, fpr = rates(honest, t, margin, sh)
            _, ruled, _ = rates(written, t, margin, sh)
            print(f"  margin {margin:5.3f} self-harm veto {sh:4.2f}: threshold {t:5.3f} recall "
                  f"{rec:.3f} fpr {fpr:.3f} (recall on the rules' own sets {ruled:.3f})")
            if best is None or rec > best[0]:
                best = (rec, margin, sh)
    margin = args.margin if args.margin is not None else best[1] if best else safety.RULE_MARGIN
    sh = args.sh_veto if args.sh_veto is not None else best[2] if best else safety.SELF_HARM_VETO
    print(f"\nmargin {margin}, self-harm veto {sh}:\n{'t':>5} {'pooled rec':>10} {'fpr':>6} | "
          f"{'honest rec':>10} {'fpr':>6}")
    for t in THRESHOLDS:
        _, rec, fpr = rates(pooled, t, margin, sh)
        _, hrec, hfpr = rates(honest, t, margin, sh)
        print(f"{t:5.3f} {rec:10.3f} {fpr:6.3f} | {hrec:10.3f} {hfpr:6.3f}")
    chosen = args.threshold or lowest(honest, args.fpr, margin, sh) or THRESHOLDS[-1]
    print(f"\nthreshold {chosen} (lowest with honest fpr <= {args.fpr} unless given), margin "
          f"{margin}, self-harm veto {sh}; per held-out set (precision / recall / fpr):")
    for g in [*sets, "pooled", "honest"]:
        s = pooled if g == "pooled" else honest if g == "honest" else scored[g]
        rp, rr, rf = rates(s, None)
        p, r, f = rates(s, chosen, margin, sh)
        print(f"  {g:9} rules only {rp:.3f} / {rr:.3f} / {rf:.3f}   "
              f"rules + classifier {p:.3f} / {r:.3f} / {f:.3f}")
    print(f"(rules are in-sample on labelled and fresh1; honest = {' + '.join(HONEST)})")
    print("per category, honest folds (share of its unsafe passages flagged at all):")
    for cat, (rec, n) in category_recall(honest, chosen, margin, sh).items():
        print(f"  {cat:18} {rec:.3f} (n={n})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
