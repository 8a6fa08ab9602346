"""A campaign stage that promotes another product than the goal names binds the approval gate
like a safety flag: approving it needs an override reason, kept in the audit trail, and the
approval shows as an override (the tester's finding 3 in session 6: "Approved v2." in green over
an open "Off product" warning). For the brief and the outreach, whoever wrote the text."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engine import service
from engine.errors import ApprovalBlocked
from engine.views import get_run
from tests.test_pages import drive, open_run, submit

GOAL = "Launch our oat-milk cold brew in March 2027"
INPUT = {"brand_id": 1, "brand_name": "Alma Cafe", "goal": GOAL,
         "audience": "young professionals", "budget": 5000, "channels": ["email"],
         "num_creators": 2}
REASON = "The espresso push was agreed with the owner for this month."


@pytest.fixture(autouse=True)
def _db(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("DRAFTROOM_INAPP_WORKER", "0")
    yield


def _off_product(text: str) -> str:
    return text.replace("oat-milk cold brew", "single-origin espresso")


def _edited_off_product() -> int:
    """The brief, as written, promotes the cold brew; a person's edit swaps in espresso."""
    run_id = service.start_run(kind="campaign", actor="seed", input=INPUT)
    drive()
    brief = get_run(run_id).current
    assert brief is not None and "oat-milk cold brew" in brief.content
    service.edit(run_id=run_id, actor="sam", content=_off_product(brief.content))
    drive()
    return run_id


def test_an_off_product_brief_needs_an_override_reason() -> None:
    run_id = _edited_off_product()
    current = get_run(run_id).current
    assert current is not None
    flags = [f for f in current.flags if f.category == "off_product"]
    assert flags and all(f.blocking for f in flags)
    with pytest.raises(ApprovalBlocked, match="off_product"):
        service.approve(run_id=run_id, actor="priya")
    service.approve(run_id=run_id, actor="priya", override_reason=REASON)
    acts = [a.action for a in get_run(run_id).actions]
    assert "approve_override" in acts and "approve" not in acts


def test_a_brief_on_the_goal_s_product_approves_cleanly() -> None:
    run_id = service.start_run(kind="campaign", actor="seed", input=INPUT)
    drive()
    service.approve(run_id=run_id, actor="priya")
    assert "approve" in [a.action for a in get_run(run_id).actions]


def test_the_run_page_asks_for_the_reason_before_approving() -> None:
    run_id = _edited_off_product()
    at = open_run(run_id)
    assert not at.exception
    assert any("Off product" in e.value for e in at.error)  # shown with the blocking flags
    version = get_run(run_id).current.version  # type: ignore[union-attr]
    assert "off product" in "\n".join(m.value for m in at.markdown)
    at = submit(at, f"Approve v{version}")
    assert not at.exception
    assert "approve" not in [a.action for a in get_run(run_id).actions]  # no reason: refused
    box = next(t for t in at.text_area if t.label.startswith("Override reason"))
    box.input(REASON)
    at = submit(at, f"Approve v{version}")
    assert not at.exception
    assert "approve_override" in [a.action for a in get_run(run_id).actions]
