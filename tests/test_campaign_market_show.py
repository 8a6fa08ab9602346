"""The market a campaign runs under says when it is the default for want of the brand's own,
wherever it is shown: `python -m engine show` and the drafter's context (a real model reads
it), not only the Run page's header (the tester's finding 12 in session 6)."""

from __future__ import annotations

import json

import pytest

from db.session import session_scope
from engine.pipelines.campaign.context import stage_context
from tests.test_follow_loop import cli

ALMA = {"brand_id": 1, "brand_name": "Alma Cafe", "goal": "Launch our oat-milk cold brew",
        "audience": "young professionals", "budget": 3000, "channels": ["email"],
        "num_creators": 2}


def test_show_and_the_drafter_s_context_say_the_market_fell_back(
        db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, "run", "campaign", "--input-json", json.dumps(ALMA))  # Rehovot, Israel
    shown = cli(capsys, "show", "1")
    line = next(x for x in shown.splitlines() if x.startswith("market: "))
    assert line.startswith("market: United States") and "no market rules for Israel" in line
    with session_scope() as s:
        assert "no market rules for Israel" in stage_context(s, 1, "brief")["market"]
    cli(capsys, "run", "campaign", "--input-json", json.dumps(ALMA | {"region": "uk"}))
    chosen = next(x for x in cli(capsys, "show", "2").splitlines() if x.startswith("market: "))
    assert chosen.startswith("market: United Kingdom") and "default" not in chosen
