"""One demo run at a time, written as the loop would have written it: per stage, draft ->
review (each critic) -> decide; the supervisor's decision follows the scores and the stage's
thresholds (thresholds met, or the iteration limit, halts for a person; otherwise revise); a
person then approves (a campaign moves to its next stage through an advance step), sends it
back, rejects it or leaves it waiting. Before every step the run's spend is checked against
its budget, as the agents do, so a run over its budget is one halted by it. A failed call fails
its step; a person retries it later, or the run ends failed.

Rows are plain tuples in the column order of demo/seed.py's INSERTs: a million calls must be
cheap to make."""

from __future__ import annotations

import hashlib
import json
import math
import random
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.engine import Connection

from demo.data import ERRORS, GOALS, INTENTS, KIND_SHARE, MODELS, PEOPLE
from demo.drafts import draft_text
from demo.pipelines import StagePlan, default_params, stage_plans
from demo.rows import Ending, Ids, Rows, RunState
from engine.audit_chain import act_hash
from engine.pricing import Price, call_cost

DAYS = 90
MAX_PROMPT, MAX_COMPLETION = 4000, 1200
"""Token counts a demo call never exceeds: what the budget check assumes a call may cost."""

class Generator:
    """Writes tuples for runs in the column order of demo/seed.py's INSERTs."""

    def __init__(self, conn: Connection, *, seed: int, end: datetime,
                 prices: dict[str, Price | None],
                 prompt_versions: dict[str, list[tuple[int, datetime]]]) -> None:
        self.rng = random.Random(seed)
        self.sqlite = conn.dialect.name == "sqlite"
        self.end = end
        self.start = end - timedelta(days=DAYS)
        self.prices = prices
        self.versions = prompt_versions
        self.plans = {kind: stage_plans(kind) for kind in KIND_SHARE}
        self.params = json.dumps(default_params())
        self.ids = Ids(*(next_id(conn, t) for t in
                         ("run", "step", "llmcall", "draft", "score", "humanaction")))
        self.rows = Rows()
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

    def run(self, n_calls: int, *, budgeted: bool = True) -> None:
        """One run; started early enough that its last step is over by `end`."""
        created = self.created_at()
        for _ in range(10):
            ids, lengths = Ids(**vars(self.ids)), {k: len(v) for k, v in vars(self.rows).items()}
            counters = (self.calls, self.steps, self.drafts)
            finished = self._run(n_calls, created, budgeted)
            if finished <= self.end:
                return
            self.ids = ids
            for k, n in lengths.items():
                del getattr(self.rows, k)[n:]
            self.calls, self.steps, self.drafts = counters
            created -= finished - self.end + timedelta(hours=self.rng.uniform(1, 24))

    def _budget(self, model: str, n_calls: int) -> float | None:
        """Most runs have no budget or one well above their spend; a few a tight one, which
        halts them (budget_reached) before they are done."""
        price = self.prices.get(model)
        x = self.rng.random()
        if price is None or x < 0.55:
            return None
        per_call = call_cost(price, prompt=1600, cached=0, completion=450) or 0.0
        share = self.rng.uniform(0.3, 0.7) if x > 0.96 else self.rng.uniform(1.6, 3.0)
        return round(max(0.01, per_call * n_calls * share), 2)

    def _over_budget(self, r: RunState, calls: int) -> bool:
        """As the agents check before every call: would the next calls, at the most a call
        can cost (MAX_PROMPT and MAX_COMPLETION tokens), take the run over its budget?"""
        if r.budget is None:
            return False
        price = self.prices.get(r.model)
        most = call_cost(price, prompt=MAX_PROMPT, cached=0, completion=MAX_COMPLETION) or 0.0
        return r.cost + calls * most > r.budget

    def _run(self, n_calls: int, created: datetime, budgeted: bool) -> datetime:
        rng, ids = self.rng, self.ids
        kind = "protocol" if rng.random() < KIND_SHARE["protocol"] else "campaign"
        model, backend, speed, err_rate = self.pick_model()
        r = RunState(id=ids.run, kind=kind, who=rng.choice(PEOPLE[kind]), model=model,
                     backend=backend, speed=speed, err_rate=err_rate,
                     budget=self._budget(model, n_calls) if budgeted else None, left=n_calls,
                     t=created + timedelta(seconds=rng.uniform(0.2, 3.0)),
                     title=rng.choice(INTENTS if kind == "protocol" else GOALS))
        ids.run += 1
        stages = self.plans[kind]
        stage_i, iteration, ending = 0, 0, None
        while ending is None:
            stage = stages[stage_i]
            ending, iteration, halted = self._cycle(r, stage, iteration)
            if ending is not None or halted is None:
                continue
            ending, stage_i, iteration = self._person(r, stages, stage_i, halted, iteration)
        self._run_row(r, stages[stage_i], iteration, ending, created)
        return r.t

    def _cycle(self, r: RunState, stage: StagePlan,
               iteration: int) -> tuple[Ending | None, int, str | None]:
        """Draft, review, decide until the stage halts for a person (its reason), the run
        ends (budget, a failure, out of calls), or it must revise."""
        while True:
            for node in ("draft", "review"):
                while True:
                    if self._over_budget(r, 1 if node == "draft" else len(stage.critics)):
                        return Ending("awaiting_review", "budget_reached", node), iteration, None
                    if node == "draft":
                        iteration += 1
                    error = self._step(r, stage, node, iteration)
                    if error is None:
                        break
                    if node == "draft":
                        iteration -= 1  # the failed draft step is redone, not counted
                    # A person retries while the run has work left; near its end some give up.
                    if r.left < 1 + len(stage.critics) and self.rng.random() < 0.5:
                        return (Ending("failed", f"error:{error.split(':')[0]}", node,
                                       f"step failed: {error}"), iteration, None)
                    r.t += timedelta(minutes=self.rng.uniform(2, 90))
                    self.action(r, "retry", error)
            reason = self._decide(r, stage, iteration)
            if reason is not None:
                return None, iteration, reason

    def _step(self, r: RunState, stage: StagePlan, node: str, iteration: int) -> str | None:
        """One draft or review step with its calls; the error of a failed call, else None."""
        rng = self.rng
        r.seq += 1
        step_id = self.ids.step
        self.ids.step += 1
        agents = [stage.drafter] if node == "draft" else list(stage.critics)
        start, ends, error = r.t, [], None
        for agent in agents:
            at = start + timedelta(milliseconds=rng.uniform(5, 60))
            latency, cost, err = self.call(r, step_id, agent, stage.name, node == "draft",
                                           iteration, at)
            r.cost += cost or 0.0
            r.left -= 1
            ends.append(at + timedelta(milliseconds=latency))
            error = error or err
        r.t = max(ends) + timedelta(milliseconds=rng.uniform(20, 120))
        did, detail = None, None
        if error is None and node == "draft":
            r.version += 1
            did = r.draft_id = self.draft(r, stage, iteration)
            detail = f"v{r.version} written by {stage.drafter}"
        elif error is None:
            detail = self.score(r.draft_id, stage, iteration)
        self.step(step_id, r.id, r.seq, node, stage.name, iteration, start, r.t, did, detail,
                  error)
        return error

    def _decide(self, r: RunState, stage: StagePlan, iteration: int) -> str | None:
        """The supervisor's decision on the review just written: a halt reason, or None to
        revise (the same rule as engine/loop/apply.py's apply_decide)."""
        scores = self._last_scores
        below = [f"{n} {scores.get(n, 0.0):.2f} < {t:.2f}" for n, t in stage.thresholds.items()
                 if scores.get(n, 0.0) < t]
        reason = None
        if not below:
            reason, detail = "thresholds_met", "thresholds met; waiting for review"
        elif iteration >= stage.max_iterations:
            reason = "max_iterations"
            detail = (f"{iteration} iterations without meeting thresholds "
                      f"({', '.join(below)}); waiting for review")
        else:
            detail = f"revise: {', '.join(below)}"
        r.seq += 1
        step_id = self.ids.step
        self.ids.step += 1
        self.step(step_id, r.id, r.seq, "decide", stage.name, iteration, r.t,
                  r.t + timedelta(milliseconds=15), None, detail, None)
        r.t += timedelta(milliseconds=self.rng.uniform(30, 90))
        return reason

    def _person(self, r: RunState, stages: tuple[StagePlan, ...], stage_i: int, reason: str,
                iteration: int) -> tuple[Ending | None, int, int]:
        """What a person does with a halted stage. While the run has calls to make, they move
        it on: approve a stage that has a next one, else send it back. At the end: approve the
        run, reject it, or leave it waiting."""
        rng, stage = self.rng, stages[stage_i]
        r.t += timedelta(minutes=rng.uniform(5, 600))
        last = stage_i + 1 == len(stages)
        x = rng.random()
        if r.left >= 1 + len(stage.critics):
            if not last and x < 0.8:
                return self._advance(r, stages, stage_i), stage_i + 1, 0
            self.action(r, "revise", "Warmer opening, and keep it shorter.")
            return None, stage_i, 0
        if last and x < 0.62:
            self.action(r, "approve", None)
            r.approved_id = r.draft_id
            return Ending("approved", None), stage_i, iteration
        if x < 0.75:
            self.action(r, "reject", "Not the direction we want.")
            return Ending("rejected", None), stage_i, iteration
        return Ending("awaiting_review", reason), stage_i, iteration

    def _advance(self, r: RunState, stages: tuple[StagePlan, ...], stage_i: int) -> None:
        """A person approves a stage that has a next one; an advance step moves the run on."""
        stage = stages[stage_i]
        self.action(r, "approve", None)
        r.seq += 1
        step_id = self.ids.step
        self.ids.step += 1
        self.step(step_id, r.id, r.seq, "advance", stage.name, 0, r.t,
                  r.t + timedelta(milliseconds=8), None,
                  f"stage {stage.name} approved; moving to {stages[stage_i + 1].name}", None)
        r.t += timedelta(milliseconds=self.rng.uniform(20, 60))
        r.draft_id = None

    def _run_row(self, r: RunState, stage: StagePlan, iteration: int, ending: Ending,
                 created: datetime) -> None:
        title = r.title
        if r.kind == "protocol":
            run_input = json.dumps({"intent": title, "audience": "adults"})
        else:
            run_input = json.dumps({"brand_id": 1, "brand_name": "Alma Cafe", "goal": title,
                                    "audience": "coffee lovers", "budget": 5000,
                                    "channels": ["email", "sms"]})
        self.rows.runs.append((
            r.id, r.kind, title, run_input, self.params, ending.status, stage.name,
            ending.next_node, "loop", iteration, ending.halt_reason, False, ending.error,
            r.draft_id, r.draft_id, r.approved_id, r.budget, r.cost, r.who, self.ts(created),
            self.ts(r.t), None, None, None, None, r.seq + 1, r.audit_head))

    # -- rows ---------------------------------------------------------------------------

    def step(self, step_id: int, run_id: int, seq: int, node: str, stage: str, iteration: int,
             start: datetime, end: datetime, draft_id: int | None, detail: str | None,
             error: str | None) -> None:
        self.rows.steps.append((step_id, run_id, seq, node, stage, iteration,
                                "error" if error else "done", "w-demo", self.ts(start),
                                self.ts(end), draft_id, detail, error))
        self.steps += 1

    def prompt_version(self, agent: str, at: datetime) -> int | None:
        """The agent's saved version in use at `at`: the newest made before it, else None
        (the code's default prompt)."""
        found = None
        for version, made in self.versions.get(agent, ()):
            if made <= at:
                found = version
        return found

    def call(self, r: RunState, step_id: int, agent: str, stage: str, drafting: bool,
             iteration: int, at: datetime) -> tuple[float, float | None, str | None]:
        rng = self.rng
        call_id = self.ids.call
        self.ids.call += 1
        self.calls += 1
        pv = self.prompt_version(agent, at)
        version = r.version + 1 if drafting else r.version
        verb = "Write" if drafting else "Review"
        prompt_name = f"prompt v{pv}" if pv else "default prompt"
        # Plain text templates, not json.dumps: a million of these must be cheap.
        request = (f'{{"messages": [{{"role": "system", "content": "You are the {agent} '
                   f'({prompt_name})."}}, {{"role": "user", "content": "{verb} draft '
                   f'v{version} of run {r.id}, stage {stage}."}}]}}')
        if rng.random() < r.err_rate:
            kind_, message, base = rng.choice(ERRORS)
            latency = base * rng.uniform(0.8, 1.2)
            self.rows.calls.append((
                call_id, r.id, step_id, agent, r.backend, r.model, r.kind, stage, pv,
                0, 0, 0, None, latency, "error", f"{kind_}: {message}", 3, request, "{}",
                self.ts(at)))
            return latency, None, f"{kind_}: {message}"
        if drafting:
            prompt = int(900 + 260 * iteration + rng.gauss(0, 120))
            completion = int(rng.lognormvariate(math.log(700), 0.35))
            latency = rng.lognormvariate(math.log(5200 * r.speed), 0.45)
        else:
            prompt = int(1500 + 200 * iteration + rng.gauss(0, 150))
            completion = int(rng.lognormvariate(math.log(260), 0.4))
            latency = rng.lognormvariate(math.log(2300 * r.speed), 0.5)
        prompt = min(max(prompt, 200), MAX_PROMPT)
        completion = min(completion, MAX_COMPLETION)
        cached = 0
        if prompt >= 1024 and (iteration > 1 or rng.random() < 0.3):
            cached = int(prompt * rng.uniform(0.3, 0.75)) // 128 * 128
        price = self.prices.get(r.model)
        cost = (call_cost(price, prompt=prompt, cached=cached, completion=completion)
                if price is not None else None)
        field_ = "title" if drafting else "scores"
        response = f'{{"content": "{{\\"{field_}\\": \\"v{version}, {completion} tokens\\"}}"}}'
        self.rows.calls.append((
            call_id, r.id, step_id, agent, r.backend, r.model, r.kind, stage, pv,
            prompt, cached, completion, cost, latency, "ok", None, 1, request, response,
            self.ts(at)))
        return latency, cost, None

    def draft(self, r: RunState, stage: StagePlan, iteration: int) -> int:
        did = self.ids.draft
        self.ids.draft += 1
        self.drafts += 1
        content = draft_text(r.kind, stage.name, r.title, r.version)
        self.rows.drafts.append((
            did, r.id, r.version, stage.name, stage.drafter, "agent", content,
            r.draft_id, hashlib.sha256(content.encode()).hexdigest(), iteration, self.ts(r.t)))
        return did

    _last_scores: dict[str, float] = {}

    def score(self, draft_id: int | None, stage: StagePlan, iteration: int) -> str:
        """The critics' scores for the draft: each near its threshold, rising with the
        iterations, so some stages meet every threshold on the first review and some never."""
        scores: dict[str, float] = {}
        for name, threshold in stage.thresholds.items():
            mean = threshold - 0.1 + 0.08 * iteration
            value = round(min(1.0, max(0.0, self.rng.gauss(mean, 0.07))), 2)
            scores[name] = value
            self.rows.scores.append((self.ids.score, draft_id, name, value, value, None,
                                     stage.source_of(name)))
            self.ids.score += 1
        self._last_scores = scores
        return ", ".join(f"{n} {v:.2f}" for n, v in scores.items())

    def action(self, r: RunState, action: str, comment: str | None) -> None:
        """A person's act, sealed into the run's audit chain as the services seal it."""
        sealed = act_hash(run_id=r.id, draft_id=r.draft_id, actor=r.who, verified=False,
                          action=action, comment=comment, at=r.t, prev_hash=r.audit_head)
        self.rows.actions.append((self.ids.action, r.id, r.draft_id, r.who, False, action,
                                  comment, self.ts(r.t), r.audit_head, sealed))
        r.audit_head = sealed
        self.ids.action += 1


def next_id(conn: Connection, table: str) -> int:
    return int(conn.exec_driver_sql(f"SELECT coalesce(max(id), 0) + 1 FROM {table}").scalar())
