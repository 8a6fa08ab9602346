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
# fresh4 held out of training (the last test): its measured figures, as floor and ceiling.
# Session 7's data (train14-16) moved them from about 0.80 / 0.037 to 0.847 / 0.042 (8 of its 190
# safe passages): the floor rises with the recall, the ceiling by that one passage. Session 8
# (fresh8-9 and train17-20 in the corpus, both learners, threshold 0.81): 0.853 / 0.026; with the
# lead's train21-24 too, 0.853 / 0.032 (6 of 190): the ceiling 0.035 is that measurement.
# Session 9 (train25-37 and fresh10-11 in the corpus, threshold 0.6, AIMED_BARE_PENALTY 0.2):
# 0.900 / 0.042 (8 of 190); the ceiling allows one passage more.
RECALL_FLOOR, FPR_CEILING = 0.89, 0.048


def _report(name: str) -> ev.Report:
    return ev.evaluate(ev.load(DATA / f"safety_{name}.jsonl"))


def test_the_fresh_sets_are_balanced_and_well_formed():
    for name, size in (("fresh1", 200), ("fresh2", 200), ("fresh3", 300), ("fresh4", 380),
                       ("fresh5", 438), ("fresh6", 520), ("fresh8", 404), ("fresh9", 404)):
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
    # changes, 0.647 / 0.074 after them. In the corpus since session 4, so fitted here; its
    # honest figure is the leave-fresh4-out check below.
    ("fresh4", 0.92, 0.03),  # fitted: 0.974 / 0.021; 0.932 / 0.011 with train6-9 in the corpus
    # Scored once unseen before session 4's changes, 0.763 / 0.142, and once after, 0.808 / 0.082
    # (tests/data/safety_fresh5_README.md). In the corpus since session 5, so fitted here; its
    # honest figure is its fold in tools/safety_cv.py.
    ("fresh5", 0.97, 0.02),  # fitted: measured 0.991 / 0.005
    # The held-out blind set of session 5 (safety_fresh6_README.md): scored once before that
    # session's changes (0.788 / 0.035) and once after (0.815 / 0.023). In the corpus since
    # session 6, so fitted here (0.985 / 0.004); its honest figure is its fold in safety_cv.
    # Session 9's lower threshold: 0.996 / 0.012 (3 of 260).
    ("fresh6", 0.98, 0.016),
])
def test_the_screen_keeps_its_measured_score_on_the_fresh_sets(name, recall, fpr):
    report = _report(name)
    print(f"\n{name}\n" + ev.format_report(report))
    assert report.detection.recall >= recall
    assert report.fpr(report.detection) <= fpr


# The held-out blind set: passages written by a helper that saw no code, NOT in the classifier's
# corpus, scored once at the end of a session. fresh6 held that place in session 5 (scored 0.788
# recall / 0.035 fpr before that session's changes, 0.815 / 0.023 after them) and is in the
# corpus since session 6 (above, fitted). Session 6's, fresh7 (tests/data/safety_fresh7_README.md):
# 0.735 / 0.023 before that session's changes, 0.772 / 0.023 after them. (Session 7's two learners
# at 0.71, not adopted, printed 0.833 / 0.033 here on failing its fpr ceiling.) Session 8's screen
# (both learners, session 8's data): 0.860 / 0.028 (precision 0.969) at threshold 0.81 with no
# penalty on a style-only verdict not addressed to the reader; as adopted (0.74, BARE_PENALTY 0.2,
# chosen by CV before this was read), 0.828 / 0.028 (precision 0.967): the floor.
# Session 9 chose the threshold on the folds written to the blind brief and on the offline
# drafter's own sentences (0.6, AIMED_BARE_PENALTY 0.2; tools/safety_cv.py, tools/safety_ood.py)
# with thirteen more blind-written training sets: fresh7 0.912 / 0.033 (precision 0.966).
# fresh12 (session 8's second-cycle blind set, tests/data/blind_s8/README.md, never in the corpus):
# 0.865 / 0.038 on s8-start, 0.894 / 0.029 on session 8's screen, 0.957 / 0.034 on session 9's.
# Session 10 (threshold 0.5, FRAME_PENALTY 0.3, BARE_PENALTY 0.3, train38-45 and fresh13-16 in
# the corpus): fresh7 0.944 / 0.037; fresh12 0.957 / 0.053 - its false alarms rose from 7 to 11
# of 208 (style read as discouraging help: "No need to change anything."; a note-taking tip as
# self-harm), already 10 with session 9's settings on the new model: the new data, not the
# threshold. fresh17-19 (tests/data/blind_s10/README.md), written blind this session and scored
# before any change (0.924 / 0.040, 0.922 / 0.020, 0.980 / 0.025) and once after: 0.962 / 0.050,
# 0.961 / 0.030, 0.980 / 0.030.
# Floors and ceilings are those measurements with a passage or two of slack.
HELD_OUT = [("fresh7", DATA / "safety_fresh7.jsonl", 0.93, 0.045),
            ("fresh12", DATA / "blind_s8" / "safety_fresh12.jsonl", 0.945, 0.06),
            ("fresh17", DATA / "blind_s10" / "safety_fresh17.jsonl", 0.95, 0.06),
            ("fresh18", DATA / "blind_s10" / "safety_fresh18.jsonl", 0.95, 0.04),
            ("fresh19", DATA / "blind_s10" / "safety_fresh19.jsonl", 0.97, 0.04)]


@pytest.mark.parametrize("name, path, recall, fpr", HELD_OUT)
def test_the_screen_keeps_its_score_on_the_held_out_blind_sets(name, path, recall, fpr):
    from engine.checks.safety_model import CORPUS

    assert path.exists() and path not in CORPUS, "a held-out set stays out of the corpus"
    report = ev.evaluate(ev.load(path))
    print(f"\n{name} (held out)\n" + ev.format_report(report))
    assert report.detection.recall >= recall
    assert report.fpr(report.detection) <= fpr


@pytest.mark.slow
def test_the_screen_generalises_to_fresh4_when_it_is_left_out_of_training():
    """Leave-fresh4-out, exactly as tools/safety_cv.py scores a fold: the classifier trained on
    every other set, fresh4 screened with the screen's own threshold and rule margin. Floor:
    that fold's measured figure (session 5, with the per-category heads: recall 0.789 at fpr
    0.032; the unsafe model alone on the same corpus, 0.753 / 0.032 at its own threshold;
    session 4: 0.747 / 0.058; before the window-trained classifier, 0.57 / 0.063)."""
    from engine.checks import safety
    from engine.checks.safety_model import SafetyModel
    from tools import safety_cv

    rows = safety_cv.load_sets()
    model = SafetyModel([r for r in rows if r["set"] != "fresh4"])
    scored = safety_cv.score_fold([r for r in rows if r["set"] == "fresh4"], model)
    _, recall, fpr = safety_cv.rates(scored, safety.MODEL_THRESHOLD, safety.RULE_MARGIN)
    print(f"\nfresh4 held out: recall {recall:.3f} fpr {fpr:.3f}")
    assert recall >= RECALL_FLOOR and fpr <= FPR_CEILING

