"""A brand in a country with no market rules runs under the default market, and the Run page
says so (the tester's finding 12 in session 6: an Israeli brand's run read "market: United
States" as if it were chosen)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engine import service
from engine.pipelines.campaign.market import fallback_reason, market_line
from tests.test_pages import drive, open_run

ALMA = {"brand_id": 1, "brand_name": "Alma Cafe", "goal": "Launch our oat-milk cold brew",
        "audience": "young professionals", "budget": 3000, "channels": ["email"],
        "num_creators": 2}


@pytest.fixture(autouse=True)
def _db(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("DRAFTROOM_INAPP_WORKER", "0")
    yield


def test_the_reason_names_the_country_without_rules() -> None:
    assert "no market rules for Israel" in (
        fallback_reason({}, {"location": "Rehovot, Israel"}) or "")
    assert fallback_reason({}, {"location": "Berlin, Germany"}) is None  # its own market
    assert fallback_reason({"region": "uk"}, {"location": "Rehovot, Israel"}) is None  # chosen
    assert fallback_reason({}, None) is None


def test_the_run_page_says_the_market_is_the_default_for_want_of_one() -> None:
    line = market_line(ALMA)  # Alma Cafe is in Rehovot, Israel
    assert line.startswith("market: United States") and "no market rules for Israel" in line
    run_id = service.start_run(kind="campaign", actor="seed", input=ALMA)
    drive()
    at = open_run(run_id)
    assert not at.exception
    shown = "\n".join(str(m.value) for m in at.markdown)
    assert "no market rules for Israel" in shown
    chosen = market_line(ALMA | {"region": "uk"})
    assert chosen.startswith("market: United Kingdom") and "default" not in chosen
