"""How well the checks that follow the text agree with a labelled set.

Each line of tests/data/coverage_cases.jsonl is a case: the check it measures, the run's
input, the draft, the previous version, the comments (each with the version it was made
about), the safety screen's flag categories, the approved earlier stages, and `expect`, the
findings a careful reviewer raises ("not_addressed:I" for the I-th comment). A case counts as
right when the check's findings are exactly the expected ones; per finding category the
precision and recall are given too.

    python -m tools.evaluate_coverage [set.jsonl] [--errors]
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from engine.checks.base import FlagOut
from engine.checks.feedback_coverage import Comment
from engine.checks.follow import FollowInput, follow_checks

DEFAULT = Path(__file__).resolve().parent.parent / "tests" / "data" / "coverage_cases.jsonl"
FAMILY = {
    "request": {"request_coverage"},
    "feedback": {"feedback_coverage"},
    "no_change": {"no_change"},
    "clinical_harm": {"clinical_harm"},
    "campaign": {"campaign_consistency"},
}
SAME = {"request_missing_element": "request_not_covered"}


def predict(case: dict[str, Any]) -> list[str]:
    comments = [Comment(text=c["text"], before=c["before"], source=c["source"])
                for c in case["feedback"]]
    flags = [FlagOut(category=c, text="(flagged sentence)", start=0, end=0)
             for c in case["safety_flags"]]
    result = follow_checks(case["kind"], case["stage"], case["draft"], case["input"],
                           FollowInput(previous=case["previous"], comments=comments,
                                       context=case["context"]), flags)
    out = set()
    for f in result.findings:
        if f.check not in FAMILY[case["check"]]:
            continue
        if f.category == "not_addressed":
            out.add(f"not_addressed:{[c.text for c in comments].index(f.text)}")
        else:
            out.add(SAME.get(f.category, f.category))
    return sorted(out)


def score(cases: list[dict[str, Any]]) -> dict[str, Any]:
    right = 0
    tp: Counter[str] = Counter()
    fp: Counter[str] = Counter()
    fn: Counter[str] = Counter()
    errors = []
    for case in cases:
        got, want = set(predict(case)), set(case["expect"])
        right += got == want
        if got != want:
            errors.append((case["id"], sorted(want), sorted(got)))
        for label in got | want:
            cat = label.split(":")[0]
            if label in got and label in want:
                tp[cat] += 1
            elif label in got:
                fp[cat] += 1
            else:
                fn[cat] += 1
    per = {c: {"precision": tp[c] / max(1, tp[c] + fp[c]), "recall": tp[c] / max(1, tp[c] + fn[c]),
               "tp": tp[c], "fp": fp[c], "fn": fn[c]} for c in sorted(tp | fp | fn)}
    return {"cases": len(cases), "right": right, "accuracy": right / max(1, len(cases)),
            "per_category": per, "errors": errors}


def main(argv: list[str]) -> int:
    path = Path(next((a for a in argv if not a.startswith("--")), DEFAULT))
    cases = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    result = score(cases)
    print(f"{result['right']}/{result['cases']} cases right ({result['accuracy']:.2f})")
    for cat, s in result["per_category"].items():
        print(f"  {cat:24} precision {s['precision']:.2f}  recall {s['recall']:.2f}  "
              f"(tp {s['tp']}, fp {s['fp']}, fn {s['fn']})")
    if "--errors" in argv:
        for id_, want, got in result["errors"]:
            print(f"  {id_}: expected {want}, got {got}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
