"""db.prepared: statements run on the DB-API cursor must write exactly what SQLAlchemy's
Connection.execute writes, read what it reads, and fail the way it fails, on SQLite and on
PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import exc, insert, select, text
from sqlmodel import Session

from db.models import Draft, Flag, LLMCall, Run, Step
from db.prepared import Prepared
from db.session import get_engine
from engine.loop.sql import (
    INSERT_CALL,
    INSERT_FLAG,
    INSERT_STEP,
    MAX_SEQ,
    SEL_BOARD,
    SEL_FEEDBACK,
)

CALL_T, STEP_T, FLAG_T = LLMCall.__table__, Step.__table__, Flag.__table__  # type: ignore[attr-defined]
WHEN = datetime(2026, 11, 22, 13, 5, 7, 123456, tzinfo=UTC)


def _run_and_draft() -> tuple[int, int]:
    with Session(get_engine()) as s:
        run = Run(kind="protocol", title="t", input={"topic": "x"})
        s.add(run)
        s.flush()
        draft = Draft(run_id=run.id, version=1, author="a", content="hi", content_hash="h")
        s.add(draft)
        s.commit()
        return run.id or 0, draft.id or 0


def _call(run_id: int, **over: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "run_id": run_id, "step_id": None, "agent": "drafter", "backend": "offline",
        "model": "offline-v1", "kind": "protocol", "stage": "draft", "prompt_version": None,
        "request": {"messages": [{"role": "user", "content": "<script>x</script> é ✓"}]},
        "started_at": WHEN, "latency_ms": 1.5, "prompt_tokens": 10, "cached_tokens": 0,
        "completion_tokens": 5, "attempts": 1, "response": {"content": "ok"},
        "cost_usd": 0.25,
    }
    row.update(over)
    return row


def _stored(table: Any, ids: list[int]) -> list[dict[str, Any]]:
    """Rows as SQLAlchemy reads them back (types converted), ids left out."""
    with get_engine().connect() as c:
        rows = c.execute(select(table).where(table.c.id.in_(ids)).order_by(table.c.id))
        return [{k: v for k, v in r._mapping.items() if k != "id"} for r in rows]


def _ids(table: Any) -> list[int]:
    with get_engine().connect() as c:
        return [i for (i,) in c.execute(select(table.c.id).order_by(table.c.id))]


def test_rows_written_equal_what_sqlalchemy_writes(db_any: str) -> None:
    """Datetimes (with their zone), JSON with markup and non-ASCII text, booleans, floats,
    NULLs, and columns left out to take their defaults, as Connection.execute stores them."""
    run_id, draft_id = _run_and_draft()
    calls = [_call(run_id), _call(run_id, cost_usd=None)]
    failed = {k: v for k, v in _call(run_id, status="error", error="timeout: slow").items()
              if k not in ("prompt_tokens", "completion_tokens", "cost_usd")}
    flags = [{"draft_id": draft_id, "check": "safety", "category": "self_harm",
              "text": "x", "start": 0, "end": 1, "blocking": b} for b in (True, False)]
    eng = get_engine()
    for table, stmt, rows in ((CALL_T, INSERT_CALL, [*calls, failed]),
                              (FLAG_T, INSERT_FLAG, flags)):
        before = _ids(table)
        with eng.begin() as c:
            for row in rows:  # one at a time: its executemany wants the same keys in each
                c.execute(insert(table), row)
        by_sqlalchemy = [i for i in _ids(table) if i not in before]
        with eng.begin() as c:
            stmt.run_many(c, rows)
        by_prepared = [i for i in _ids(table) if i not in before + by_sqlalchemy]
        assert _stored(table, by_prepared) == _stored(table, by_sqlalchemy)
    stored = _stored(CALL_T, _ids(CALL_T))
    assert stored[0]["started_at"] == WHEN and stored[0]["request"] == calls[0]["request"]
    assert stored[2]["prompt_tokens"] == 0 and stored[2]["cost_usd"] is None  # defaults
    assert stored[2]["status"] == "error" and stored[2]["response"] == {"content": "ok"}


def test_an_insert_returns_its_id_and_a_left_out_default_applies(db_any: str) -> None:
    run_id, _ = _run_and_draft()
    with get_engine().begin() as c:
        step_id = INSERT_STEP.scalar(c, {"run_id": run_id, "seq": 1, "node": "draft",
                                         "stage": "draft", "iteration": 0, "worker": "w",
                                         "started_at": WHEN})
    (row,) = _stored(STEP_T, [step_id])
    assert row["status"] == "running" and row["started_at"] == WHEN


def test_selects_read_what_sqlalchemy_reads(db_any: str) -> None:
    """Plain values, and those SQLAlchemy converts (JSON, datetimes, booleans on SQLite)."""
    run_id, draft_id = _run_and_draft()
    with get_engine().begin() as c:
        INSERT_CALL.run_many(c, [_call(run_id), _call(run_id, cost_usd=0.5)])
        params = {"b_run": run_id, "b_stage": "draft"}
        assert SEL_BOARD.rows(c, params) == [tuple(r) for r in c.execute(SEL_BOARD.stmt, params)]
        assert ("v", draft_id, 1, None, None) in SEL_BOARD.rows(c, params)
        assert SEL_FEEDBACK.rows(c, params) == []
        every = Prepared(select(CALL_T, Run.__table__.c.halt_requested)  # type: ignore[attr-defined]
                         .join(Run.__table__).order_by(CALL_T.c.id))  # type: ignore[attr-defined]
        assert every.rows(c) == [tuple(r) for r in c.execute(every.stmt)]
        first = every.mappings(c)[0]
        assert first["request"] == _call(run_id)["request"] and first["started_at"] == WHEN
        assert first["halt_requested"] is False


def test_a_driver_error_is_sqlalchemys_and_the_transaction_rolls_back(db_any: str) -> None:
    run_id, _ = _run_and_draft()
    step = {"run_id": run_id, "seq": 1, "node": "draft", "stage": "draft", "iteration": 0,
            "worker": "w", "started_at": WHEN}
    with pytest.raises(exc.IntegrityError) as raised, get_engine().begin() as c:
        INSERT_STEP.scalar(c, step)
        INSERT_STEP.scalar(c, step)  # the same (run, seq) again
    assert not raised.value.connection_invalidated
    assert _ids(STEP_T) == []  # the first insert went with the transaction


def test_a_row_missing_a_value_with_no_constant_default_is_refused(db_url: str) -> None:
    run_id, _ = _run_and_draft()
    row = _call(run_id)
    del row["started_at"]  # its default is computed (utcnow): the caller must give it
    with pytest.raises(TypeError, match="started_at"), get_engine().begin() as c:
        INSERT_CALL.run_many(c, [row])
    assert _ids(CALL_T) == []


def test_an_in_list_is_refused(db_url: str) -> None:
    in_list = Prepared(select(STEP_T.c.id).where(STEP_T.c.node.in_(["draft", "review"])))
    with get_engine().connect() as c, pytest.raises(TypeError, match="IN list"):
        in_list.rows(c)


@pytest.mark.postgres
def test_a_dropped_connection_is_invalidated_and_replaced(pg_url: str) -> None:
    """As Connection.execute does: the error says the connection was invalidated (the
    supervisor's retry looks for that) and the next statement runs on a new one."""
    eng = get_engine()
    with eng.connect() as c:
        c.execute(text("SELECT 1"))
        c.commit()
        pid = c.execute(text("SELECT pg_backend_pid()")).scalar_one()
        c.commit()
        with eng.connect() as admin:
            admin.execute(text("SELECT pg_terminate_backend(:p)"), {"p": pid})
        with pytest.raises(exc.DBAPIError) as raised:
            MAX_SEQ.scalar(c, {"b_run": 1})
        assert raised.value.connection_invalidated and c.invalidated
        c.rollback()
        assert Prepared(select(STEP_T.c.seq)).rows(c) == []
