"""Lists of runs for the queue, the start page, the CLI and MCP: filtered, counted and paged by
the database over every run (a page of RunSummary; the counts per status by GROUP BY)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel
from sqlalchemy import case, func, literal, or_, text, union_all
from sqlmodel import col, select

from db.models import Flag, HumanAction, Run, Score
from db.search import ensure_search
from db.session import get_engine, session_scope
from engine.run_search import title_matches
from engine.run_state import RunStatus
from engine.views import RunSummary, summarize

STATUS_ORDER = {
    RunStatus.REVIEW: 0,
    RunStatus.FAILED: 1,
    RunStatus.RUNNING: 2,
    RunStatus.QUEUED: 3,
    RunStatus.APPROVED: 4,
    RunStatus.REJECTED: 5,
}


class RunFilters(BaseModel):
    """What the queue narrows runs to; every field optional."""

    kind: str | None = None
    statuses: list[str] | None = None
    reviewer: str | None = None
    """Runs this person started or acted on."""
    search: str | None = None
    """Words of the title, in any order (engine/run_search.py)."""
    since: datetime | None = None
    until: datetime | None = None
    ids: list[int] | None = None
    """Only these runs (e.g. the ones assigned to a person)."""


def _where(q: Any, f: RunFilters) -> Any:
    """`q` (a select over Run) narrowed to the filters, all in SQL."""
    if f.ids is not None:
        q = q.where(col(Run.id).in_(f.ids))
    if f.kind:
        q = q.where(Run.kind == f.kind)
    if f.statuses:
        q = q.where(col(Run.status).in_(f.statuses))
    if f.search:
        eng = get_engine()
        ensure_search(eng)
        match = title_matches(f.search, eng.dialect.name)
        if match is not None:
            q = q.where(match)
    if f.since:
        q = q.where(Run.created_at >= f.since)
    if f.until:
        q = q.where(Run.created_at <= f.until)
    if f.reviewer:
        acted = select(HumanAction.run_id).where(HumanAction.actor == f.reviewer)
        q = q.where(or_(Run.created_by == f.reviewer, col(Run.id).in_(acted)))
    return q


def count_runs(filters: RunFilters | None = None) -> dict[str, int]:
    """How many runs there are per status (over all of them, not a page), filtered."""
    q = _where(select(Run.status, func.count()).group_by(Run.status), filters or RunFilters())
    with session_scope() as s:
        return {status: int(n) for status, n in s.exec(q).all()}


# The distinct values of an indexed column by hopping along its index, one look-up per value
# (SELECT DISTINCT reads every row: 19 ms for humanaction.actor at 170,000 acts, 0.1 ms this
# way). Both databases run it; the names come from the models, never from input.
_DISTINCT = """WITH RECURSIVE v(x) AS (SELECT min({c}) FROM {t} UNION ALL
SELECT (SELECT min({c}) FROM {t} WHERE {c} > v.x) FROM v WHERE v.x IS NOT NULL)
SELECT x FROM v WHERE x IS NOT NULL"""


def people() -> list[str]:
    """Everyone who started a run or acted on one, for the reviewer filter."""
    found: set[str] = set()
    with session_scope() as s:
        for table, column in ((Run.__tablename__, "created_by"),
                              (HumanAction.__tablename__, "actor")):
            found.update(s.connection().execute(text(_DISTINCT.format(t=table, c=column)))
                         .scalars())
    return sorted(p for p in found if p)


def _page_ids(f: RunFilters, limit: int, offset: int) -> Any:
    """The ids of one page in the queue's order (awaiting review first, ... finished last;
    newest first within each status)."""
    if f.statuses and not (f.search or f.reviewer or f.ids is not None):
        return _merged_per_status(f, f.statuses, limit, offset)
    # A search, a person or a list of ids narrows the runs first; sorting those is cheap,
    # and a branch per status would narrow them again for each.
    order = case(STATUS_ORDER, value=Run.status, else_=9)
    return (_where(select(Run.id), f)
            .order_by(order, col(Run.updated_at).desc(), col(Run.id).desc())
            .offset(offset).limit(limit))


def _merged_per_status(f: RunFilters, statuses: list[str], limit: int, offset: int) -> Any:
    """One branch per status, each read newest first along the (status, updated_at, id) index
    and cut at offset + limit, then merged: the Finished section's first page at 50,000 runs
    in 0.1 ms, against 18 ms for one sort of all its 35,000 by a CASE over the status."""
    ranked = [(STATUS_ORDER[s], [s]) for s in STATUS_ORDER if s in statuses]
    rest = [s for s in statuses if s not in STATUS_ORDER]
    others = f.model_copy(update={"statuses": None})
    branches = []
    for rank, these in ranked + ([(9, rest)] if rest else []):
        q = _where(select(Run.id, literal(rank).label("rank"), Run.updated_at), others)
        branches.append(q.where(col(Run.status).in_(these))
                        .order_by(col(Run.updated_at).desc(), col(Run.id).desc())
                        .limit(offset + limit).subquery())
    merged = union_all(*(select(b.c.id, b.c.rank, b.c.updated_at) for b in branches)).subquery()
    return (select(merged.c.id)
            .order_by(merged.c.rank, merged.c.updated_at.desc(), merged.c.id.desc())
            .offset(offset).limit(limit))


def list_runs(
    *,
    kind: str | None = None,
    statuses: list[str] | None = None,
    reviewer: str | None = None,
    search: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    ids: list[int] | None = None,
    limit: int = 200,
    offset: int = 0,
) -> list[RunSummary]:
    """One page of runs: awaiting review first, then failed, running, queued, finished;
    newest first within each."""
    filters = RunFilters(kind=kind, statuses=statuses, reviewer=reviewer, search=search,
                         since=since, until=until, ids=ids)
    page = _page_ids(filters, limit, offset)
    with session_scope() as s:
        ids_in_order = list(s.exec(page).all())
        by_id = {r.id: r for r in s.exec(select(Run).where(col(Run.id).in_(ids_in_order)))}
        runs = [by_id[i] for i in ids_in_order if i in by_id]
        draft_ids = [r.current_draft_id for r in runs if r.current_draft_id]
        scores: dict[int, dict[str, float]] = {}
        flags: dict[int, int] = {}
        if draft_ids:
            for sc in s.exec(select(Score).where(col(Score.draft_id).in_(draft_ids))):
                scores.setdefault(sc.draft_id, {})[sc.name] = sc.value
            for f in s.exec(
                select(Flag).where(col(Flag.draft_id).in_(draft_ids), col(Flag.blocking).is_(True))
            ):
                flags[f.draft_id] = flags.get(f.draft_id, 0) + 1
        last: dict[int, str] = {}
        # (review helper) approvals over an open flag, on a version that was then approved
        approved: set[int | None] = set()
        overrides: dict[int, set[int | None]] = {}
        ids = [r.id for r in runs]
        if ids:
            for a in s.exec(
                select(HumanAction).where(col(HumanAction.run_id).in_(ids)).order_by(HumanAction.at)
            ):
                last[a.run_id] = a.actor
                if a.action in ("approve", "approve_override"):
                    approved.add(a.draft_id)
                if a.action.endswith("_override"):
                    overrides.setdefault(a.run_id, set()).add(a.draft_id)
        return [
            summarize(
                r,
                scores.get(r.current_draft_id or -1, {}),
                flags.get(r.current_draft_id or -1, 0),
                last.get(r.id or 0),
                bool(overrides.get(r.id or 0, set()) & approved),
            )
            for r in runs
        ]
