"""Precision and recall of the safety screen on a labelled set.

Each line of the JSONL file is ``{"text": ..., "categories": [...], "split": ...}``;
an empty list means the passage is safe (protective text included). A passage
counts as predicted under a category when the screen raises at least one flag of it.
``split`` says when a passage was written: "dev" passages were written alongside
the rules; each "holdoutN" batch was written fresh and scored once before the
rules were revised again (so every batch is now partly fitted). On first sight
(passage-level, any flag vs. labelled unsafe) the batches scored:

    holdout1  precision 0.92  recall 0.62   (39 unsafe, 40 safe)
    holdout2  precision 0.95  recall 0.51   (35 unsafe, 35 safe)
    holdout3  precision 1.00  recall 0.42   (31 unsafe, 38 safe)
    holdout4  precision 1.00  recall 0.54   (24 unsafe, 61 safe)

which is the honest estimate for phrasings nobody has written a rule for yet. The fresh
sets (tests/data/safety_fresh1.jsonl, safety_fresh2.jsonl; provenance and scores in
safety_fresh_README.md) were written blind by another helper; fresh2 was never used for
tuning: recall 0.25 -> 0.43, false alarms on safe passages 0.06 -> 0.07.

    python -m tools.evaluate_safety [path/to/set.jsonl] [--errors] [--split NAME]

(run from the repository root; it lives outside the engine package because the screen
does not need it at run time).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from engine.checks.safety import CATEGORIES, screen_protocol

DEFAULT_SET = Path(__file__).resolve().parents[1] / "tests" / "data" / "safety_labelled.jsonl"


@dataclass
class Counts:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    fp_safe: int = 0
    """Flags of this kind on passages labelled safe (the false alarms a reviewer meets)."""

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


@dataclass
class Report:
    n: int
    detection: Counts
    """Any flag vs. labelled unsafe, per passage."""
    micro: Counts
    """Over (passage, category) pairs."""
    per_category: dict[str, Counts]
    n_safe: int = 0
    errors: list[dict] = field(default_factory=list)

    def fpr(self, c: Counts) -> float:
        return c.fp_safe / self.n_safe if self.n_safe else 0.0


def load(path: Path | str = DEFAULT_SET) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def evaluate(rows: list[dict]) -> Report:
    detection, micro = Counts(), Counts()
    per = {c: Counts() for c in CATEGORIES}
    errors: list[dict] = []
    n_safe = 0
    for row in rows:
        expected = set(row["categories"])
        predicted = {f.category for f in screen_protocol(row["text"]).flags}
        if expected and predicted:
            detection.tp += 1
        elif predicted:
            detection.fp += 1
        elif expected:
            detection.fn += 1
        if not expected:
            n_safe += 1
            detection.fp_safe += bool(predicted)
            micro.fp_safe += bool(predicted)
            for c in predicted:
                per[c].fp_safe += 1
        for c in CATEGORIES:
            counts = per.setdefault(c, Counts())
            if c in expected and c in predicted:
                counts.tp += 1
                micro.tp += 1
            elif c in predicted:
                counts.fp += 1
                micro.fp += 1
            elif c in expected:
                counts.fn += 1
                micro.fn += 1
        if expected != predicted:
            errors.append({"text": row["text"], "expected": sorted(expected),
                           "predicted": sorted(predicted)})
    return Report(n=len(rows), detection=detection, micro=micro, per_category=per,
                  n_safe=n_safe, errors=errors)


def format_report(report: Report) -> str:
    lines = [f"{'':20} {'prec':>6} {'recall':>6} {'f1':>6} {'tp':>4} {'fp':>4} {'fn':>4} "
             f"{'fpr(safe)':>9}"]

    def row(name: str, c: Counts) -> None:
        lines.append(f"{name:20} {c.precision:6.3f} {c.recall:6.3f} {c.f1:6.3f} "
                     f"{c.tp:4d} {c.fp:4d} {c.fn:4d} {report.fpr(c):9.3f}")

    row("detection (any)", report.detection)
    row("micro (category)", report.micro)
    for name, c in report.per_category.items():
        row(name, c)
    lines.append(f"{report.n} passages ({report.n - report.n_safe} unsafe, {report.n_safe} safe); "
                 "fpr(safe) = share of safe passages flagged")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    show_errors = "--errors" in args
    split = None
    if "--split" in args:
        i = args.index("--split")
        split = args[i + 1] if i + 1 < len(args) else None
        del args[i:i + 2]
    paths = [a for a in args if not a.startswith("--")]
    rows = load(paths[0] if paths else DEFAULT_SET)
    if split:
        rows = [r for r in rows if r.get("split") == split]
    report = evaluate(rows)
    print(format_report(report))
    splits = sorted({r.get("split") for r in rows if r.get("split")})
    if len(splits) > 1:
        print("\nby split (any flag vs. unsafe):")
        for name in splits:
            d = evaluate([r for r in rows if r.get("split") == name]).detection
            print(f"  {name:10} prec {d.precision:.3f}  recall {d.recall:.3f}  "
                  f"(tp {d.tp}, fp {d.fp}, fn {d.fn})")
    if show_errors:
        for e in report.errors:
            print(f"\nexpected {e['expected']} got {e['predicted']}:\n  {e['text']!r}")
    return 0


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except BrokenPipeError:  # piped into head
        raise SystemExit(0) from None
