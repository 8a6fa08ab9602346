"""Which worker runs which run: atomic claims, leases with a heartbeat, release.

A claim is one conditional UPDATE (PostgreSQL adds FOR UPDATE SKIP LOCKED to pick a row no
other worker is looking at). It bumps the run's version, so a step committed by a worker
that lost its lease fails its optimistic-lock check instead of writing over the new owner."""

from __future__ import annotations

import os
import socket
import uuid
from datetime import timedelta

from sqlalchemy import and_, or_, select, update

from db.models import Run, RunStatus, utcnow
from db.session import get_engine, session_scope


def lease_seconds() -> float:
    return float(os.environ.get("DRAFTROOM_LEASE_SECONDS", "30"))


def new_worker_id(prefix: str = "worker") -> str:
    return f"{prefix}-{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"


def _claimable(now):  # type: ignore[no-untyped-def]
    return or_(
        Run.status == RunStatus.QUEUED,
        and_(Run.status == RunStatus.RUNNING, Run.lease_expires < now),
    )


def claim_next(worker_id: str) -> int | None:
    """Claim the oldest queued run (or one whose lease expired); None when there is none."""
    now = utcnow()
    pick = select(Run.id).where(_claimable(now)).order_by(Run.created_at, Run.id).limit(1)
    if get_engine().dialect.name == "postgresql":
        pick = pick.with_for_update(skip_locked=True)
    return _claim(Run.id == pick.scalar_subquery(), worker_id, now)


def claim_run(run_id: int, worker_id: str) -> bool:
    """Claim one given run if it is queued or its lease expired."""
    return _claim(Run.id == run_id, worker_id, utcnow()) is not None


def _claim(which, worker_id: str, now) -> int | None:  # type: ignore[no-untyped-def]
    stmt = (
        update(Run)
        .where(which, _claimable(now))
        .values(
            status=RunStatus.RUNNING,
            lease_owner=worker_id,
            lease_expires=now + timedelta(seconds=lease_seconds()),
            version=Run.version + 1,
            updated_at=now,
        )
        .returning(Run.id)
        .execution_options(synchronize_session=False)
    )
    with session_scope() as s:
        row = s.execute(stmt).first()
    return int(row[0]) if row else None


def heartbeat(run_id: int, worker_id: str) -> bool:
    """Extend the lease; False when it is no longer ours. Does not bump the version: a
    heartbeat is bookkeeping, not a change a reviewer needs to know about."""
    now = utcnow()
    stmt = (
        update(Run)
        .where(Run.id == run_id, Run.lease_owner == worker_id, Run.status == RunStatus.RUNNING)
        .values(lease_expires=now + timedelta(seconds=lease_seconds()))
        .execution_options(synchronize_session=False)
    )
    with session_scope() as s:
        return s.execute(stmt).rowcount == 1


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
        .values(status=RunStatus.QUEUED, lease_owner=None, lease_expires=None,
                version=Run.version + 1)
        .execution_options(synchronize_session=False)
    )
    with session_scope() as s:
        return s.execute(stmt).rowcount
