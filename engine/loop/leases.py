"""Which worker runs which run: atomic claims, leases with a heartbeat, release.

A claim is one conditional UPDATE (PostgreSQL adds FOR UPDATE SKIP LOCKED to pick a row no
other worker is looking at). It bumps the run's version, so a step committed by a worker
that lost its lease fails its optimistic-lock check instead of writing over the new owner."""

from __future__ import annotations

import os
import socket
import uuid
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, bindparam, or_, select, update
from sqlalchemy.engine import Connection

from db.models import Run
from db.prepared import Prepared
from db.session import get_engine, session_scope
from engine import run_state
from engine.config import setting
from engine.loop.clock import SYSTEM_CLOCK, Clock
from engine.loop.sql import VERSION_COL
from engine.run_state import RunStatus

# Statements built once and run on the DB-API cursor (db.prepared: SQLAlchemy's execution
# machinery cost more than the statement); the time and the lease length are parameters.
_RUN = Run.__table__  # type: ignore[attr-defined]
_NOW = bindparam("b_now", type_=_RUN.c.lease_expires.type)
_UNTIL = bindparam("b_until", type_=_RUN.c.lease_expires.type)
_WORKER = bindparam("b_worker", type_=_RUN.c.lease_owner.type)
_CLAIMABLE = or_(
    *(_RUN.c.status == status for status in run_state.CLAIMABLE),  # OR: no IN list to expand
    and_(_RUN.c.status == RunStatus.RUNNING, _RUN.c.lease_expires < _NOW),  # its worker died
)
# A claim bumps Run's optimistic lock (as its mapper declares it), so the worker that lost the
# run fails its next commit.
_TAKE = run_state.claimed_values(_WORKER, _UNTIL, _NOW) | {VERSION_COL.key: VERSION_COL + 1}
# A claim returns the whole row: the worker opens the run's first step in the same
# transaction without reading it again.
_CLAIM_RUN = Prepared(
    update(_RUN).where(_RUN.c.id == bindparam("b_run"), _CLAIMABLE).values(_TAKE)
    .returning(*_RUN.c)
)


def _claim_next_stmt(skip_locked: bool) -> Prepared:
    pick = (select(_RUN.c.id).where(_CLAIMABLE).order_by(_RUN.c.created_at, _RUN.c.id)
            .limit(1))
    if skip_locked:  # PostgreSQL: pass over rows another worker is claiming right now
        pick = pick.with_for_update(skip_locked=True)
    return Prepared(update(_RUN).where(_RUN.c.id == pick.scalar_subquery(), _CLAIMABLE)
                    .values(_TAKE).returning(*_RUN.c))


_CLAIM_NEXT = {False: _claim_next_stmt(False), True: _claim_next_stmt(True)}
_HEARTBEAT = (
    update(_RUN)
    .where(_RUN.c.id == bindparam("b_run"), _RUN.c.lease_owner == _WORKER,
           _RUN.c.status == RunStatus.RUNNING)
    .values(lease_expires=_UNTIL)
)


def lease_seconds() -> float:
    return float(setting("lease_seconds"))


def new_worker_id(prefix: str = "worker") -> str:
    return f"{prefix}-{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"


def lease_until(clock: Clock = SYSTEM_CLOCK) -> datetime:
    """When a lease taken or renewed now runs out."""
    return clock.now() + timedelta(seconds=lease_seconds())


def _times(clock: Clock) -> dict[str, object]:
    now = clock.now()
    return {"b_now": now, "b_until": now + timedelta(seconds=lease_seconds())}


def claim_row(c: Connection, run_id: int | None, worker_id: str,
              clock: Clock = SYSTEM_CLOCK) -> dict[str, Any] | None:
    """Claim, on `c`, one given run (queued, or its lease expired) or, with None, the oldest
    such run; returns the claimed run's row as it now is, None when there was none."""
    if run_id is None:
        stmt = _CLAIM_NEXT[c.dialect.name == "postgresql"]
        params = {"b_worker": worker_id, **_times(clock)}
    else:
        stmt, params = _CLAIM_RUN, {"b_run": run_id, "b_worker": worker_id, **_times(clock)}
    rows = stmt.mappings(c, params)
    return rows[0] if rows else None


def claim_next(worker_id: str, clock: Clock = SYSTEM_CLOCK) -> int | None:
    """Claim the oldest queued run (or one whose lease expired); None when there is none."""
    with get_engine().begin() as c:
        row = claim_row(c, None, worker_id, clock)
    return int(row["id"]) if row else None


def claim_run(run_id: int, worker_id: str, clock: Clock = SYSTEM_CLOCK) -> bool:
    """Claim one given run if it is queued or its lease expired."""
    with get_engine().begin() as c:
        return claim_row(c, run_id, worker_id, clock) is not None


def heartbeat(run_id: int, worker_id: str, clock: Clock = SYSTEM_CLOCK) -> bool:
    """Extend the lease; False when it is no longer ours. Does not bump the version: a
    heartbeat is bookkeeping, not a change a reviewer needs to know about."""
    with get_engine().begin() as c:
        params = {"b_run": run_id, "b_worker": worker_id, "b_until": lease_until(clock)}
        return c.execute(_HEARTBEAT, params).rowcount == 1


def heartbeat_many(run_ids: list[int], worker_id: str, clock: Clock = SYSTEM_CLOCK) -> set[int]:
    """Extend the leases on all of `run_ids` in one statement (a worker driving many runs
    beats for all of them at once); returns the ones still ours."""
    if not run_ids:
        return set()
    stmt = (update(_RUN)
            .where(_RUN.c.id.in_(run_ids), _RUN.c.lease_owner == worker_id,
                   _RUN.c.status == RunStatus.RUNNING)
            .values(lease_expires=lease_until(clock))
            .returning(_RUN.c.id))
    with get_engine().begin() as c:
        return {int(r) for r in c.execute(stmt).scalars()}


def lease_owner(run_id: int) -> str | None:
    """Who holds the run's lease now (None: nobody, or the run is not running)."""
    with session_scope() as s:
        run = s.get(Run, run_id)
        return run.lease_owner if run is not None and run.status == RunStatus.RUNNING else None


def release_all(worker_id: str) -> int:
    """Give back every run this worker holds (on a clean exit) so others can take them now."""
    stmt = (
        update(Run)
        .where(Run.lease_owner == worker_id, Run.status == RunStatus.RUNNING)
        .values(**run_state.released_values(), **{VERSION_COL.key: VERSION_COL + 1})
        .execution_options(synchronize_session=False)
    )
    with session_scope() as s:
        return s.execute(stmt).rowcount
