"""A realistic ops dataset: `python -m engine seed-demo --calls 1000000 --runs 50000`.

Runs over the last 90 days (more on weekdays, growing), each written as the current pipelines
and the loop would have written it (demo/generator.py): the pipelines' own stage, agent and
score names; decisions that follow the scores and thresholds; spend within each run's budget
or the run halted by it; prompt versions saved before the calls that name them. Models by
share, log-normal latencies, about 2% errors (a person retries the step, or the run fails),
cached tokens on revisions, cost from the default price table. One run has about
`big_run_calls` calls for the Traces page. Everything goes in with executemany of plain tuples
in one transaction, with the rollup triggers off and the rollup folded in with two GROUP BYs at
the end. demo/invariants.py checks the result."""

from __future__ import annotations

import random
import time
from datetime import UTC, datetime, timedelta

from pydantic import BaseModel
from sqlalchemy import text
from sqlalchemy.engine import Connection

from db.session import get_engine, session_scope
from demo.data import KIND_SHARE, MODELS
from demo.generator import DAYS, Generator
from demo.pipelines import agents
from demo.rows import Rows
from engine import rollup
from engine.pricing import DEFAULT_PRICES, Price, pick_price, seed_prices
from engine.team.demo import seed_team_messages  # -- intake: hook --

BATCH_RUNS = 2000


class SeedReport(BaseModel):
    runs: int
    calls: int
    steps: int
    drafts: int
    big_run_id: int | None
    big_run_calls: int
    seconds: float


_INSERTS = {
    "runs": ("run", "id, kind, title, input, params, status, stage, next_node, review_mode, "
             "iteration, halt_reason, halt_requested, error, current_draft_id, best_draft_id, "
             "approved_draft_id, budget_usd, cost_usd, created_by, created_at, updated_at, "
             "lease_owner, lease_expires, parent_run_id, parent_draft_id, version, audit_head"),
    "drafts": ("draft", "id, run_id, version, stage, author, author_kind, content, parent_id, "
               "content_hash, iteration, created_at"),
    "steps": ("step", "id, run_id, seq, node, stage, iteration, status, worker, started_at, "
              "finished_at, draft_id, detail, error"),
    "calls": ("llmcall", "id, run_id, step_id, agent, backend, model, kind, stage, "
              "prompt_version, prompt_tokens, cached_tokens, completion_tokens, cost_usd, "
              "latency_ms, status, error, attempts, request, response, started_at"),
    "scores": ("score", "id, draft_id, name, value, llm_value, check_value, source"),
    "actions": ("humanaction", "id, run_id, draft_id, actor, verified, action, comment, at, "
                "prev_hash, hash"),
}


def _flush(conn: Connection, rows: Rows) -> None:
    mark = "?" if conn.dialect.paramstyle == "qmark" else "%s"
    # Parents before children: foreign keys are on.
    for attr in ("runs", "drafts", "steps", "calls", "scores", "actions"):
        batch = getattr(rows, attr)
        if not batch:
            continue
        table, cols = _INSERTS[attr]
        n = cols.count(",") + 1
        conn.exec_driver_sql(f"INSERT INTO {table} ({cols}) VALUES ({', '.join([mark] * n)})",
                             batch)
    rows.clear()


def _price(model: str) -> Price | None:
    from db.models import ModelPrice

    rows = [ModelPrice(model=m, input_per_m=p.input_per_m, cached_input_per_m=p.cached_input_per_m,
                       output_per_m=p.output_per_m) for m, p in DEFAULT_PRICES.items()]
    return pick_price(rows, model, datetime.now(UTC))


def split_calls(total: int, runs: int, rng: random.Random) -> list[int]:
    """Calls per run: log-normal shares that add up to `total` exactly, at least 1 each."""
    if runs <= 0:
        return []
    weights = [rng.lognormvariate(0, 0.5) for _ in range(runs)]
    scale = (total - runs) / sum(weights) if total > runs else 0.0
    counts = [1 + int(w * scale) for w in weights]
    short = total - sum(counts)
    i = 0
    while short > 0:
        counts[i % runs] += 1
        short -= 1
        i += 1
    while short < 0:  # fewer calls than runs: drop runs' calls down to 1, then to the total
        j = i % runs
        if counts[j] > 1:
            counts[j] -= 1
            short += 1
        i += 1
        if i > 4 * runs:
            break
    return counts


def seed_demo(*, calls: int = 1_000_000, runs: int = 50_000, big_run_calls: int = 500,
              seed: int = 7, end: datetime | None = None,
              demo_budgets: bool = True) -> SeedReport:
    """Append a demo dataset to the DATABASE_URL database (existing rows are kept)."""
    t0 = time.perf_counter()
    end = end or datetime.now(UTC)
    with session_scope() as s:
        seed_prices(s)
    eng = get_engine()
    rng = random.Random(seed)
    big = big_run_calls if runs > 1 and calls >= big_run_calls + runs else 0
    counts = split_calls(calls - big, runs - (1 if big else 0), rng)
    with eng.begin() as conn:
        if conn.dialect.name == "sqlite":
            # A big page cache keeps the index B-trees in memory during the bulk load.
            conn.exec_driver_sql("PRAGMA cache_size = -1000000")
        rollup.ensure_rollup(conn)
        rollup.lock_writes(conn)
        rollup.drop_triggers(conn)
        prices = {m: _price(m) for m, *_ in MODELS}
        versions = _prompt_versions(conn, end)
        gen = Generator(conn, seed=seed, end=end, prices=prices, prompt_versions=versions)
        first_call = gen.ids.call
        big_run_id: int | None = None
        for i, n in enumerate(counts):
            gen.run(n)
            if i % BATCH_RUNS == BATCH_RUNS - 1:
                _flush(conn, gen.rows)
        big_calls = 0
        if big:  # the newest run, first in the Traces page's picker
            big_run_id = gen.ids.run
            before = gen.calls
            gen.run(big, budgeted=False)
            big_calls = gen.calls - before
        _flush(conn, gen.rows)
        if conn.dialect.name == "postgresql":
            # Rows went in with explicit ids: move the id sequences past them.
            for table, _cols in _INSERTS.values():
                conn.exec_driver_sql(
                    f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                    f"(SELECT coalesce(max(id), 1) FROM {table}))")
        rollup.fold_in(conn, min_id=first_call)
        rollup.create_triggers(conn)
        seed_team_messages(conn)  # -- intake: demo campaigns' team messages (one-line hook) --
    if demo_budgets:
        _demo_budgets(end)
    return SeedReport(runs=len(counts) + (1 if big else 0), calls=gen.calls, steps=gen.steps,
                      drafts=gen.drafts, big_run_id=big_run_id, big_run_calls=big_calls,
                      seconds=round(time.perf_counter() - t0, 2))


def _demo_budgets(end: datetime) -> None:
    """Monthly budgets that put this month's spend at ~85% (protocol) and ~105% (campaign),
    so both alerts show; only where no budget is set yet."""
    from engine import ops_settings

    current = ops_settings.get_ops_settings()
    month = end.date().replace(day=1)
    with get_engine().connect() as conn:
        spend = dict(conn.execute(
            text("SELECT kind, sum(cost_usd) FROM callrollup WHERE day >= :d GROUP BY kind"),
            {"d": month.isoformat()}).all())
    for kind, share in (("protocol", 0.85), ("campaign", 1.05)):
        if current.monthly_budgets.get(kind) is None and spend.get(kind):
            ops_settings.set_monthly_budget(kind=kind, usd=round(float(spend[kind]) / share, 2),
                                        actor="seed-demo")
    if current.default_run_budget_usd is None:
        ops_settings.set_default_run_budget(usd=2.0, actor="seed-demo")


def _prompt_versions(conn: Connection, end: datetime) -> dict[str, list[tuple[int, datetime]]]:
    """Each agent's saved prompt versions, oldest first: the ones the database has, or, for an
    agent with none, two saved during the demo period (the second active), so the calls that
    name a version come after it was saved and the Prompts page lists what Compare shows."""
    start = end - timedelta(days=DAYS)
    have: dict[str, list[tuple[int, datetime]]] = {}
    for agent, version, made in conn.execute(text(
            "SELECT agent, version, created_at FROM promptversion ORDER BY agent, version")):
        made = made if isinstance(made, datetime) else datetime.fromisoformat(str(made))
        have.setdefault(agent, []).append((int(version), made.replace(tzinfo=made.tzinfo or UTC)))
    from engine.pipelines.registry import get_pipeline

    rows = []
    for kind in KIND_SHARE:
        defaults = {a.name: a.system_prompt for st in get_pipeline(kind).stages
                    for a in (st.drafter, *st.critics)}
        for agent in agents(kind):
            if agent in have:
                continue
            saved = [(1, start + timedelta(days=12)), (2, start + timedelta(days=55))]
            have[agent] = saved
            for version, made in saved:
                rows.append({"agent": agent, "version": version, "author": "dr. lee",
                             "active": version == 2,
                             "created_at": made.astimezone(UTC).replace(tzinfo=None),
                             "text": defaults[agent] + f"\n\n(Demo revision {version}: "
                             "shorter sentences, one example per step.)"})
    if rows:
        conn.execute(text("INSERT INTO promptversion (agent, version, text, author, active, "
                          "created_at) VALUES (:agent, :version, :text, :author, :active, "
                          ":created_at)"), rows)
    return have
