"""What the supervisor loop asks of the database per step, counted (never timed): one commit
per step transaction and a pinned number of statements in each, so a change that adds a read
of something the step already holds, or a transaction, fails here rather than only showing in
`make bench` (issue 13: Draftroom's overhead <= 0.5x LangGraph's).

Counted at the driver (sqlite3's trace callback), so SQLAlchemy's executions, the loop's
prepared statements and anything else that reaches SQLite all count; statements run by
triggers are not (SQLite marks them with a leading "--"). An executemany counts once (the
driver traces each row: consecutive statements of the same shape are one), so how many notes,
flags or calls the agents and checks produce does not move the numbers. If a change here is
deliberate, update the numbers and say why in the commit."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import event

from db.session import get_engine
from engine import service
from engine.llm.offline.backend import OfflineBackend
from engine.loop.worker import Worker
from engine.run_state import RunStatus

# Two iterations on the offline backend: v1 is revised, v2 meets the thresholds.
REVISED = {"intent": "Challenge the thought that I always fail", "audience": "teenagers"}
# Three iterations: v3 repeats v2, and the run halts as stalled.
STALLS = {"intent": "Feel less flat on grey winter afternoons",
          "audience": "adults"}

# Statements per transaction of the loop, in order: the claim with draft 1's opening; draft
# 1's commit with the review's opening; the review's commit with the decision and draft 2's
# opening; ...; the last review's commit with the decision (the run waits for a person).
EXPECTED = {
    "revised": [4, 7, 10, 8, 7],
    "stalls": [4, 7, 11, 8, 11, 8, 10],
}


def _shape(sql: str) -> str:
    sql = re.sub(r"'(?:[^']|'')*'", "?", " ".join(sql.split()))
    return re.sub(r"\b\d+(\.\d+)?\b", "?", sql)[:90]


@contextmanager
def traced() -> Iterator[list[list[str]]]:
    """The statements each transaction of this process ran, as it ran them."""
    txs: list[list[str]] = [[]]

    def trace(sql: str) -> None:
        if sql.startswith("--"):  # inside a trigger
            return
        if txs[-1] and txs[-1][-1] == sql:  # the same execution traced again by a trigger
            return
        if sql.strip().upper() == "COMMIT":
            txs.append([])
        elif sql.strip().upper().startswith(("BEGIN", "ROLLBACK")):
            return
        else:
            txs[-1].append(sql)

    eng = get_engine()
    eng.dispose()  # new connections, each with the trace

    def on_connect(dbapi_conn, _record) -> None:  # type: ignore[no-untyped-def]
        dbapi_conn.set_trace_callback(trace)

    event.listen(eng, "connect", on_connect)
    try:
        yield txs
    finally:
        shaped = [[_shape(x) for x in t] for t in txs]
        txs[:] = [[x for i, x in enumerate(t) if i == 0 or t[i - 1] != x] for t in shaped]
        event.remove(eng, "connect", on_connect)
        eng.dispose()


def _drive(intent: dict[str, str]) -> tuple[str | None, list[list[str]]]:
    """Start a run and drive it to review; the loop's transactions (start_run's aside: it is
    one transaction, whose full-text triggers trace their own statements)."""
    worker = Worker(backend=OfflineBackend(), worker_id="w-count")
    run_id = service.start_run(kind="protocol", input=intent, actor="counter")
    with traced() as txs:
        status = worker.run_given(run_id)
    return status, [t for t in txs if t]


def _shown(txs: list[list[str]]) -> str:
    return "\n\n".join(f"tx {i}: {len(t)} statements\n  " + "\n  ".join(t)
                       for i, t in enumerate(txs))


@pytest.mark.parametrize("name,intent", [("revised", REVISED), ("stalls", STALLS)])
def test_each_step_commits_once_with_a_pinned_number_of_statements(
        db_url: str, name: str, intent: dict[str, str]) -> None:
    _drive(intent)  # first use: price table seeded, caches filled
    status, txs = _drive(intent)
    assert status == RunStatus.REVIEW
    assert [len(t) for t in txs] == EXPECTED[name], _shown(txs)
    # Nothing reads back a version's text: the step that wrote or read it holds it.
    assert not any(s.startswith("SELECT draft.content") for t in txs for s in t
                   if name == "revised"), _shown(txs)


def test_people_s_comments_are_read_once_a_person_acted(db_url: str) -> None:
    """A run no one acted on (no audit head) skips the reads of people's comments; once
    someone sent it back with a comment, the revision's steps read them again."""
    _drive(REVISED)
    status, untouched = _drive(REVISED)
    assert status == RunStatus.REVIEW
    assert not any("humanaction" in s for t in untouched for s in t)

    run_id = service.start_run(kind="protocol", input=REVISED, actor="counter")
    worker = Worker(backend=OfflineBackend(), worker_id="w-count")
    assert worker.run_given(run_id) == RunStatus.REVIEW
    service.request_revision(run_id=run_id, actor="dr. lee",
                             comment="Add a line on what to do if panic returns at night.")
    with traced() as txs:
        worker.run_given(run_id)
    reads = [s for t in txs for s in t if "FROM humanaction" in s]
    assert len(reads) >= 2, reads  # the drafter's feedback, the follow checks' comments
