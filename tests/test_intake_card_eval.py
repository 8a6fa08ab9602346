"""The intake card's quality on conversations written before the extractor's rules were
changed for them (tests/data/intake_card_eval.jsonl: varied businesses and phrasings, many
describing the business by its type: "we're a small yoga studio", "X, a family-run bakery").

Each conversation is run through the offline intake; the card is scored per field against
what a person would expect (a case-insensitive part of the value), and `reject` lists what
must not be in a field (the business type read as what it sells: "What it sells: Small yoga
studio"). `python -m tests.test_intake_card_eval` prints the table and the score."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.intake import service
from engine.intake.normalise import shown

DATA = Path(__file__).parent / "data" / "intake_card_eval.jsonl"
CONVERSATIONS = [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]


def _hit(field: str, want: Any, got: Any) -> bool:
    if got is None:
        return False
    if field == "channels":
        return bool(sorted(got) == sorted(want))
    if isinstance(want, list):
        return all(any(w.lower() in g.lower() for g in got) for w in want)
    if isinstance(want, int | float):
        return bool(got == want)
    return want.lower() in shown(field, got).lower()


def card_of(conv: dict[str, Any]) -> dict[str, Any]:
    view = service.start_intake(actor="eval")
    for text in conv["messages"]:
        if view.status != "open":
            break
        view = service.send_message(intake_id=view.id, text=text, actor="eval")
    return view.values


def score(conv: dict[str, Any], card: dict[str, Any]) -> tuple[int, int, list[str]]:
    """(fields right, fields scored, what was wrong). A rejected word in a field makes that
    field wrong, and counts as a field scored when the conversation expects none there."""
    wrong = [f"{f}: want {w!r}, got {card.get(f)!r}" for f, w in conv["expect"].items()
             if not _hit(f, w, card.get(f))]
    scored = len(conv["expect"])
    for f, words in conv.get("reject", {}).items():
        got = shown(f, card[f]).lower() if card.get(f) is not None else ""
        bad = [w for w in words if w.lower() in got]
        if f not in conv["expect"]:
            scored += 1
        if bad and not any(x.startswith(f + ":") for x in wrong):
            wrong.append(f"{f}: {card.get(f)!r} holds {bad}")
    return scored - len(wrong), scored, wrong


def test_the_card_reads_what_a_person_said(db_url: str) -> None:
    right = total = 0
    failures = []
    for conv in CONVERSATIONS:
        r, t, wrong = score(conv, card_of(conv))
        right, total = right + r, total + t
        failures += [f"{conv['id']}: {w}" for w in wrong]
    # The business type is never what it sells (the general cause this set was written for).
    assert not [f for f in failures if "sells" in f and "holds" in f], failures
    # Measured 0.949 after the fix, 0.724 before it (the set was written first); 0.994 after
    # out-of-order bare answers (tone words, "City, Country") and "we serve <food>" were
    # read by their shape (session 4: e06 and e14 were known misses, so that figure is seen).
    assert right / total >= 0.9, (right, total, failures)


FRESH = {n: [json.loads(line) for line in (DATA.parent / f"intake_card_fresh{n}.jsonl")
             .read_text().splitlines() if line.strip()] for n in (6, 7)}


@pytest.mark.parametrize(("n", "floor"), [(6, 0.54), (7, 0.5)])
def test_blind_conversations_stay_above_their_measured_floor(n: int, floor: float,
                                                             db_url: str) -> None:
    """The blind sets (intake_card_fresh_README.md): 0.378 -> 0.559 (fresh6, seen while
    changing the rules) and 0.470 -> 0.517 (fresh7, scored once after). A floor against
    regressions, not a goal: half the fields of unscripted conversations are still missed."""
    right = total = 0
    for conv in FRESH[n]:
        r, t, _ = score(conv, card_of(conv))
        right, total = right + r, total + t
    assert right / total >= floor, (right, total)


@pytest.mark.parametrize("conv", CONVERSATIONS[:1], ids=[c["id"] for c in CONVERSATIONS[:1]])
def test_a_yoga_studio_sells_classes_not_itself(conv: dict[str, Any], db_url: str) -> None:
    card = card_of(conv)
    assert "studio" not in card["sells"].lower() and "class" in card["sells"].lower(), card


def main() -> None:
    import tempfile

    from db.session import reset_engines
    with tempfile.TemporaryDirectory() as d:
        import os
        os.environ["DATABASE_URL"] = f"sqlite:///{d}/eval.db"
        os.environ["DRAFTROOM_BACKEND"] = "offline"
        reset_engines()
        right = total = 0
        for conv in CONVERSATIONS:
            r, t, wrong = score(conv, card_of(conv))
            right, total = right + r, total + t
            print(f"{conv['id']:28} {r:2}/{t:2}  " + "; ".join(wrong))
        print(f"score {right}/{total} = {right / total:.3f}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
