"""The tamper-evident audit trail: every human act carries a SHA-256 over its own content and
the hash of the run's previous act, and the run keeps the hash of its last act (Run.audit_head).

Editing any act's row by hand changes its content, so its hash no longer matches; changing the
stored hash as well breaks the next act's link; deleting the last act leaves the run's head
pointing at nothing. `python -m engine audit verify` (and the Run page) report the first broken
link. What this does not stop: someone who can write the database and recomputes every hash
after theirs. Keep a copy of `audit verify`'s heads elsewhere to catch that.

Acts on one run are serialised by the run's optimistic lock (engine/service.py takes it before
writing), so a run's chain never forks."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlmodel import Session, col, select

from db.models import HumanAction, Run, utcnow

__all__ = ["act_hash", "append_act", "Break", "ChainReport", "verify_run", "verify_all"]


def _at(at: datetime) -> str:
    # Microseconds survive SQLite and PostgreSQL alike; a naive value is UTC (SQLite's).
    aware = at if at.utcoffset() is not None else at.replace(tzinfo=UTC)
    return aware.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")


def act_hash(*, run_id: int, draft_id: int | None, actor: str, verified: bool, action: str,
             comment: str | None, at: datetime, prev_hash: str | None) -> str:
    """SHA-256 over an act's content and the previous act's hash, as canonical JSON."""
    body = {"run_id": run_id, "draft_id": draft_id, "actor": actor, "verified": bool(verified),
            "action": action, "comment": comment, "at": _at(at), "prev": prev_hash}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def append_act(s: Session, run: Run, *, actor: str, action: str, draft_id: int | None,
               comment: str | None, verified: bool) -> HumanAction:
    """Add a human act to the run's chain (in the caller's transaction) and move its head."""
    at = utcnow()
    prev = run.audit_head
    row = HumanAction(run_id=run.id or 0, draft_id=draft_id, actor=actor, verified=verified,
                      action=action, comment=comment, at=at, prev_hash=prev)
    row.hash = act_hash(run_id=row.run_id, draft_id=draft_id, actor=actor, verified=verified,
                        action=action, comment=comment, at=at, prev_hash=prev)
    run.audit_head = row.hash
    s.add(row)
    return row


@dataclass(frozen=True)
class Break:
    run_id: int
    act_id: int | None
    """The first act whose link is broken (None: the run's head itself)."""
    position: int
    """1-based position of that act in the run's trail (0 for the head)."""
    why: str


@dataclass(frozen=True)
class ChainReport:
    runs: int
    acts: int
    broken: list[Break]

    @property
    def ok(self) -> bool:
        return not self.broken


def _check(run: Run, acts: list[HumanAction]) -> Break | None:
    prev: str | None = None
    for i, a in enumerate(acts, start=1):
        rid = run.id or 0
        if a.hash is None:
            return Break(rid, a.id, i, "the act is not sealed (no hash): it was not written "
                                       "through Draftroom's services")
        if a.prev_hash != prev:
            return Break(rid, a.id, i, "its link to the previous act does not match (an act "
                                       "before it was removed, inserted or re-sealed)")
        expected = act_hash(run_id=a.run_id, draft_id=a.draft_id, actor=a.actor,
                            verified=a.verified, action=a.action, comment=a.comment, at=a.at,
                            prev_hash=a.prev_hash)
        if a.hash != expected:
            return Break(rid, a.id, i, "its content does not match its hash (the row was "
                                       "edited after it was written)")
        prev = a.hash
    if run.audit_head != prev:
        why = ("the run's last act is missing (the trail ends before the run's recorded head)"
               if run.audit_head else "the run records no head for its sealed acts")
        return Break(run.id or 0, None, 0, why)
    return None


def _acts(s: Session, run_ids: list[int]) -> dict[int, list[HumanAction]]:
    out: dict[int, list[HumanAction]] = {i: [] for i in run_ids}
    rows = s.exec(select(HumanAction).where(col(HumanAction.run_id).in_(run_ids))
                  .order_by(col(HumanAction.run_id), col(HumanAction.id)))
    for a in rows:
        out[a.run_id].append(a)
    return out


def verify_run(s: Session, run_id: int) -> Break | None:
    """The first broken link of one run's trail, or None when it verifies."""
    run = s.get(Run, run_id)
    if run is None:
        return None
    return _check(run, _acts(s, [run_id])[run_id])


def verify_all(s: Session, *, batch: int = 500) -> ChainReport:
    """Every run's trail, in batches of runs (a million acts never sit in memory at once)."""
    broken: list[Break] = []
    runs = acts = 0
    last = 0
    while True:
        chunk = list(s.exec(select(Run).where(col(Run.id) > last).order_by(col(Run.id))
                            .limit(batch)))
        if not chunk:
            break
        trails = _acts(s, [r.id or 0 for r in chunk])
        for run in chunk:
            trail = trails[run.id or 0]
            runs += 1
            acts += len(trail)
            found = _check(run, trail)
            if found:
                broken.append(found)
        last = chunk[-1].id or 0
        s.expunge_all()
    return ChainReport(runs=runs, acts=acts, broken=broken)
