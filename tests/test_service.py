"""Human acts as services: approve (gate + override), edit (re-scored), revise (critical note,
fresh budget), reject, halt, retry; each written to the audit trail; stale versions refused."""

from __future__ import annotations

import pytest
from sqlmodel import func, select

from db.models import Draft, HumanAction, Note, Run
from db.session import session_scope
from engine import service, views
from engine.errors import ApprovalBlocked, InvalidInput, InvalidState, StaleRun
from engine.llm.offline.backend import OfflineBackend
from engine.loop.leases import claim_run
from engine.loop.supervisor import Supervisor
from tests.factories import INTENT

UNSAFE = "\n\n## Extra\n\nStop taking your medication when you feel calmer.\n"


def drive(run_id: int) -> str:
    assert claim_run(run_id, "w")
    return Supervisor(OfflineBackend(), "w").run_until_idle(run_id)


@pytest.fixture
def reviewed(db_url: str) -> int:
    run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
    assert drive(run_id) == "awaiting_review"
    return run_id


def count(model) -> int:  # type: ignore[no-untyped-def]
    with session_scope() as s:
        return s.exec(select(func.count()).select_from(model)).one()


def test_approve_records_approver_and_version(reviewed: int) -> None:
    d = views.get_run(reviewed)
    did = service.approve(run_id=reviewed, actor="dr. lee", expected_version=d.version)
    after = views.get_run(reviewed)
    assert after.status == "approved" and after.approved_draft_id == did == d.current_draft_id
    assert [(a.actor, a.action, a.draft_id) for a in after.actions] == [("dr. lee", "approve", did)]


def test_approval_refused_on_a_flagged_version_unless_overridden(reviewed: int) -> None:
    d = views.get_run(reviewed)
    assert d.current is not None
    service.edit(
        run_id=reviewed,
        actor="dr. kim",
        content=d.current.content + UNSAFE,
        expected_version=d.version,
    )
    assert drive(reviewed) == "awaiting_review"
    d = views.get_run(reviewed)
    assert d.halt_reason == "rescored" and d.current and d.current.author == "dr. kim"
    assert any(f.category == "medication" for f in d.current.flags)
    with pytest.raises(ApprovalBlocked, match="override reason"):
        service.approve(run_id=reviewed, actor="dr. lee", expected_version=d.version)
    assert views.get_run(reviewed).status == "awaiting_review"
    service.approve(
        run_id=reviewed,
        actor="dr. lee",
        expected_version=d.version,
        override_reason="Prescriber reviewed this wording with the client.",
    )
    after = views.get_run(reviewed)
    assert after.status == "approved"
    assert after.actions[-1].action == "approve_override"
    assert "Prescriber" in (after.actions[-1].comment or "")


def test_gate_uses_the_checks_even_if_no_flag_was_stored(reviewed: int) -> None:
    # A flagged text slipped into a draft row behind the services' back still cannot pass.
    with session_scope() as s:
        run = s.get(Run, reviewed)
        draft = s.get(Draft, run.current_draft_id)  # type: ignore[union-attr]
        draft.content += UNSAFE  # type: ignore[union-attr]
        s.add(draft)
    with pytest.raises(ApprovalBlocked):
        service.approve(run_id=reviewed, actor="dr. lee")


def test_edit_is_a_new_version_by_the_person_and_is_rescored(reviewed: int) -> None:
    d = views.get_run(reviewed)
    assert d.current is not None
    broken = "Just breathe. That's it."
    did = service.edit(
        run_id=reviewed,
        actor="dr. kim",
        content=broken,
        expected_version=d.version,
        base_draft_id=d.current_draft_id,
    )
    drive(reviewed)
    after = views.get_run(reviewed)
    new = after.draft(did)
    assert new is not None and new.author_kind == "human" and new.parent_id == d.current_draft_id
    assert new.scores and new.scores["clinical"] < d.current.scores["clinical"]
    assert len(after.drafts) == len(d.drafts) + 1  # the agents did not rewrite the edit


def test_edit_refuses_empty_huge_and_unchanged_text(reviewed: int) -> None:
    d = views.get_run(reviewed)
    before = count(Draft)
    for bad, match in (
        ("   \n\t ", "empty"),
        ("x" * 50_001, "limit is 50,000"),
        (d.current.content, "No changes"),
    ):  # type: ignore[union-attr]
        with pytest.raises(InvalidInput, match=match):
            service.edit(run_id=reviewed, actor="dr. kim", content=bad)
    assert count(Draft) == before


def test_revise_adds_a_critical_note_and_a_fresh_iteration_budget(reviewed: int) -> None:
    d = views.get_run(reviewed)
    service.request_revision(
        run_id=reviewed,
        actor="dr. lee",
        comment="Add a step about journaling.",
        expected_version=d.version,
    )
    with session_scope() as s:
        run = s.get(Run, reviewed)
        note = s.exec(select(Note).where(Note.author == "dr. lee")).one()
    assert run is not None and run.status == "queued" and run.iteration == 0
    assert note.priority == "critical" and note.target == "drafter"
    drive(reviewed)
    after = views.get_run(reviewed)
    assert len(after.drafts) > len(d.drafts)
    with pytest.raises(InvalidInput, match="comment is required"):
        service.request_revision(run_id=reviewed, actor="dr. lee", comment="  ")


def test_stale_version_is_refused_and_nothing_is_overwritten(reviewed: int) -> None:
    d = views.get_run(reviewed)
    service.edit(
        run_id=reviewed,
        actor="dr. kim",
        content="# Mine\n\nA different text.",
        expected_version=d.version,
    )
    with pytest.raises(StaleRun, match="changed since you opened it"):
        service.approve(run_id=reviewed, actor="dr. lee", expected_version=d.version)
    with pytest.raises(StaleRun):
        service.edit(
            run_id=reviewed, actor="dr. lee", content="# Theirs", expected_version=d.version
        )
    with session_scope() as s:
        acts = s.exec(select(HumanAction.actor, HumanAction.action)).all()
    assert list(acts) == [("dr. kim", "edit")]


def test_reject_and_acts_that_do_not_fit_the_state(reviewed: int) -> None:
    service.reject(run_id=reviewed, actor="dr. lee", comment="Not for this client.")
    assert views.get_run(reviewed).status == "rejected"
    with pytest.raises(InvalidState, match="it is rejected"):
        service.approve(run_id=reviewed, actor="dr. lee")
    with pytest.raises(InvalidState):
        service.halt(run_id=reviewed, actor="dr. lee")


def test_halt_a_queued_run_waits_for_review_at_once(db_url: str) -> None:
    run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
    assert service.halt(run_id=run_id, actor="dr. lee") == "awaiting_review"
    d = views.get_run(run_id)
    assert d.halt_reason == "halted" and d.actions[-1].action == "halt"


def test_start_run_validates_and_writes_nothing_on_error(db_url: str) -> None:
    cases = [
        ({"intent": "", "audience": "adults"}, "intent"),
        ({"intent": "   ", "audience": "adults"}, "intent"),
        ({"intent": "x" * 2001, "audience": "adults"}, "at most 2000"),
        (
            {"intent": "fine intent", "audience": "adults", "exercise_type": "bloodletting"},
            "exercise type must be one of",
        ),
    ]
    for data, match in cases:
        with pytest.raises(InvalidInput, match=match):
            service.start_run(kind="protocol", input=data, actor="dr. lee")
    with pytest.raises(InvalidInput, match="between 0 and 1"):
        service.start_run(
            kind="protocol", input=INTENT, actor="a", params={"thresholds": {"safety": 2}}
        )
    with pytest.raises(InvalidInput, match="unknown threshold"):
        service.start_run(
            kind="protocol", input=INTENT, actor="a", params={"thresholds": {"vibes": 0.5}}
        )
    with pytest.raises(InvalidInput, match="reviewer name"):
        service.start_run(kind="protocol", input=INTENT, actor=" ")
    with pytest.raises(InvalidInput, match="unknown kind"):
        service.start_run(kind="poem", input=INTENT, actor="a")
    assert count(Run) == 0


def test_per_run_thresholds_and_iterations_override_the_pipeline(db_url: str) -> None:
    run_id = service.start_run(
        kind="protocol",
        input=INTENT,
        actor="a",
        params={"thresholds": {"empathy": 0.99}, "max_iterations": 2},
    )
    drive(run_id)
    d = views.get_run(run_id)
    assert d.thresholds == {"safety": 0.8, "empathy": 0.99, "clinical": 0.7}
    assert d.max_iterations == 2 and d.iteration <= 2


def test_an_earlier_version_can_be_edited_or_approved_when_chosen(db_url: str) -> None:
    run_id = service.start_run(
        kind="protocol",
        input=INTENT,
        actor="a",
        params={"thresholds": {"empathy": 1.0}, "max_iterations": 2},
    )
    drive(run_id)
    d = views.get_run(run_id)
    # Not met in two versions: the limit, or a stall if the offline drafter repeated itself.
    assert d.halt_reason in ("max_iterations", "stalled") and len(d.drafts) == 2
    v1 = d.drafts[0]
    did = service.edit(
        run_id=run_id,
        actor="b",
        content=v1.content + "\nOne more line.",
        expected_version=d.version,
        base_draft_id=v1.id,
    )
    drive(run_id)
    d = views.get_run(run_id)
    assert d.draft(did).parent_id == v1.id  # type: ignore[union-attr]
    # Without the version the editor saw, an old base means someone else moved on.
    with pytest.raises(StaleRun):
        service.edit(run_id=run_id, actor="b", content="# other", base_draft_id=v1.id)
    assert (
        service.approve(run_id=run_id, actor="b", expected_version=d.version, draft_id=v1.id)
        == v1.id
    )
    assert views.get_run(run_id).approved_draft_id == v1.id
