"""The review queue's queries at scale: a section's page of runs is read along the
(status, updated_at, id) index without sorting the section (and in the same order as one sort
would give), the reviewer filter's people by hopping along their indexes, and "Assigned to me"
by an index seek (tests/test_queue_scale.py has the page itself)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from sqlalchemy.dialects import sqlite

from db.models import HumanAction, Run, utcnow
from db.session import get_engine, session_scope
from engine.assignment import assigned_to_me
from engine.run_list import STATUS_ORDER, RunFilters, _page_ids, list_runs, people
from engine.run_state import RunStatus


@pytest.fixture
def _db(db_url: str) -> Iterator[None]:
    yield


pytestmark = pytest.mark.usefixtures("_db")

STATUSES = [RunStatus.REVIEW, RunStatus.FAILED, RunStatus.RUNNING, RunStatus.QUEUED,
            RunStatus.APPROVED, RunStatus.REJECTED]


def _add(n: int) -> None:
    """`n` runs over every status (and one the order does not know), updated out of order,
    two of every few with the same time (the id breaks the tie)."""
    now = utcnow()
    with session_scope() as s:
        s.add_all(Run(kind="protocol" if i % 3 else "campaign", title=f"Run {i}",
                      status=(STATUSES + ["paused"])[i % 7], stage="draft", next_node=None,
                      created_by=f"person {i % 4}",
                      updated_at=now - timedelta(seconds=(i * 7919) % 97 // 2))
                  for i in range(n))


def _expected(statuses: list[str] | None, kind: str | None = None) -> list[int]:
    with session_scope() as s:
        runs = [r for r in s.exec(Run.__table__.select()).all()
                if (not statuses or r.status in statuses) and (not kind or r.kind == kind)]
    runs.sort(key=lambda r: (STATUS_ORDER.get(r.status, 9), -r.updated_at.timestamp(), -r.id))
    return [r.id for r in runs]


@pytest.mark.parametrize("statuses", [
    [RunStatus.REVIEW, RunStatus.FAILED], list(RunStatus.ACTIVE), list(RunStatus.FINAL),
    [RunStatus.REJECTED, "paused", RunStatus.REVIEW], None])
def test_every_page_of_a_section_is_in_the_queue_order(statuses: list[str] | None) -> None:
    _add(300)
    for kind in (None, "campaign"):
        want = _expected(statuses, kind)
        got = []
        for offset in range(0, len(want) + 20, 9):
            got += [r.id for r in list_runs(statuses=statuses, kind=kind, limit=9,
                                            offset=offset)]
        assert got == want, (statuses, kind)


def _plan(query: object) -> str:
    sql = str(query.compile(dialect=sqlite.dialect(),  # type: ignore[attr-defined]
                            compile_kwargs={"literal_binds": True}))
    with get_engine().connect() as c:
        return " | ".join(row[-1] for row in c.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}"))


def test_a_sections_page_is_read_along_the_index_without_sorting_the_section() -> None:
    _add(50)
    plan = _plan(_page_ids(RunFilters(statuses=list(RunStatus.FINAL)), 10, 20))
    assert plan.count("ix_run_status_updated") == 2, plan  # one branch per status
    # Only the merged page (at most offset + limit rows per status) is sorted, never a
    # whole section: no sort inside a branch.
    assert "USE TEMP B-TREE FOR ORDER BY" not in plan.split("COMPOUND")[0], plan


def test_people_are_everyone_who_started_or_acted_once_each() -> None:
    _add(20)
    with session_scope() as s:
        s.add_all(HumanAction(run_id=1, draft_id=None, actor=a, action="comment")
                  for a in ("dr. lee", "person 1", "dr. lee", "", "zoë"))
    assert people() == ["dr. lee", "person 0", "person 1", "person 2", "person 3", "zoë"]


def test_people_with_no_runs_is_empty() -> None:
    assert people() == []


def test_assigned_to_me_is_an_index_seek() -> None:
    _add(20)
    with session_scope() as s:
        run = s.get(Run, 3)
        assert run is not None and run.status not in RunStatus.FINAL
        run.assigned_to = "dr. lee"
    assert assigned_to_me("Dr. Lee") == [3]
    with get_engine().connect() as c:
        plan = " | ".join(r[-1] for r in c.exec_driver_sql(
            "EXPLAIN QUERY PLAN SELECT id FROM run WHERE assigned_to = 'dr. lee'"))
    assert "ix_run_assigned_to" in plan, plan
