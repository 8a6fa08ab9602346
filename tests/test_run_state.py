"""The run state machine (engine/run_state.py): every legal transition does what the loop and
the services rely on, an illegal one is refused with an error naming the run's state and what
the transition needs, and the loop's bookkeeping stays out of the person's params."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import pytest
from sqlmodel import select

from db.models import Draft, Run, utcnow
from db.session import session_scope
from engine import run_state, service, views
from engine.errors import InvalidState
from engine.loop.leases import claim_run
from engine.loop.supervisor import Supervisor
from engine.run_state import HaltReason, IllegalTransition, Node, RunStatus
from tests.factories import review
from tests.test_campaign_pipeline import start as start_campaign
from tests.utils.scripted import ScriptedModel

SHARPER = ("Measured as 300 extra weekend brunch covers between March and May, counted at "
           "the till by a code in each message, against the same weeks of last spring.")


@dataclass
class FakeRun:
    """A run's state fields, as the ORM Run and the loop's RunRow both have them."""

    status: str = RunStatus.RUNNING
    id: int | None = 7
    next_node: str | None = Node.DRAFT
    review_mode: str = "loop"
    halt_reason: str | None = None
    halt_requested: bool = False
    error: str | None = None
    iteration: int = 2
    stage: str = "brief"
    current_draft_id: int | None = 3
    best_draft_id: int | None = 3
    approved_draft_id: int | None = None
    lease_owner: str | None = "w1"
    lease_expires: datetime | None = None
    updated_at: datetime = utcnow()


@pytest.mark.parametrize(("status", "transition"), [
    (RunStatus.RUNNING, lambda r: run_state.approve(r, 3, last_stage=True)),
    (RunStatus.QUEUED, lambda r: run_state.reject(r)),
    (RunStatus.REVIEW, lambda r: run_state.retry(r)),
    (RunStatus.APPROVED, lambda r: run_state.queue(r, Node.DRAFT)),
    (RunStatus.REVIEW, lambda r: run_state.request_halt(r)),
    (RunStatus.QUEUED, lambda r: run_state.to_review(r, HaltReason.THRESHOLDS_MET)),
    (RunStatus.REVIEW, lambda r: run_state.fail(r, "timeout", "too slow")),
    (RunStatus.FAILED, lambda r: run_state.goto(r, Node.REVIEW)),
    (RunStatus.REJECTED, lambda r: run_state.stop_on_budget(r)),
])
def test_an_illegal_transition_is_refused_and_changes_nothing(status, transition) -> None:  # type: ignore[no-untyped-def]
    run = FakeRun(status=status)
    before = vars(run).copy()
    with pytest.raises(IllegalTransition) as err:
        transition(run)
    message = str(err.value)
    assert f"run 7: it is {status.replace('_', ' ')}" in message
    assert "possible when it is" in message
    assert vars(run) == before
    assert isinstance(err.value, InvalidState)  # the services' callers catch it as one


def test_advancing_a_stage_needs_a_pending_approval() -> None:
    run = FakeRun(next_node=Node.DRAFT)
    with pytest.raises(IllegalTransition, match="no stage approval is pending"):
        run_state.advance_stage(run, "outreach")
    run.next_node = Node.ADVANCE
    run_state.advance_stage(run, "outreach")
    assert (run.stage, run.iteration, run.current_draft_id, run.next_node) == (
        "outreach", 0, None, Node.DRAFT)


def test_legal_transitions_end_where_the_loop_expects() -> None:
    run = FakeRun()
    run_state.to_review(run, HaltReason.STALLED)
    assert (run.status, run.halt_reason, run.next_node, run.lease_owner) == (
        RunStatus.REVIEW, "stalled", None, None)
    run_state.queue(run, Node.DRAFT)
    assert (run.status, run.next_node, run.halt_reason) == (RunStatus.QUEUED, "draft", None)
    run_state.request_halt(run)  # queued: waits for review at once, its node kept
    assert (run.status, run.halt_reason, run.next_node) == (RunStatus.REVIEW, "halted", "draft")
    run = FakeRun(next_node=Node.REVIEW)
    run_state.stop_on_budget(run)
    assert run_state.resume_after_budget(run) is True
    assert (run.status, run.next_node) == (RunStatus.QUEUED, "review")
    run = FakeRun()
    run_state.fail(run, "timeout", "the model did not answer")
    assert (run.status, run.halt_reason, run.error) == (
        RunStatus.FAILED, "error:timeout", "the model did not answer")
    run_state.retry(run)
    assert (run.status, run.next_node, run.error) == (RunStatus.QUEUED, "draft", None)


def test_the_service_refuses_an_act_the_state_does_not_allow(db_url: str) -> None:
    run_id = service.start_run(kind="protocol", input={"intent": "Exam panic",
                                                       "audience": "students"}, actor="dr. lee")
    with pytest.raises(InvalidState, match="it is queued"):
        service.approve(run_id=run_id, actor="dr. lee")
    with pytest.raises(InvalidState, match="it is queued"):
        service.retry(run_id=run_id, actor="dr. lee")
    assert views.get_run(run_id).status == RunStatus.QUEUED


def test_verdicts_live_on_the_draft_not_in_the_persons_params(db_url: str) -> None:
    def offline(call):  # type: ignore[no-untyped-def]
        return call.offline(call.task)

    revise = review({"brand_voice": 0.9, "quality": 0.9, "completion": 0.9},
                    [("drafter", "warning", "Sharper objective, please.")], verdict="REVISE")
    passing = review({"brand_voice": 0.9, "quality": 0.9, "completion": 0.9}, verdict="PASS")
    def sharper(call):  # type: ignore[no-untyped-def]
        brief = call.offline(call.task)
        return brief.model_copy(update={"objective": brief.objective + " " + SHARPER})

    model = ScriptedModel({"brief_writer": [offline, sharper], "evaluator": [revise, passing]})
    run_id = start_campaign()
    assert claim_run(run_id, "w")
    Supervisor(model, "w").run_until_idle(run_id)
    with session_scope() as s:
        run = s.get(Run, run_id)
        drafts = s.exec(select(Draft).where(Draft.run_id == run_id).order_by(Draft.version)).all()
        assert run is not None
        params = dict(run.params)
    assert [d.verdict for d in drafts] == ["REVISE", "PASS"]
    assert not [k for k in params if k.startswith("_")], params
    assert views.get_run(run_id).halt_reason == "thresholds_met"
