"""An outreach that promotes another product than the goal names binds approval like a safety
flag, on the service layer and the Run page, and a stage approved over it reads as an override
in the stage history (orange, "approved with an override"), never as the green of a clean one
(the tester's finding 3 in session 6: "Approved v2." in green over an open "Off product")."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engine import service
from engine.errors import ApprovalBlocked
from engine.views import get_run
from tests.test_pages import drive, open_run, submit, texts
from ui.campaign_view import stage_history_lines

INPUT = {"brand_id": 1, "brand_name": "Alma Cafe", "goal": "Launch our oat-milk cold brew",
         "audience": "young professionals", "budget": 5000, "channels": ["email"],
         "num_creators": 2}
REASON = "Espresso first this month: agreed with the owner."


@pytest.fixture(autouse=True)
def _db(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("DRAFTROOM_INAPP_WORKER", "0")
    yield


def _at_outreach() -> int:
    run_id = service.start_run(kind="campaign", actor="seed", input=INPUT)
    drive()
    service.approve(run_id=run_id, actor="priya")  # the brief, on the product: clean
    drive()
    service.approve(run_id=run_id, actor="priya")  # the shortlist
    drive()
    assert get_run(run_id).stage == "outreach"
    return run_id


def test_an_off_product_outreach_needs_a_reason_and_shows_as_an_override() -> None:
    run_id = _at_outreach()
    current = get_run(run_id).current
    assert current is not None and "oat-milk cold brew" in current.content
    service.edit(run_id=run_id, actor="sam",
                 content=current.content.replace("oat-milk cold brew", "single-origin espresso"))
    drive()
    flags = [f for f in get_run(run_id).current.flags  # type: ignore[union-attr]
             if f.category == "off_product"]
    assert flags and all(f.blocking for f in flags)
    with pytest.raises(ApprovalBlocked, match="off_product"):
        service.approve(run_id=run_id, actor="priya")
    at = open_run(run_id)
    version = get_run(run_id).current.version  # type: ignore[union-attr]
    at = submit(at, f"Approve v{version}")  # no reason: refused
    assert "approve_override" not in [a.action for a in get_run(run_id).actions]
    box = next(t for t in at.text_area if t.label.startswith("Override reason"))
    box.input(REASON)
    at = submit(at, f"Approve v{version}")
    assert not at.exception
    acts = get_run(run_id).actions
    assert [a.action for a in acts].count("approve_override") == 1
    assert any(a.comment == REASON for a in acts if a.action == "approve_override")
    drive()
    lines = stage_history_lines(get_run(run_id))
    assert lines[0].startswith(":green[") and "**Brief**: v1 approved by priya" in lines[0]
    assert lines[2].startswith(":orange[") and "approved with an override by" in lines[2]
    shown = texts(open_run(run_id))
    assert "approved with an override by" in shown
    assert ":orange-badge[:material/flag: outreach (override)]" in shown  # the stage chips
    assert ":green-badge[:material/check: brief]" in shown
