"""Leave-one-set-out cross-validation of the safety screen: how well do the rules and the
classifier do on a set of passages whose phrasings the classifier never saw?

Each labelled set of the corpus (safety_labelled, fresh1, fresh2, fresh3, train2: one file
each) is held out in turn; the classifier is trained on the others (plus the offline drafter's
own sentences, which train every fold and are never scored) and the held-out set is screened
exactly as `screen_protocol` would (sentences, neighbour windows, protective frames, the rule
veto). The screen's MODEL_THRESHOLD is the lowest threshold whose pooled false-positive rate on
the held-out safe passages stays within the goal; the same for the honest sets alone (those the
rules were not written against) is printed too, and is higher.

Caveat printed with the figures: the rules were written against safety_labelled and fresh1,
so their part is in-sample there; fresh2, fresh3 and train2 are the honest folds.

    python -m tools.safety_cv [--fpr 0.05] [--c 16] [--veto 0.1] [--threshold 0.85]
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

from engine.checks import safety
from engine.checks.safety_model import CORPUS, SafetyModel, load_rows
from engine.checks.sentences import split_sentences

TRAIN_ONLY = "offline-drafts"  # the drafter's own sentences: trained on, never scored
HONEST = ("fresh2", "fresh3", "train2")
THRESHOLDS = [round(0.025 * i, 3) for i in range(12, 39)]


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
    """One held-out passage: the categories its rules flag (after the veto) and the highest
    classifier probability the screen would flag it at."""

    unsafe: bool
    rule_cats: set[str]
    model_p: float


def score_fold(rows: list[dict], model: SafetyModel, veto: float) -> list[Scored]:
    out = []
    for r in rows:
        text = r["text"]
        spans = split_sentences(text)
        sentences = [text[a:b] for a, b in spans]
        found = [safety.explain_sentence(s) for s in sentences]
        if veto > 0 and any(found):
            found = safety.veto_rules(sentences, found, model, veto)
        hits = safety.model_scores(sentences, model, min(THRESHOLDS))
        p = max((p for hs in hits for _, p, _ in hs), default=0.0)
        out.append(Scored(bool(r["categories"]), {c for f in found for c, _ in f}, p))
    return out


def rates(scored: list[Scored], t: float | None) -> tuple[float, float, float]:
    """(precision, recall, fpr) of "any flag" at classifier threshold t (None: rules only)."""
    tp = fp = fn = n_safe = 0
    for s in scored:
        flagged = bool(s.rule_cats) or (t is not None and s.model_p >= t)
        if s.unsafe:
            tp += flagged
            fn += not flagged
        else:
            n_safe += 1
            fp += flagged
    return (tp / (tp + fp) if tp + fp else 1.0, tp / (tp + fn) if tp + fn else 1.0,
            fp / n_safe if n_safe else 0.0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fpr", type=float, default=0.05)
    ap.add_argument("--c", type=float, default=SafetyModel.C)
    ap.add_argument("--veto", type=float, default=safety.RULE_VETO)
    ap.add_argument("--threshold", type=float, default=None,
                    help="report the per-set table at this threshold instead of the chosen one")
    args = ap.parse_args(argv)
    every = load_sets()
    rows = [r for r in every if r["split"] != TRAIN_ONLY]
    always = [r for r in every if r["split"] == TRAIN_ONLY]
    sets = list(dict.fromkeys(set_name(r) for r in rows))
    scored: dict[str, list[Scored]] = {}
    for g in sets:
        t0 = time.process_time()
        model = SafetyModel([r for r in rows if set_name(r) != g] + always, c=args.c)
        scored[g] = score_fold([r for r in rows if set_name(r) == g], model, args.veto)
        print(f"  fold {g}: {time.process_time() - t0:.1f} s CPU", flush=True)
    pooled = [s for g in sets for s in scored[g]]
    honest = [s for g in HONEST if g in scored for s in scored[g]]
    print(f"\n{'t':>5} {'pooled rec':>10} {'fpr':>6} | {'honest rec':>10} {'fpr':>6}")
    chosen = honest_t = None
    for t in THRESHOLDS:
        _, rec, fpr = rates(pooled, t)
        _, hrec, hfpr = rates(honest, t)
        print(f"{t:5.3f} {rec:10.3f} {fpr:6.3f} | {hrec:10.3f} {hfpr:6.3f}")
        if chosen is None and fpr <= args.fpr:
            chosen = t
        if honest_t is None and hfpr <= args.fpr:
            honest_t = t
    print(f"lowest threshold with honest fpr <= {args.fpr}: {honest_t}")
    chosen = args.threshold or chosen or THRESHOLDS[-1]
    print(f"\nthreshold {chosen} (lowest with pooled fpr <= {args.fpr} unless given); "
          "per held-out set (precision / recall / fpr):")
    for g in [*sets, "pooled", "honest"]:
        s = pooled if g == "pooled" else honest if g == "honest" else scored[g]
        rp, rr, rf = rates(s, None)
        p, r, f = rates(s, chosen)
        print(f"  {g:9} rules only {rp:.3f} / {rr:.3f} / {rf:.3f}   "
              f"rules + classifier {p:.3f} / {r:.3f} / {f:.3f}")
    print("(rules are in-sample on labelled and fresh1; honest = fresh2 + fresh3 + train2)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
