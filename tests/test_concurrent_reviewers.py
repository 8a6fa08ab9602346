"""Two reviewers on the same run: whoever acts second on a version they no longer see gets
StaleRun ("this run changed since you opened it") and nothing of the first act is overwritten.
Sequential (two open sessions) and truly simultaneous (threads released together), on SQLite
and PostgreSQL."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from sqlmodel import func, select

from db.models import Draft, HumanAction, Run
from db.session import session_scope
from engine import service, views
from engine.errors import StaleRun
from engine.loop.leases import claim_run
from engine.loop.supervisor import Supervisor
from engine.run_state import RunStatus
from tests.factories import (
    GOOD_CLINICAL,
    GOOD_SAFETY,
    review,
    reviewed_protocol_run,
)
from tests.utils.scripted import ScriptedModel


def counts(run_id: int) -> tuple[int, int]:
    with session_scope() as s:
        drafts = s.exec(select(func.count()).select_from(Draft).where(Draft.run_id == run_id)).one()
        acts = s.exec(select(func.count()).select_from(HumanAction)
                      .where(HumanAction.run_id == run_id)).one()
    return drafts, acts


def test_second_approval_of_the_same_version_is_refused(db_any: str) -> None:
    run_id = reviewed_protocol_run()
    tab_a, tab_b = views.get_run(run_id), views.get_run(run_id)  # both open the run
    approved = service.approve(run_id=run_id, actor="dr. lee", expected_version=tab_a.version)
    with pytest.raises(StaleRun, match="changed since you opened it"):
        service.approve(run_id=run_id, actor="dr. kim", expected_version=tab_b.version)
    d = views.get_run(run_id)
    assert d.status == RunStatus.APPROVED and d.approved_draft_id == approved
    assert [(a.actor, a.action) for a in d.actions] == [("dr. lee", "approve")]


def test_edit_then_stale_approve_keeps_the_edit(db_any: str) -> None:
    run_id = reviewed_protocol_run()
    tab_a, tab_b = views.get_run(run_id), views.get_run(run_id)
    text = tab_a.current.content + "\n\nAdded by Dr. Lee: practise once a day."  # type: ignore[union-attr]
    new_id = service.edit(run_id=run_id, actor="dr. lee", content=text,
                          expected_version=tab_a.version, base_draft_id=tab_a.current_draft_id)
    drafts_before, acts_before = counts(run_id)
    with pytest.raises(StaleRun):
        service.approve(run_id=run_id, actor="dr. kim", expected_version=tab_b.version)
    with pytest.raises(StaleRun):
        service.request_revision(run_id=run_id, actor="dr. kim", comment="shorter please",
                                 expected_version=tab_b.version)
    assert counts(run_id) == (drafts_before, acts_before)
    d = views.get_run(run_id)
    assert d.current_draft_id == new_id and d.current.content == text  # type: ignore[union-attr]
    assert d.status == RunStatus.QUEUED  # the edit goes to the critics, nobody approved v1


def test_two_edits_from_the_same_base_the_second_is_refused(db_any: str) -> None:
    run_id = reviewed_protocol_run()
    tab_a, tab_b = views.get_run(run_id), views.get_run(run_id)
    base = tab_a.current
    assert base is not None
    mine = service.edit(run_id=run_id, actor="dr. lee", content=base.content + "\nLee's line.",
                        expected_version=tab_a.version, base_draft_id=base.id)
    # Dr. Kim's page is stale on both counts; each is refused on its own.
    with pytest.raises(StaleRun):
        service.edit(run_id=run_id, actor="dr. kim", content=base.content + "\nKim's line.",
                     expected_version=tab_b.version, base_draft_id=base.id)
    # Once Dr. Lee's edit is re-scored and waits for review again, an edit based on v1 is
    # still refused: v2 is newer than what Dr. Kim started from.
    rescore = ScriptedModel({"safety_guardian": [review(GOOD_SAFETY)],
                             "clinical_critic": [review(GOOD_CLINICAL)]})
    assert claim_run(run_id, "w1")
    assert Supervisor(rescore, "w1").run_until_idle(run_id) == RunStatus.REVIEW
    with pytest.raises(StaleRun, match="newer version"):
        service.edit(run_id=run_id, actor="dr. kim", content=base.content + "\nKim's line.",
                     base_draft_id=base.id)
    with session_scope() as s:
        drafts = s.exec(select(Draft).where(Draft.run_id == run_id).order_by(Draft.version)).all()
    assert [(d.version, d.author) for d in drafts] == [(1, "drafter"), (2, "dr. lee")]
    assert drafts[1].id == mine and drafts[1].content.endswith("Lee's line.")
    assert drafts[0].content == base.content  # the base version is never rewritten


def _race(n: int, act: Callable[[int], Any]) -> tuple[list[Any], list[BaseException]]:
    """Run `act(i)` in n threads released at the same instant."""
    barrier = threading.Barrier(n)
    results: list[Any] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def go(i: int) -> None:
        barrier.wait()
        try:
            r = act(i)
            with lock:
                results.append(r)
        except BaseException as exc:  # noqa: BLE001  (collected and checked below)
            with lock:
                errors.append(exc)

    threads = [threading.Thread(target=go, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return results, errors


@pytest.mark.parametrize("rounds", [5])
def test_simultaneous_approvals_exactly_one_wins(db_any: str, rounds: int) -> None:
    for _ in range(rounds):
        run_id = reviewed_protocol_run()
        version = views.get_run(run_id).version
        wins, errors = _race(4, lambda i, r=run_id, v=version: service.approve(
            run_id=r, actor=f"reviewer {i}", expected_version=v))
        assert len(wins) == 1, (wins, errors)
        assert len(errors) == 3 and all(isinstance(e, StaleRun) for e in errors), errors
        d = views.get_run(run_id)
        assert d.status == RunStatus.APPROVED
        assert len([a for a in d.actions if a.action == "approve"]) == 1


def test_simultaneous_edits_from_one_base_exactly_one_is_kept(db_any: str) -> None:
    run_id = reviewed_protocol_run()
    tab = views.get_run(run_id)
    base = tab.current
    assert base is not None
    saved, errors = _race(4, lambda i: (i, service.edit(
        run_id=run_id, actor=f"reviewer {i}", content=f"{base.content}\nLine from reviewer {i}.",
        expected_version=tab.version, base_draft_id=base.id)))
    assert len(saved) == 1 and all(isinstance(e, StaleRun) for e in errors), errors
    winner, draft_id = saved[0]
    with session_scope() as s:
        drafts = s.exec(select(Draft).where(Draft.run_id == run_id)).all()
        run = s.get(Run, run_id)
        acts = s.exec(select(HumanAction).where(HumanAction.run_id == run_id)).all()
    assert len(drafts) == 2 and run is not None and run.current_draft_id == draft_id
    kept = next(d for d in drafts if d.id == draft_id)
    assert kept.content.endswith(f"Line from reviewer {winner}.")
    assert [(a.actor, a.action) for a in acts] == [(f"reviewer {winner}", "edit")]


def test_approve_racing_a_send_back_one_wins_and_the_audit_trail_says_which(db_any: str) -> None:
    run_id = reviewed_protocol_run()
    version = views.get_run(run_id).version

    def act(i: int) -> str:
        if i == 0:
            service.approve(run_id=run_id, actor="dr. lee", expected_version=version)
            return "approve"
        service.request_revision(run_id=run_id, actor="dr. kim", comment="More concrete steps.",
                                 expected_version=version)
        return "revise"

    done, errors = _race(2, act)
    assert len(done) == 1 and len(errors) == 1 and isinstance(errors[0], StaleRun), errors
    d = views.get_run(run_id)
    assert [a.action for a in d.actions] == done
    assert d.status == (RunStatus.APPROVED if done == ["approve"] else RunStatus.QUEUED)
