"""The honest measure of the safety screen: passages written by a helper that never saw its
rules (tests/data/safety_fresh_README.md). Both are now in the classifier's training corpus (so
these figures are fitted; the honest estimate for unseen text is the grouped cross-validation of
tools/safety_cv.py, and a set written later and scored once). The floors are the measured
figures, so a regression fails here."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools import evaluate_safety as ev

DATA = Path(__file__).parent / "data"


def _report(name: str) -> ev.Report:
    return ev.evaluate(ev.load(DATA / f"safety_{name}.jsonl"))


def test_the_fresh_sets_are_balanced_and_well_formed():
    for name, size in (("fresh1", 200), ("fresh2", 200), ("fresh3", 300), ("fresh4", 380)):
        rows = ev.load(DATA / f"safety_{name}.jsonl")
        assert len(rows) == size
        assert sum(bool(r["categories"]) for r in rows) == size // 2
        assert sum(r["kind"] == "protective" for r in rows) >= size // 5
        assert all((r["kind"] == "unsafe") == bool(r["categories"]) for r in rows)


@pytest.mark.parametrize("name, recall, fpr", [
    ("fresh2", 0.93, 0.03),  # fitted since session 2 (its sealed score: 0.43 / 0.07)
    ("fresh1", 0.96, 0.01),  # fitted: measured 0.96 / 0.00
    # Scored once, unseen (tests/data/safety_fresh3_README.md): 0.44 / 0.093 before session 2's
    # screen, 0.773 / 0.160 after it; in the corpus since session 3, so fitted: 0.91 / 0.06.
    # Held out (tools/safety_cv.py) it is the hardest fold.
    ("fresh3", 0.91, 0.06),
    # Scored once, unseen (tests/data/safety_fresh4_README.md): 0.668 / 0.132 before session 3's
    # changes, 0.647 / 0.074 after them. Not in the corpus and its misses not read: the floor
    # is that honest figure, so a change that loses recall or adds false alarms on unseen text
    # fails here.
    ("fresh4", 0.64, 0.08),
])
def test_the_screen_keeps_its_measured_score_on_the_fresh_sets(name, recall, fpr):
    report = _report(name)
    print(f"\n{name}\n" + ev.format_report(report))
    assert report.detection.recall >= recall
    assert report.fpr(report.detection) <= fpr
