"""A queued run offers "Cancel run", not "Halt the loop" (issue 16's leftover): it stops the run
before any worker takes it, through the run state machine (engine/run_state.cancel), with who
and why in the audit trail. AppTest drives the Run page; the service and the state machine are
checked underneath."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from engine import run_state, service
from engine.cancel import cancel
from engine.errors import InvalidInput, InvalidState, StaleRun
from engine.loop.leases import claim_next, claim_run
from engine.run_state import HaltReason, IllegalTransition, RunStatus
from engine.views import get_run
from tests.test_pages import assert_ok, drive, new_run, open_run, submit, texts

INPUT = {"intent": "Wind down before sleep", "audience": "adults"}


@pytest.fixture(autouse=True)
def _db(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DRAFTROOM_INAPP_WORKER", "0")


def _queued() -> int:
    return service.start_run(kind="protocol", actor="seed", input=INPUT)


def _reason(at: AppTest, run_id: int, text: str) -> None:
    at.text_input(key=f"cancel_reason_{run_id}").set_value(text)


def test_a_queued_run_is_cancelled_from_its_page_with_who_and_why() -> None:
    run_id = _queued()
    at = open_run(run_id)
    assert_ok(at)
    labels = [b.label for b in at.button]
    assert "Cancel run" in labels and "Halt" not in labels
    assert "It has no version yet, so it ends as rejected." in texts(at)
    _reason(at, run_id, "Started by mistake: wrong audience")
    submit(at, "Cancel run")
    assert_ok(at)
    detail = get_run(run_id)
    assert detail.status == RunStatus.REJECTED and detail.halt_reason == HaltReason.CANCELLED
    act = detail.actions[-1]
    assert (act.action, act.actor, act.comment) == (
        "cancel", "Dr. Lee", "Started by mistake: wrong audience")
    shown = texts(at)
    assert ("Cancelled by Dr\\. Lee before it started: Started by mistake\\: wrong audience"
            in shown)  # (escaped for Markdown)
    assert "no worker will take" not in shown  # the banner says it once
    assert "Cancel run" not in [b.label for b in at.button]
    # No worker takes it afterwards: nothing is drafted, no model is called.
    assert claim_next("w1") is None
    assert get_run(run_id).drafts == [] and get_run(run_id).steps == []


def test_cancel_needs_a_reason_and_changes_nothing_without_one() -> None:
    run_id = _queued()
    at = open_run(run_id)
    submit(at, "Cancel run")
    assert_ok(at)
    assert any("A reason is required" in e.value for e in at.error)
    detail = get_run(run_id)
    assert detail.status == RunStatus.QUEUED and detail.actions == []


def test_a_revision_queued_and_then_cancelled_leaves_its_versions_for_review() -> None:
    run_id = new_run()
    versions = [d.version for d in get_run(run_id).drafts]
    service.request_revision(run_id=run_id, actor="Dr. Lee", comment="Shorter steps, please.")
    at = open_run(run_id)
    assert "Its versions wait for your review as they were." in texts(at)
    _reason(at, run_id, "Sent back by mistake")
    submit(at, "Cancel run")
    assert_ok(at)
    detail = get_run(run_id)
    assert detail.status == RunStatus.REVIEW and detail.halt_reason == HaltReason.CANCELLED
    assert [d.version for d in detail.drafts] == versions  # nothing redrafted
    assert "cancelled before it started" in texts(at)
    assert any(b.label.startswith("Approve v") for b in at.button)


def test_a_run_a_worker_took_meanwhile_is_not_cancelled_and_the_page_says_so() -> None:
    run_id = _queued()
    at = open_run(run_id)  # the page was drawn while the run was queued ...
    assert claim_run(run_id, "w1")  # ... then a worker took it
    _reason(at, run_id, "Too late?")
    submit(at, "Cancel run")
    assert_ok(at)
    assert any("changed since you opened it" in w.value for w in at.warning)
    detail = get_run(run_id)
    assert detail.status == RunStatus.RUNNING and all(a.action != "cancel"
                                                      for a in detail.actions)
    # The page now offers what fits a running run.
    assert "Halt" in [b.label for b in at.button]
    assert "Cancel run" not in [b.label for b in at.button]


def test_the_service_and_the_state_machine_refuse_what_is_not_queued() -> None:
    run_id = new_run()  # awaiting review
    with pytest.raises(InvalidState, match="Cannot cancel run .*awaiting review"):
        cancel(run_id=run_id, actor="Dr. Lee", reason="no")
    queued = _queued()
    with pytest.raises(InvalidInput):
        cancel(run_id=queued, actor="Dr. Lee", reason="   ")
    with pytest.raises(StaleRun):
        cancel(run_id=queued, actor="Dr. Lee", reason="old page", expected_version=-1)
    assert get_run(queued).status == RunStatus.QUEUED
    detail = get_run(run_id)
    with pytest.raises(IllegalTransition):
        run_state.cancel(detail)  # type: ignore[arg-type]
    drive()  # the queued one was never cancelled: a worker drives it as usual
    assert get_run(queued).status == RunStatus.REVIEW


def test_the_command_line_cancels_a_queued_run_and_refuses_a_running_one(
        capsys: pytest.CaptureFixture[str]) -> None:
    from engine.interfaces.cli import main

    run_id = _queued()
    assert main(["cancel", str(run_id), "--reason", "Duplicate of #7", "--actor", "a"]) == 0
    assert capsys.readouterr().out.strip() == "cancelled: rejected, it had no version"
    act = get_run(run_id).actions[-1]
    assert (act.action, act.actor, act.comment) == ("cancel", "a", "Duplicate of #7")
    taken = _queued()
    assert claim_run(taken, "w1")
    assert main(["cancel", str(taken), "--reason", "late", "--actor", "a"]) == 2
    assert "it is running" in capsys.readouterr().err
