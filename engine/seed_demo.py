"""A realistic ops dataset: `python -m engine seed-demo --calls 1000000 --runs 50000`.

Runs over the last 90 days (more on weekdays, growing), each a chain of committed steps
(draft -> review -> decide, per stage) with its LLM calls: models by share, agents by kind,
log-normal latencies, about 2% errors (each followed by a retried step), cached tokens on
revisions, cost from the default price table. One run has exactly `big_run_calls` calls for
the Traces page. Everything goes in with executemany of plain tuples in one transaction, with
the rollup triggers off and the rollup folded in with two GROUP BYs at the end."""

from __future__ import annotations

import hashlib
import math
import random
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from pydantic import BaseModel
from sqlalchemy import text
from sqlalchemy.engine import Connection

from db.session import get_engine, session_scope
from engine import rollup
from engine.pricing import DEFAULT_PRICES, Price, call_cost, pick_price, seed_prices

DAYS = 90
BATCH_RUNS = 2000


@dataclass(frozen=True)
class Stage:
    name: str
    drafter: str
    critics: tuple[str, ...]
    scores: tuple[str, ...]


KINDS: dict[str, tuple[Stage, ...]] = {
    "protocol": (Stage("draft", "drafter", ("safety_guardian", "clinical_critic"),
                       ("safety", "empathy", "clinical")),),
    "campaign": (
        Stage("strategy", "content_creator", ("evaluator", "compliance"),
              ("brand_voice", "quality", "completion")),
        Stage("messages", "content_creator", ("evaluator", "compliance"),
              ("brand_voice", "quality", "completion")),
    ),
}
KIND_SHARE = {"protocol": 0.6, "campaign": 0.4}

# model, share of runs, backend, speed factor (latency multiplier), error rate
MODELS: tuple[tuple[str, float, str, float, float], ...] = (
    ("gpt-4.1-mini", 0.30, "openai", 1.0, 0.015),
    ("gpt-4.1", 0.12, "openai", 1.4, 0.015),
    ("gpt-4o-mini", 0.10, "openai", 0.9, 0.015),
    ("gpt-5-mini", 0.15, "openai", 1.7, 0.02),
    ("gpt-5", 0.06, "openai", 2.6, 0.02),
    ("o4-mini", 0.06, "openai", 2.1, 0.02),
    ("gpt-4.1-nano", 0.08, "openai", 0.6, 0.015),
    ("llama3.1:8b", 0.05, "openai", 1.9, 0.06),  # a local Ollama model: no price, "unpriced"
    ("offline-v1", 0.08, "offline", 0.004, 0.0),
)
ERRORS = (("timeout", "Request timed out after 60s", 60_000.0),
          ("rate_limit", "Rate limit reached for requests", 400.0),
          ("server", "The server had an error while processing your request", 2_500.0),
          ("malformed", "Output did not match the schema after one repair", 9_000.0))
TITLES = {
    "protocol": ("Exam panic: paced breathing", "Sleep worry: scheduled worry time",
                 "Social anxiety: thought record", "Low mood: activity scheduling",
                 "Work stress: cognitive reframing", "Grief: letter writing",
                 "Panic: interoceptive exposure", "Perfectionism: behavioural experiment"),
    "campaign": ("Autumn blend launch", "Loyalty app relaunch", "Cold brew summer push",
                 "Holiday gift boxes", "Subscription win-back", "New store opening",
                 "Barista training series", "Sustainability report"),
}
PEOPLE = {"protocol": ("dr. lee", "dr. okafor", "dr. ruiz"),
          "campaign": ("sam (marketing)", "priya (brand)", "alex (growth)")}


class SeedReport(BaseModel):
    runs: int
    calls: int
    steps: int
    drafts: int
    big_run_id: int | None
    seconds: float


@dataclass
class _Rows:
    runs: list[tuple[Any, ...]] = field(default_factory=list)
    steps: list[tuple[Any, ...]] = field(default_factory=list)
    calls: list[tuple[Any, ...]] = field(default_factory=list)
    drafts: list[tuple[Any, ...]] = field(default_factory=list)
    scores: list[tuple[Any, ...]] = field(default_factory=list)
    actions: list[tuple[Any, ...]] = field(default_factory=list)

    def clear(self) -> None:
        for rows in vars(self).values():
            rows.clear()


@dataclass
class _Ids:
    run: int
    step: int
    call: int
    draft: int
    score: int
    action: int


class _Generator:
    """Writes tuples for runs in the column order of the INSERTs below."""

    def __init__(self, conn: Connection, *, seed: int, end: datetime) -> None:
        self.rng = random.Random(seed)
        self.sqlite = conn.dialect.name == "sqlite"
        self.end = end
        self.start = end - timedelta(days=DAYS)
        self.prices = {m: _price(m) for m, *_ in MODELS}
        self.ids = _Ids(*(_next_id(conn, t) for t in
                          ("run", "step", "llmcall", "draft", "score", "humanaction")))
        self.rows = _Rows()
        self.calls = self.steps = self.drafts = 0

    def ts(self, dt: datetime) -> Any:
        # SQLite stores SQLAlchemy DateTime as this text; formatting once here is what
        # makes a million rows quick. PostgreSQL takes the datetime itself.
        return dt.isoformat(" ", "microseconds")[:26] if self.sqlite else dt

    def created_at(self) -> datetime:
        rng = self.rng
        while True:
            day = rng.random() * DAYS
            growth = 0.6 + 0.8 * day / DAYS
            when = self.start + timedelta(days=int(day))
            weekday = 1.0 if when.weekday() < 5 else 0.35
            if rng.random() < growth * weekday / 1.4:
                break
        hour = min(23.9, max(0.0, rng.gauss(14.5, 3.2)))
        at = when.replace(hour=0, minute=0, second=0, microsecond=0) + timedelta(
            hours=hour, seconds=rng.random() * 60)
        return min(at, self.end - timedelta(hours=2))

    def pick_model(self) -> tuple[str, str, float, float]:
        x = self.rng.random() * sum(m[1] for m in MODELS)
        for name, share, backend, speed, err in MODELS:
            x -= share
            if x <= 0:
                return name, backend, speed, err
        name, _, backend, speed, err = MODELS[0]
        return name, backend, speed, err

    # -- one run ------------------------------------------------------------------------

    def run(self, n_calls: int) -> None:
        """One run; started early enough that its last step is over by `end`."""
        created = self.created_at()
        for _ in range(10):
            ids, lengths = _Ids(**vars(self.ids)), {k: len(v) for k, v in vars(self.rows).items()}
            counters = (self.calls, self.steps, self.drafts)
            finished = self._run(n_calls, created)
            if finished <= self.end:
                return
            self.ids = ids
            for k, n in lengths.items():
                del getattr(self.rows, k)[n:]
            self.calls, self.steps, self.drafts = counters
            created -= finished - self.end + timedelta(hours=self.rng.uniform(1, 24))

    def _run(self, n_calls: int, created: datetime) -> datetime:
        rng, ids = self.rng, self.ids
        kind = "protocol" if rng.random() < KIND_SHARE["protocol"] else "campaign"
        stages = KINDS[kind]
        model, backend, speed, err_rate = self.pick_model()
        run_id = ids.run
        ids.run += 1
        who = rng.choice(PEOPLE[kind])
        t = created + timedelta(seconds=rng.uniform(0.2, 3.0))
        seq = iteration = version = stage_i = 0
        cost = 0.0
        left = n_calls
        draft_id: int | None = None
        error: str | None = None
        node = "draft"
        cycle_len = 3 if n_calls < 100 else 5
        while left > 0:
            stage = stages[stage_i]
            seq += 1
            step_id = ids.step
            ids.step += 1
            if node == "decide":
                self.step(step_id, run_id, seq, node, stage.name, iteration, t,
                          t + timedelta(milliseconds=15), None, "revise: below thresholds", None)
                t += timedelta(milliseconds=rng.uniform(30, 90))
                node = "draft"
                if iteration >= cycle_len or (left <= 3 * len(stages) and rng.random() < 0.5):
                    # The stage halts for a person: approve it and move on, or send it back.
                    t += timedelta(minutes=rng.uniform(5, 600))
                    if stage_i + 1 < len(stages) and rng.random() < 0.7:
                        self.action(run_id, draft_id, who, "approve", t, None)
                        stage_i += 1
                    else:
                        self.action(run_id, draft_id, who, "revise", t,
                                    "Warmer opening, and keep it shorter.")
                    iteration = 0
                continue
            if node == "draft" and error is None:
                iteration += 1
            agents = ([(stage.drafter, True)] if node == "draft"
                      else [(c, False) for c in stage.critics])[:left]
            start, ends, error = t, [], None
            for agent, drafting in agents:
                c_start = start + timedelta(milliseconds=rng.uniform(5, 60))
                latency, c_cost, c_error = self.call(
                    run_id=run_id, step_id=step_id, agent=agent, model=model, backend=backend,
                    kind=kind, stage=stage.name, speed=speed, err_rate=err_rate,
                    drafting=drafting, iteration=iteration, at=c_start,
                    version=version + 1 if drafting else version)
                cost += c_cost or 0.0
                left -= 1
                ends.append(c_start + timedelta(milliseconds=latency))
                error = error or c_error
            t = max(ends) + timedelta(milliseconds=rng.uniform(20, 120))
            did, detail = None, None
            if error is None and node == "draft":
                version += 1
                did = draft_id = self.draft(run_id, version, stage.name, stage.drafter,
                                            draft_id, iteration, t, kind)
                detail = f"v{version} written by {stage.drafter}"
            elif error is None:
                detail = self.score(draft_id, stage, iteration)
            self.step(step_id, run_id, seq, node, stage.name, iteration, start, t, did,
                      detail, error)
            if error is not None:
                if left > 0:  # a person pressed retry a while later; the same node runs again
                    t += timedelta(minutes=rng.uniform(2, 90))
                    self.action(run_id, draft_id, who, "retry", t, error)
                continue
            node = "review" if node == "draft" else "decide"
        t += timedelta(minutes=rng.uniform(3, 900))
        status, halt_reason, approved = self.finish(run_id, draft_id, who, t, error)
        budget = rng.choice((None, None, 0.5, 1.0, 2.0))
        if halt_reason == "budget_reached":
            budget = round(cost, 2) or 0.01
        title = rng.choice(TITLES[kind])
        run_input = (f'{{"intent": "{title}", "audience": "adults"}}' if kind == "protocol"
                     else f'{{"goal": "{title}", "channels": ["email", "sms"]}}')
        waiting = status in ("awaiting_review", "failed")
        self.rows.runs.append((
            run_id, kind, title, run_input, '{"thresholds": {}, "prompts": {}}', status,
            stages[stage_i].name, node if waiting else None, "loop", iteration, halt_reason,
            False, f"step failed: {error}" if status == "failed" else None, draft_id, draft_id,
            approved, budget, cost, who, self.ts(created), self.ts(t), None, None, None, None,
            seq + 1))
        return t

    def step(self, step_id: int, run_id: int, seq: int, node: str, stage: str, iteration: int,
             start: datetime, end: datetime, draft_id: int | None, detail: str | None,
             error: str | None) -> None:
        self.rows.steps.append((step_id, run_id, seq, node, stage, iteration,
                                "error" if error else "done", "w-demo", self.ts(start),
                                self.ts(end), draft_id, detail, error))
        self.steps += 1

    def finish(self, run_id: int, draft_id: int | None, who: str, t: datetime,
               last_error: str | None) -> tuple[str, str | None, int | None]:
        if last_error:
            return "failed", f"error:{last_error.split(':')[0]}", None
        x = self.rng.random()
        if x < 0.58 and draft_id:
            self.action(run_id, draft_id, who, "approve", t, None)
            return "approved", None, draft_id
        if x < 0.70:
            self.action(run_id, draft_id, who, "reject", t, "Not the direction we want.")
            return "rejected", None, None
        if x < 0.74:
            return "awaiting_review", "budget_reached", None
        return "awaiting_review", self.rng.choice(("thresholds_met", "max_iterations")), None

    # -- rows ---------------------------------------------------------------------------

    def call(self, *, run_id: int, step_id: int, agent: str, model: str, backend: str,
             kind: str, stage: str, speed: float, err_rate: float, drafting: bool,
             iteration: int, at: datetime, version: int) -> tuple[float, float | None, str | None]:
        rng = self.rng
        call_id = self.ids.call
        self.ids.call += 1
        self.calls += 1
        prompt_version = 1 + (call_id % 3 == 0) + (call_id % 7 == 0)
        verb = "Write" if drafting else "Review"
        # Plain text templates, not json.dumps: a million of these must be cheap.
        request = (f'{{"messages": [{{"role": "system", "content": "You are the {agent} '
                   f'(prompt v{prompt_version})."}}, {{"role": "user", "content": "{verb} draft '
                   f'v{version} of run {run_id}, stage {stage}."}}]}}')
        if rng.random() < err_rate:
            kind_, message, base = rng.choice(ERRORS)
            latency = base * rng.uniform(0.8, 1.2)
            self.rows.calls.append((
                call_id, run_id, step_id, agent, backend, model, kind, stage, prompt_version,
                0, 0, 0, None, latency, "error", f"{kind_}: {message}", 3, request, "{}",
                self.ts(at)))
            return latency, None, f"{kind_}: {message}"
        if drafting:
            prompt = int(900 + 260 * iteration + rng.gauss(0, 120))
            completion = int(rng.lognormvariate(math.log(700), 0.35))
            latency = rng.lognormvariate(math.log(5200 * speed), 0.45)
        else:
            prompt = int(1500 + 200 * iteration + rng.gauss(0, 150))
            completion = int(rng.lognormvariate(math.log(260), 0.4))
            latency = rng.lognormvariate(math.log(2300 * speed), 0.5)
        prompt = max(prompt, 200)
        cached = 0
        if prompt >= 1024 and (iteration > 1 or rng.random() < 0.3):
            cached = int(prompt * rng.uniform(0.3, 0.75)) // 128 * 128
        cost = call_cost(self.prices[model], prompt=prompt, cached=cached, completion=completion)
        field_ = "title" if drafting else "scores"
        response = f'{{"content": "{{\\"{field_}\\": \\"v{version}, {completion} tokens\\"}}"}}'
        self.rows.calls.append((
            call_id, run_id, step_id, agent, backend, model, kind, stage, prompt_version,
            prompt, cached, completion, cost, latency, "ok", None, 1, request, response,
            self.ts(at)))
        return latency, cost, None

    def draft(self, run_id: int, version: int, stage: str, author: str, parent: int | None,
              iteration: int, at: datetime, kind: str) -> int:
        did = self.ids.draft
        self.ids.draft += 1
        self.drafts += 1
        content = (f"# {stage.title()} v{version}\n\nA demo {kind} draft (seeded data): "
                   f"version {version} of run {run_id}, iteration {iteration}.\n")
        self.rows.drafts.append((
            did, run_id, version, stage, author, "agent", content, parent,
            hashlib.sha256(content.encode()).hexdigest(), iteration, self.ts(at)))
        return did

    def score(self, draft_id: int | None, stage: Stage, iteration: int) -> str:
        if draft_id is None:
            return "no draft"
        parts = []
        for name in stage.scores:
            value = round(min(1.0, max(0.0, self.rng.gauss(0.62 + 0.06 * iteration, 0.08))), 2)
            self.rows.scores.append((self.ids.score, draft_id, name, value, value, None,
                                     stage.critics[0]))
            self.ids.score += 1
            parts.append(f"{name} {value:.2f}")
        return ", ".join(parts)

    def action(self, run_id: int, draft_id: int | None, who: str, action: str, at: datetime,
               comment: str | None) -> None:
        self.rows.actions.append((self.ids.action, run_id, draft_id, who, False, action,
                                  comment, self.ts(at)))
        self.ids.action += 1


_INSERTS = {
    "runs": ("run", "id, kind, title, input, params, status, stage, next_node, review_mode, "
             "iteration, halt_reason, halt_requested, error, current_draft_id, best_draft_id, "
             "approved_draft_id, budget_usd, cost_usd, created_by, created_at, updated_at, "
             "lease_owner, lease_expires, parent_run_id, parent_draft_id, version"),
    "drafts": ("draft", "id, run_id, version, stage, author, author_kind, content, parent_id, "
               "content_hash, iteration, created_at"),
    "steps": ("step", "id, run_id, seq, node, stage, iteration, status, worker, started_at, "
              "finished_at, draft_id, detail, error"),
    "calls": ("llmcall", "id, run_id, step_id, agent, backend, model, kind, stage, "
              "prompt_version, prompt_tokens, cached_tokens, completion_tokens, cost_usd, "
              "latency_ms, status, error, attempts, request, response, started_at"),
    "scores": ("score", "id, draft_id, name, value, llm_value, check_value, source"),
    "actions": ("humanaction", "id, run_id, draft_id, actor, verified, action, comment, at"),
}


def _flush(conn: Connection, rows: _Rows) -> None:
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


def _next_id(conn: Connection, table: str) -> int:
    return int(conn.exec_driver_sql(f"SELECT coalesce(max(id), 0) + 1 FROM {table}").scalar())


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
        gen = _Generator(conn, seed=seed, end=end)
        first_call = gen.ids.call
        big_run_id: int | None = None
        for i, n in enumerate(counts):
            gen.run(n)
            if i % BATCH_RUNS == BATCH_RUNS - 1:
                _flush(conn, gen.rows)
        if big:  # the newest run, first in the Traces page's picker
            big_run_id = gen.ids.run
            gen.run(big)
        _flush(conn, gen.rows)
        if conn.dialect.name == "postgresql":
            # Rows went in with explicit ids: move the id sequences past them.
            for table, _cols in _INSERTS.values():
                conn.exec_driver_sql(
                    f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                    f"(SELECT coalesce(max(id), 1) FROM {table}))")
        rollup.fold_in(conn, min_id=first_call)
        rollup.create_triggers(conn)
    if demo_budgets:
        _demo_budgets(end)
    return SeedReport(runs=len(counts) + (1 if big else 0), calls=gen.calls, steps=gen.steps,
                      drafts=gen.drafts, big_run_id=big_run_id,
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
