"""The held-out blind set of session 6: 430 passages written by a helper that never saw the screen
(tests/data/safety_fresh7_README.md), kept out of the classifier's corpus, scored once before
that session's changes and once after. Its shape is checked here; its measured score is the floor
of tests/test_safety_fresh.py's held-out test."""

from __future__ import annotations

from pathlib import Path

from engine.checks.safety_model import CORPUS, HELD_OUT
from tools import evaluate_safety as ev

PATH = Path(__file__).parent / "data" / "safety_fresh7.jsonl"


def test_fresh7_is_balanced_and_held_out():
    rows = ev.load(PATH)
    assert len(rows) == 430
    assert sum(bool(r["categories"]) for r in rows) == 215
    assert sum(r["kind"] == "protective" for r in rows) >= 80
    assert PATH not in CORPUS and "fresh7" in HELD_OUT
