"""Grouped cross-validation of the safety screen's classifier: how well does the screen
(rules + classifier) do on a batch of passages whose phrasings the classifier never saw?

Each batch of the corpus (the `split` of every line: dev, holdout1-4, fresh1, fresh2,
train-safety2) is held out in turn; the classifier is trained on the others and the held-out
batch is screened with it, exactly as `screen_protocol` would (sentences, neighbour windows,
protective frames). Pooling the held-out scores gives recall and false-positive rate at each
threshold; the screen's MODEL_THRESHOLD is the lowest one whose pooled FPR on safe passages
stays within the goal.

Caveat printed with the figures: the rules were written against every batch except fresh2 and
train-safety2, so their part is in-sample on the others; the fresh2 fold is the cleanest.

    python -m tools.safety_cv [--fpr 0.05] [--c 4.0]
"""

from __future__ import annotations

import argparse
from collections import defaultdict

from engine.checks import safety
from engine.checks.safety_model import CATEGORIES, SafetyModel, load_rows
from engine.checks.sentences import split_sentences

TRAIN_ONLY = "offline-drafts"  # the drafter's own sentences: trained on, never scored
THRESHOLDS = [round(0.05 * i, 2) for i in range(6, 20)]


def passage_categories(rows: list[dict], model, t: float, margin: float) -> list[set[str]]:
    """Per passage, the categories the classifier flags at threshold `t` (as the screen would)."""
    out = []
    for r in rows:
        text = r["text"]
        sentences = [text[a:b] for a, b in split_sentences(text)]
        hits = safety.model_scores(sentences, model, t, margin)
        out.append({c for hs in hits for c, _, _ in hs})
    return out


def fold_models(rows: list[dict], c: float, always: list[dict]) -> dict[str, SafetyModel]:
    """One model per held-out batch, trained on every other batch; `always` rows (the
    offline drafts) train every fold."""
    return {g: SafetyModel([r for r in rows if r["split"] != g] + always, c=c)
            for g in sorted({r["split"] for r in rows})}


def held_out(rows: list[dict], models: dict[str, SafetyModel], t: float, margin: float,
             ) -> list[set[str]]:
    out: list[set[str]] = [set() for _ in rows]
    for g, model in models.items():
        idx = [i for i, r in enumerate(rows) if r["split"] == g]
        for i, cats in zip(idx, passage_categories([rows[i] for i in idx], model, t, margin),
                           strict=True):
            out[i] = cats
    return out


def _rates(rows, rule_cats, model_cats, keep=lambda r: True):
    tp = fn = fp = n_safe = 0
    per = defaultdict(lambda: [0, 0])
    for r, rc, mc in zip(rows, rule_cats, model_cats, strict=True):
        if not keep(r):
            continue
        predicted = set(rc) | mc
        if r["categories"]:
            tp += bool(predicted)
            fn += not predicted
            for c in r["categories"]:
                per[c][0] += c in predicted
                per[c][1] += 1
        else:
            n_safe += 1
            fp += bool(predicted)
    recall = tp / (tp + fn) if tp + fn else 1.0
    return recall, (fp / n_safe if n_safe else 0.0), {c: a / b for c, (a, b) in per.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fpr", type=float, default=0.05)
    ap.add_argument("--c", type=float, default=4.0)
    ap.add_argument("--margin", type=float, default=safety.MODEL_BARE_MARGIN)
    args = ap.parse_args(argv)
    every = load_rows()
    rows = [r for r in every if r["split"] != TRAIN_ONLY]
    always = [r for r in every if r["split"] == TRAIN_ONLY]
    rule_cats = [{f.category for f in safety.screen_protocol(r["text"], use_model=False).flags}
                 for r in rows]
    models = fold_models(rows, args.c, always)
    groups = sorted({r["split"] for r in rows})
    print("pooled held-out (rules + classifier), and the classifier alone:")
    print(f"{'t':>5} {'recall':>7} {'fpr':>6} | {'clf rec':>7} {'clf fpr':>7}")
    chosen = None
    none = [set() for _ in rows]
    by_t = {t: held_out(rows, models, t, args.margin) for t in THRESHOLDS}
    for t in THRESHOLDS:
        rec, fpr, _ = _rates(rows, rule_cats, by_t[t])
        crec, cfpr, _ = _rates(rows, none, by_t[t])
        print(f"{t:5.2f} {rec:7.3f} {fpr:6.3f} | {crec:7.3f} {cfpr:7.3f}")
        if chosen is None and fpr <= args.fpr:
            chosen = t
    chosen = chosen or THRESHOLDS[-1]
    print(f"\nchosen threshold {chosen} (lowest with pooled fpr <= {args.fpr}); "
          "per held-out batch:")
    for g in groups:
        rec, fpr, per = _rates(rows, rule_cats, by_t[chosen], lambda r, g=g: r["split"] == g)
        cats = " ".join(f"{c[:8]} {per.get(c, float('nan')):.2f}" for c in CATEGORIES)
        crec, cfpr, _ = _rates(rows, none, by_t[chosen], lambda r, g=g: r["split"] == g)
        print(f"  {g:14} recall {rec:.3f} fpr {fpr:.3f} (classifier alone {crec:.3f} / "
              f"{cfpr:.3f})  {cats}")
    rec, fpr, per = _rates(rows, rule_cats, by_t[chosen])
    print(f"  {'pooled':14} recall {rec:.3f} fpr {fpr:.3f}  "
          + " ".join(f"{c[:8]} {per[c]:.2f}" for c in CATEGORIES))
    print("(rules are in-sample on every batch but fresh2 and train-safety2)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
