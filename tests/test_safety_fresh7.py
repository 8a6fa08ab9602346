"""The held-out blind set of session 6: 430 passages written by a helper that never saw the screen
(tests/data/safety_fresh7_README.md), kept out of the classifier's corpus, scored once before
that session's changes and once after. The floor and ceiling are the measured figures, so a
regression fails here; a set in the corpus would only measure how well the screen fits it."""

from __future__ import annotations

from pathlib import Path

from engine.checks.safety_model import CORPUS, HELD_OUT
from tools import evaluate_safety as ev

PATH = Path(__file__).parent / "data" / "safety_fresh7.jsonl"
# Session 6, before its changes (1c68e80): precision 0.969, recall 0.735, fpr 0.023; after them
# (d7a546c, the corpus grown by train10-13 and fresh6): 0.971, 0.772, 0.023.
RECALL_FLOOR, FPR_CEILING = 0.77, 0.03


def test_fresh7_is_balanced_and_held_out():
    rows = ev.load(PATH)
    assert len(rows) == 430
    assert sum(bool(r["categories"]) for r in rows) == 215
    assert sum(r["kind"] == "protective" for r in rows) >= 80
    assert PATH not in CORPUS and "fresh7" in HELD_OUT


def test_the_screen_keeps_its_measured_score_on_fresh7():
    report = ev.evaluate(ev.load(PATH))
    print("\nfresh7 (held out)\n" + ev.format_report(report))
    assert report.detection.recall >= RECALL_FLOOR
    assert report.fpr(report.detection) <= FPR_CEILING
