"""What ops staff ask of the call log: spend, tokens, calls, errors and latency over a date
range, by day, model, agent, kind and stage; cost per run and per approved draft; the most
expensive runs; this month's spend against each kind's budget.

Every number is a GROUP BY in the database over the daily rollup (engine/rollup.py), never
pandas over calls: a few thousand rows per query whether the log holds a thousand calls or a
million. Days are UTC; a filter's `end` day is included."""

from __future__ import annotations

import weakref
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import Literal

import pandas as pd
from pydantic import BaseModel, ConfigDict, model_validator
from sqlalchemy import (
    BigInteger,
    Float,
    Select,
    String,
    and_,
    case,
    cast,
    func,
    select,
    true,
)
from sqlalchemy.engine import Connection, Engine

from db.models import CallLatency, CallRollup, HumanAction, LLMCall, Run
from db.session import get_engine
from engine import ops_settings, rollup

DIMENSIONS = ("kind", "model", "agent", "stage")
Dimension = Literal["kind", "model", "agent", "stage"]
PERCENTILES = (0.50, 0.95, 0.99)
WARN_SHARE = 0.8
_SUMS = ("calls", "errors", "unpriced", "cost_usd", "prompt_tokens", "cached_tokens",
         "completion_tokens", "latency_ms")


class OpsFilter(BaseModel):
    """A date range (UTC days, both included) and optional values per dimension; an empty
    list means every value."""

    model_config = ConfigDict(frozen=True)

    start: date
    end: date
    kinds: tuple[str, ...] = ()
    models: tuple[str, ...] = ()
    agents: tuple[str, ...] = ()
    stages: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _ordered(self) -> OpsFilter:
        if self.end < self.start:
            raise ValueError("the end date is before the start date")
        return self

    def values(self, dim: str) -> tuple[str, ...]:
        return getattr(self, dim + "s")

    @property
    def narrowed(self) -> bool:
        """True when model, agent or stage is filtered (not only dates and kind)."""
        return bool(self.models or self.agents or self.stages)


def last_days(days: int = 30, *, today: date | None = None, **dims: tuple[str, ...]) -> OpsFilter:
    end = today or datetime.now(UTC).date()
    return OpsFilter(start=end - timedelta(days=days - 1), end=end, **dims)


class Totals(BaseModel):
    calls: int
    errors: int
    unpriced: int
    """Successful calls of models without a price: their cost is unknown, not $0."""
    cost_usd: float
    """Spend on priced calls."""
    prompt_tokens: int
    """All input tokens, cached ones included."""
    cached_tokens: int
    completion_tokens: int
    latency_mean_ms: float | None

    @property
    def error_rate(self) -> float | None:
        return self.errors / self.calls if self.calls else None

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class RunEconomics(BaseModel):
    runs: int
    """Runs started in the range (of the filtered kinds)."""
    approved_drafts: int
    """Approvals given in the range (a campaign approves a draft per stage)."""
    cost_usd: float
    cost_per_run: float | None
    cost_per_approved_draft: float | None


class BudgetStatus(BaseModel):
    kind: str
    month: date
    budget_usd: float | None
    spent_usd: float
    unpriced_calls: int
    share: float | None
    level: Literal["none", "ok", "warning", "over"]


# -- plumbing -------------------------------------------------------------------------------

_READY: weakref.WeakSet[Engine] = weakref.WeakSet()


def _connect() -> Connection:
    """A connection to a database whose rollup, triggers and indexes exist."""
    eng = get_engine()
    if eng not in _READY:
        with eng.begin() as conn:
            rollup.ensure_rollup(conn)
        _READY.add(eng)
    return eng.connect()


def _where(f: OpsFilter, table: type[CallRollup] | type[CallLatency]) -> list:  # type: ignore[type-arg]
    conds = [table.day >= f.start, table.day <= f.end]
    for dim in DIMENSIONS:
        values = f.values(dim)
        if values:
            conds.append(getattr(table, dim).in_(values))
    return conds


def _sums() -> list:  # type: ignore[type-arg]
    # PostgreSQL sums integers into NUMERIC; cast back so both databases return int / float.
    return [cast(func.coalesce(func.sum(getattr(CallRollup, c)), 0),
                 Float if c in ("cost_usd", "latency_ms") else BigInteger).label(c)
            for c in _SUMS]


def _frame(conn: Connection, q: Select) -> pd.DataFrame:  # type: ignore[type-arg]
    result = conn.execute(q)
    # Plain tuples: pandas probes each Row's attributes, which costs more than the query.
    df = pd.DataFrame([tuple(r) for r in result.all()], columns=list(result.keys()))
    for c in df.columns:  # NUMERIC from PostgreSQL window sums and exp()
        if df[c].dtype == object and len(df) and isinstance(df[c].iloc[0], Decimal):
            df[c] = df[c].astype(float)
    return df


def _finish(df: pd.DataFrame) -> pd.DataFrame:
    """Derived columns; a row whose successful calls are all unpriced has no cost (NaN)."""
    if df.empty:
        for c in ("error_rate", "latency_mean_ms", "tokens"):
            df[c] = pd.Series(dtype=float)
        return df
    df["cost_usd"] = df["cost_usd"].astype(float)
    priced = df["calls"] - df["errors"] - df["unpriced"]
    df.loc[(priced <= 0) & (df["unpriced"] > 0), "cost_usd"] = float("nan")
    df["error_rate"] = df["errors"] / df["calls"]
    df["latency_mean_ms"] = df["latency_ms"].astype(float) / df["calls"]
    df["tokens"] = df["prompt_tokens"] + df["completion_tokens"]
    return df.drop(columns=["latency_ms"])


def _range(f: OpsFilter) -> tuple[datetime, datetime]:
    start = datetime.combine(f.start, time.min, tzinfo=UTC)
    return start, datetime.combine(f.end + timedelta(days=1), time.min, tzinfo=UTC)


# -- aggregates -----------------------------------------------------------------------------


def totals(f: OpsFilter) -> Totals:
    with _connect() as conn:
        row = conn.execute(select(*_sums()).where(*_where(f, CallRollup))).one()._asdict()
    calls = int(row["calls"])
    return Totals(
        calls=calls, errors=int(row["errors"]), unpriced=int(row["unpriced"]),
        cost_usd=float(row["cost_usd"]), prompt_tokens=int(row["prompt_tokens"]),
        cached_tokens=int(row["cached_tokens"]), completion_tokens=int(row["completion_tokens"]),
        latency_mean_ms=float(row["latency_ms"]) / calls if calls else None,
    )


def by_day(f: OpsFilter, *, split: Dimension | None = None) -> pd.DataFrame:
    """One row per day (and per value of `split`), every day of the range present."""
    keys = [CallRollup.day] + ([getattr(CallRollup, split)] if split else [])
    q = select(*keys, *_sums()).where(*_where(f, CallRollup)).group_by(*keys).order_by(*keys)
    with _connect() as conn:
        df = _frame(conn, q)
    if split is None:
        days = pd.DataFrame({"day": pd.date_range(f.start, f.end, freq="D").date})
        df = days.merge(df, on="day", how="left")
        df[list(_SUMS)] = df[list(_SUMS)].fillna(0)
        ints = [c for c in _SUMS if c not in ("cost_usd", "latency_ms")]
        df[ints] = df[ints].astype("int64")
    return _finish(df)


def breakdown(f: OpsFilter, dim: Dimension) -> pd.DataFrame:
    """Totals per value of one dimension, most expensive first."""
    col = getattr(CallRollup, dim)
    q = (select(col, *_sums()).where(*_where(f, CallRollup)).group_by(col)
         .order_by(func.sum(CallRollup.cost_usd).desc(), col))
    with _connect() as conn:
        return _finish(_frame(conn, q))


def table(f: OpsFilter) -> pd.DataFrame:
    """The filtered rollup itself, a row per day, kind, model, agent and stage (the CSV).
    Days come back as ISO text: parsing thousands of dates costs more than the query."""
    keys = [cast(CallRollup.day, String).label("day"), CallRollup.kind, CallRollup.model,
            CallRollup.agent, CallRollup.stage]
    cols = [getattr(CallRollup, c) for c in _SUMS]
    q = select(*keys, *cols).where(*_where(f, CallRollup)).order_by(*keys)
    with _connect() as conn:
        return _finish(_frame(conn, q))


def filter_options(f: OpsFilter) -> dict[str, list[str]]:
    """The values each dimension takes in the date range (whatever else is filtered)."""
    out: dict[str, list[str]] = {}
    with _connect() as conn:
        for dim in DIMENSIONS:
            col = getattr(CallRollup, dim)
            q = (select(col).where(CallRollup.day >= f.start, CallRollup.day <= f.end)
                 .group_by(col).order_by(col))
            out[dim] = [v for (v,) in conn.execute(q)]
    return out


def latency_percentiles(f: OpsFilter,
                        by: tuple[Dimension, ...] = ("agent", "model")) -> pd.DataFrame:
    """p50/p95/p99 latency (ms, every call, errors included) per group, from the histogram:
    cumulative counts with a window function, the first bucket that reaches each rank, and
    log-linear interpolation inside it (within one bucket, ~4%, of the exact value)."""
    keys = [getattr(CallLatency, d) for d in by]
    h = (select(*keys, CallLatency.bucket, func.sum(CallLatency.n).label("n"))
         .where(*_where(f, CallLatency)).group_by(*keys, CallLatency.bucket).cte("h"))
    parts = [h.c[d] for d in by] or None
    c = select(
        *[h.c[d] for d in by], h.c.bucket, h.c.n,
        func.sum(h.c.n).over(partition_by=parts, order_by=h.c.bucket, rows=(None, 0)).label("cum"),
        func.sum(h.c.n).over(partition_by=parts).label("total"),
    ).cte("c")
    cols = []
    for p in PERCENTILES:
        rank = c.c.total * p
        pos = c.c.bucket + (rank - (c.c.cum - c.c.n)) * 1.0 / c.c.n
        crossing = and_(c.c.cum >= rank, c.c.cum - c.c.n < rank)  # the bucket holding the rank
        cols.append(func.exp(func.max(case((crossing, pos))) / rollup.K)
                    .label(f"p{round(p * 100)}_ms"))
    gkeys = [c.c[d] for d in by]
    q = select(*gkeys, func.max(c.c.total).label("calls"), *cols).group_by(*gkeys)
    if gkeys:
        q = q.order_by(*gkeys)
    with _connect() as conn:
        df = _frame(conn, q)
    if df.empty:
        return df
    df = df[df["calls"].notna()].reset_index(drop=True)
    df["calls"] = df["calls"].astype("int64")
    return df


def run_economics(f: OpsFilter, *, spend: float | None = None) -> RunEconomics:
    """Spend (filtered) per run started and per draft approved in the range."""
    lo, hi = _range(f)
    runs_q = select(func.count()).select_from(Run).where(Run.created_at >= lo, Run.created_at < hi)
    appr_q = (select(func.count()).select_from(HumanAction)
              .where(HumanAction.action.in_(("approve", "approve_override")),  # type: ignore[attr-defined]
                     HumanAction.at >= lo, HumanAction.at < hi))
    if f.kinds:
        runs_q = runs_q.where(Run.kind.in_(f.kinds))  # type: ignore[attr-defined]
        appr_q = appr_q.join(Run, Run.id == HumanAction.run_id).where(Run.kind.in_(f.kinds))  # type: ignore[attr-defined]
    if spend is None:
        spend = totals(f).cost_usd
    with _connect() as conn:
        runs = int(conn.execute(runs_q).scalar() or 0)
        approved = int(conn.execute(appr_q).scalar() or 0)
    return RunEconomics(runs=runs, approved_drafts=approved, cost_usd=spend,
                        cost_per_run=spend / runs if runs else None,
                        cost_per_approved_draft=spend / approved if approved else None)


def top_runs(f: OpsFilter, *, limit: int = 15) -> pd.DataFrame:
    """The most expensive runs started in the range (whole-run cost), of the filtered kinds;
    with a model, agent or stage filter, only runs with such calls, and what those cost."""
    lo, hi = _range(f)
    ranked = (select(Run.id).where(Run.created_at >= lo, Run.created_at < hi)
              .order_by(Run.cost_usd.desc(), Run.id))  # type: ignore[attr-defined]
    if f.kinds:
        ranked = ranked.where(Run.kind.in_(f.kinds))  # type: ignore[attr-defined]
    with _connect() as conn:
        ids: list[int] = []
        batch = max(limit * 10, 100)
        offset = 0
        while len(ids) < limit:
            # Rank by cost on the covering index first, then keep the runs whose calls match:
            # a few hundred index lookups, not a pass over every call.
            chunk = [i for (i,) in conn.execute(ranked.limit(batch).offset(offset))]
            if not chunk:
                break
            ids += _matching(conn, f, chunk) if f.narrowed else chunk
            offset += batch
            batch *= 4
        ids = ids[:limit]
        if not ids:
            return pd.DataFrame(columns=["run_id", "title", "kind", "status", "stage",
                                         "created_at", "cost_usd", "calls", "filtered_cost_usd"])
        runs = _frame(conn, select(Run.id.label("run_id"), Run.title, Run.kind, Run.status,  # type: ignore[union-attr]
                                   Run.stage, Run.created_at, Run.cost_usd)
                      .where(Run.id.in_(ids)))  # type: ignore[union-attr]
        calls = _frame(conn, select(LLMCall.run_id, func.count().label("calls"),
                                    func.sum(case((_call_match(f), LLMCall.cost_usd))).label(
                                        "filtered_cost_usd"))
                       .where(LLMCall.run_id.in_(ids)).group_by(LLMCall.run_id))  # type: ignore[union-attr]
    df = runs.merge(calls, on="run_id", how="left")
    return df.sort_values(["cost_usd", "run_id"], ascending=[False, True]).reset_index(drop=True)


def _call_match(f: OpsFilter):  # type: ignore[no-untyped-def]
    conds = [getattr(LLMCall, d).in_(f.values(d)) for d in ("model", "agent", "stage")
             if f.values(d)]
    return and_(true(), *conds)


def _matching(conn: Connection, f: OpsFilter, run_ids: list[int]) -> list[int]:
    q = (select(LLMCall.run_id).where(LLMCall.run_id.in_(run_ids), _call_match(f))  # type: ignore[union-attr]
         .group_by(LLMCall.run_id))
    keep = {r for (r,) in conn.execute(q)}
    return [i for i in run_ids if i in keep]


# -- budgets --------------------------------------------------------------------------------


def budget_status(*, today: date | None = None) -> list[BudgetStatus]:
    """This calendar month's (UTC) spend per kind against its monthly budget."""
    day = today or datetime.now(UTC).date()
    month = day.replace(day=1)
    budgets = ops_settings.get_ops_settings().monthly_budgets
    q = (select(CallRollup.kind, func.sum(CallRollup.cost_usd), func.sum(CallRollup.unpriced))
         .where(CallRollup.day >= month, CallRollup.day <= day).group_by(CallRollup.kind))
    with _connect() as conn:
        spent = {k: (float(c or 0), int(u or 0)) for k, c, u in conn.execute(q)}
    out = []
    for kind in sorted(set(budgets) | set(spent)):
        cost, unpriced = spent.get(kind, (0.0, 0))
        budget = budgets.get(kind)
        share = cost / budget if budget else None
        level = ("none" if share is None else "over" if share >= 1.0
                 else "warning" if share >= WARN_SHARE else "ok")
        out.append(BudgetStatus(kind=kind, month=month, budget_usd=budget, spent_usd=cost,
                                unpriced_calls=unpriced, share=share, level=level))
    return out
