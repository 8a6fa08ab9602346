"""The supervisor loop: draft -> review -> decide -> halt for a person | revise.

Each node is one Step. A step's row is committed when it starts; its outputs (draft, scores,
notes) and the run's next node are committed together when it ends, in the same transaction
that writes the next step's row and reads what that node needs. A process killed in between
leaves a "running" step and no outputs, so a worker that takes the run over redoes that node
and nothing is lost or written twice."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from functools import partial
from typing import Any

from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm.exc import StaleDataError
from sqlmodel import Session, select

from db.models import (
    Flag,
    Run,
    RunStatus,
    Score,
    Step,
    utcnow,
)
from db.session import get_engine, session_scope
from engine.agents import BudgetReached, CallContext, run_agent, save_calls
from engine.checks.base import FlagOut
from engine.decide import (
    Board,
    GateVerdict,
    as_review,
    combine_review,
    gate,
    max_iterations_for,
    thresholds_for,
)
from engine.leases import claim_row, lease_seconds
from engine.llm.base import LLMBackend, LLMError
from engine.llm.offline import OfflineBackend
from engine.loop_sql import (
    ABANDON_STEPS,
    DELETE_FLAGS,
    DELETE_SCORES,
    FINISH_STEP,
    INSERT_DONE_STEP,
    INSERT_DRAFT,
    INSERT_FLAG,
    INSERT_NOTE,
    INSERT_SCORE,
    INSERT_STEP,
    MAX_SEQ,
    MAX_VERSION,
    SEL_DRAFTER_NOTES,
    SEL_FEEDBACK,
    SEL_STATUS,
    LoopTx,
    RunRow,
    draft_content,
    loop_transaction,
    prompts_for,
    run_spend,
)
from engine.model_safety import model_judgement, start_moderation
from engine.pipelines.base import (
    PRIORITY_ORDER,
    AgentSpec,
    DraftTask,
    NoteOut,
    ReviewTask,
    StageSpec,
)
from engine.pipelines.registry import get_pipeline
from engine.prompts import ResolvedPrompt
from engine.redact import redact_secrets_text, redact_text
from engine.text import content_hash

COMMIT_ATTEMPTS = 5
log = logging.getLogger("draftroom.supervisor")


class LeaseLost(Exception):
    """Another worker owns the run now; this one must stop touching it."""


@dataclass(frozen=True)
class StepEvent:
    run_id: int
    seq: int
    node: str
    status: str  # started | done | error | halted
    iteration: int
    stage: str
    detail: str = ""


@dataclass
class StepPlan:
    run_id: int
    step_id: int
    seq: int
    node: str
    kind: str
    stage: str
    input: dict[str, Any]
    params: dict[str, Any]
    iteration: int
    budget_usd: float | None
    current_draft_id: int | None
    review_mode: str
    # Read in the transaction that opens the step, so the node itself needs no session:
    task: DraftTask | None = None  # draft: what the drafter is given
    content: str | None = None  # review: the draft to review
    prompts: dict[str, ResolvedPrompt] = field(default_factory=dict)
    run: RunRow | None = None
    """The run's row as this step's opening saved it: the step's commit writes it back under
    the version check, so it need not read it again unless someone changed it since."""
    calls: list[dict[str, Any]] = field(default_factory=list)
    """Model calls' rows to write with the step's outputs (see CallContext.pending)."""
    new_draft: bool = False
    """review: the draft was written in the transaction that opened this step, so it has no
    scores or flags to replace (unless the run changed since, which the commit checks)."""


@dataclass
class ReviewOutcome:
    scores: list[
        tuple[str, float, float | None, float | None, str]
    ]  # name, value, llm, cap, source
    flags: list[FlagOut]
    notes: list[tuple[str, NoteOut]]  # (author, note)
    verdicts: list[str] = field(default_factory=list)


def run_checks(stage: StageSpec, text: str, run_input: dict[str, Any]):  # type: ignore[no-untyped-def]
    return stage.checks(text, run_input)


class Supervisor:
    """Drives runs this worker holds, one committed step at a time."""

    def __init__(
        self,
        backend: LLMBackend,
        worker_id: str,
        on_event: Callable[[StepEvent], None] | None = None,
    ) -> None:
        self.backend = backend
        self.worker_id = worker_id
        self.on_event = on_event or (lambda e: None)
        self._local = threading.local()  # .conn: the connection this thread's drive holds

    # -- public -------------------------------------------------------------------------

    def run_until_idle(self, run_id: int) -> str:
        """Advance the run until it halts, fails or is taken away; returns its status.
        Each step's commit also opens the next step (one transaction between two nodes)."""
        with self._holding_connection():
            return self._drive(run_id, None)

    def claim_and_run(
        self, run_id: int | None, on_claimed: Callable[[int], None] | None = None
    ) -> tuple[int, str] | None:
        """Claim a run (this one, or with None the oldest waiting) and drive it until idle;
        the claim and the opening of its first step are one transaction. `on_claimed` hears
        the run's id before its first step runs. Returns (run id, status), None when there
        was nothing to claim."""
        with self._holding_connection():
            got = self._claim_and_begin(run_id)
            if got is None:
                return None
            claimed, plan, status = got
            if on_claimed is not None:
                on_claimed(claimed)
            return claimed, self._drive(claimed, plan) if plan is not None else status

    @contextmanager
    def _holding_connection(self) -> Iterator[None]:
        """One connection for all of a drive's transactions: checking one out of the pool
        (and, on PostgreSQL, pinging it) for every step cost more than some of the steps'
        statements. It sits idle, outside any transaction, while a model answers; if the
        database dropped it meanwhile, the transaction that finds out is tried again on a
        new one (see _retrying)."""
        if getattr(self._local, "conn", None) is not None:  # already holding one
            yield
            return
        with get_engine().connect() as conn:
            self._local.conn = conn
            try:
                yield
            finally:
                self._local.conn = None

    def _tx(self) -> AbstractContextManager[LoopTx]:
        return loop_transaction(getattr(self._local, "conn", None))

    def _drive(self, run_id: int, plan: StepPlan | None) -> str:
        status: str | None = None
        while True:
            more, plan, status = self._advance(run_id, plan, open_next=True)
            if not more:
                break
        if status is None:  # stopped without a commit of this worker's: ask the database
            with self._tx() as tx:
                status = SEL_STATUS.scalar(tx.c, {"b_run": run_id})
        return status or "missing"

    def advance(self, run_id: int) -> bool:
        """Run one node (a review and the supervisor's decision on it count as one). True
        while the run has more to do for this worker."""
        return self._advance(run_id, None, open_next=False)[0]

    def _advance(
        self, run_id: int, plan: StepPlan | None, *, open_next: bool
    ) -> tuple[bool, StepPlan | None, str | None]:
        """Run one node (`plan`, when the last commit opened it already); returns whether
        there is more to do, the next step when this commit opened it, and the run's status
        when this worker's commit set it."""
        plan = plan or self._begin(run_id)
        if plan is None:
            return False, None, None
        self._emit(plan, "started")
        try:
            if plan.node == "draft":
                result: Any = self._draft(plan)
            elif plan.node == "review":
                result = self._review(plan)
            else:
                result = None
        except BudgetReached as exc:
            self._save_calls(plan)
            self._stop(plan, status=RunStatus.REVIEW, reason="budget_reached", message=str(exc))
            return False, None, None
        except LLMError as exc:
            self._save_calls(plan)
            if exc.kind == "cancelled":  # a person halted the run while the model was out
                self._stop(plan, status=RunStatus.REVIEW, reason="halted", message=str(exc))
                return False, None, None
            self._stop(plan, status=RunStatus.FAILED, reason=f"error:{exc.kind}", message=str(exc))
            return False, None, None
        except LeaseLost:
            self._save_calls(plan)
            return False, None, None
        except Exception as exc:  # a bug or bad output must not leave the run spinning
            log.exception("run %s: %s step failed", plan.run_id, plan.node)
            self._save_calls(plan)
            self._stop(
                plan,
                status=RunStatus.FAILED,
                reason="error:internal",
                message=f"{plan.node} step failed: {type(exc).__name__}: {exc}"[:2000],
            )
            return False, None, None
        try:
            return self._commit(plan, result, open_next=open_next)
        except LeaseLost:
            return False, None, None
        finally:
            self._save_calls(plan)  # what the commit did not take (a lost lease, an error)

    def _save_calls(self, plan: StepPlan) -> None:
        """The step's calls in a transaction of their own: they were made (and paid for)
        whether or not the step's outputs are kept."""
        save_calls(plan.calls)
        plan.calls.clear()

    # -- begin --------------------------------------------------------------------------

    def _begin(self, run_id: int) -> StepPlan | None:
        for attempt in range(COMMIT_ATTEMPTS):
            try:
                with self._tx() as tx:
                    return self._open_first(tx, RunRow.load(tx.c, run_id))
            except StaleDataError:
                continue
            except DBAPIError as exc:
                self._retrying(exc, attempt)
        return None

    def _claim_and_begin(self, run_id: int | None) -> tuple[int, StepPlan | None, str] | None:
        with self._tx() as tx:
            row = claim_row(tx.c, run_id, self.worker_id)
            if row is None:
                return None
            run = RunRow(row)
            # No one else can change the row in between, and the claim set the lease just now.
            plan = self._open_first(tx, run, renew_lease=False)
            return run.id, plan, run.status

    def _open_first(
        self, tx: LoopTx, run: RunRow | None, *, renew_lease: bool = True
    ) -> StepPlan | None:
        """Open the step a run this worker holds does next (the caller commits); None when
        there is none (the run goes to review if it was halted or has nothing left)."""
        if run is None or run.status != RunStatus.RUNNING:
            return None
        if run.lease_owner != self.worker_id:
            return None
        c = tx.c
        if run.halt_requested or run.next_node is None:
            self._to_review(run, "halted" if run.halt_requested else run.halt_reason)
            run.save(c)
            return None
        last = MAX_SEQ.scalar(c, {"b_run": run.id}) or 0
        if last:  # steps left "running" by a worker that died are abandoned, not resumed
            ABANDON_STEPS.run(c, {"b_run": run.id, "b_now": utcnow()})
        seq = last + 1
        plan = self._open_step(tx, run, seq, renew_lease=renew_lease)
        run.save(c)
        return plan

    def _open_step(
        self,
        tx: LoopTx,
        run: RunRow,
        seq: int,
        texts: dict[int | None, str] | None = None,
        *,
        renew_lease: bool = True,
    ) -> StepPlan:
        """Write the step's row, renew the lease and read what the node needs (the caller
        saves the run). `texts`: drafts' contents the caller holds already, by id."""
        c = tx.c
        texts = texts or {}
        step_id = INSERT_STEP.scalar(
            c,
            {
                "run_id": run.id,
                "seq": seq,
                "node": run.next_node,
                "stage": run.stage,
                "iteration": run.iteration,
                "worker": self.worker_id,
                "started_at": utcnow(),
            },
        )
        if renew_lease:
            run.lease_expires = utcnow() + timedelta(seconds=lease_seconds())
        plan = StepPlan(
            run_id=run.id or 0,
            step_id=step_id,
            seq=seq,
            node=run.next_node or "",
            kind=run.kind,
            stage=run.stage,
            input=dict(run.input),
            params=dict(run.params),
            iteration=run.iteration,
            budget_usd=run.budget_usd,
            current_draft_id=run.current_draft_id,
            review_mode=run.review_mode,
            run=run,
        )
        stage = self._stage(plan)
        agents: tuple[AgentSpec, ...] = ()
        if plan.node == "draft":
            plan.task = self._draft_task(tx, plan, texts)
            agents = (stage.drafter,)
        elif plan.node == "review":
            plan.content = draft_content(c, plan.current_draft_id, texts)
            agents = stage.critics
        plan.prompts = prompts_for(tx, agents, plan.params)
        return plan

    # -- nodes (no database writes but the LLM call records) -----------------------------

    def _ctx(self, plan: StepPlan, *, defer: bool) -> CallContext:
        """`defer`: the calls' rows wait for the step's commit, which follows the last call
        with no model time in between; otherwise each is written when its call ends."""
        return CallContext(
            run_id=plan.run_id,
            step_id=plan.step_id,
            kind=plan.kind,
            stage=plan.stage,
            params=plan.params,
            budget_usd=plan.budget_usd,
            pending=plan.calls if defer else None,
        )

    def _stage(self, plan: StepPlan) -> StageSpec:
        return get_pipeline(plan.kind).stage(plan.stage)

    def _draft(self, plan: StepPlan) -> str:
        stage = self._stage(plan)
        assert plan.task is not None
        out = run_agent(
            stage.drafter,
            plan.task,
            self.backend,
            self._ctx(plan, defer=True),
            prompt=plan.prompts.get(stage.drafter.name),
        )
        return redact_secrets_text(stage.to_text(out))  # a model never gets to store a key

    def _draft_task(self, tx: LoopTx, plan: StepPlan, texts: dict[int | None, str]) -> DraftTask:
        c = tx.c
        previous = draft_content(c, plan.current_draft_id, texts)
        notes: list[NoteOut] = []
        if previous is not None:
            rows = SEL_DRAFTER_NOTES.rows(
                c, {"b_run": plan.run_id, "b_draft": plan.current_draft_id}
            )
            notes = [NoteOut(target=t, priority=p, text=x) for t, p, x in rows]  # type: ignore[arg-type]
            notes.sort(key=lambda n: PRIORITY_ORDER[n.priority])
        feedback = [
            comment
            for (comment,) in SEL_FEEDBACK.rows(
                c, {"b_run": plan.run_id, "b_stage": plan.stage}
            )
            if comment
        ]
        pipeline = get_pipeline(plan.kind)
        context = (
            pipeline.stage_context(tx.session, plan.run_id, plan.stage)
            if pipeline.stage_context
            else {}
        )
        return DraftTask(
            kind=plan.kind,
            stage=plan.stage,
            input=plan.input,
            iteration=plan.iteration + 1,
            previous=previous,
            notes=notes,
            feedback=feedback,
            context=context,
        )

    def _review(self, plan: StepPlan) -> ReviewOutcome:
        stage = self._stage(plan)
        if plan.content is None:
            raise LLMError("malformed", "there is no draft to review")
        checks = run_checks(stage, plan.content, plan.input)
        task = ReviewTask(
            kind=plan.kind,
            stage=plan.stage,
            input=plan.input,
            content=plan.content,
            flags=checks.flags,
        )
        # Critics at the same time over a network: a paid call that ends while another is
        # still out is written at once, so a kill in the meantime cannot lose it.
        ctx = self._ctx(plan, defer=not self._parallel(len(stage.critics)))
        moderation = start_moderation(self.backend, plan.content)  # next to the critics
        calls = [
            partial(run_agent, c, task, self.backend, ctx, prompt=plan.prompts.get(c.name))
            for c in stage.critics
        ]
        futures = self._all_critics(calls)
        reviews = [
            (c.name, as_review(f.result())) for c, f in zip(stage.critics, futures, strict=True)
        ]
        combined = combine_review(stage, reviews, checks.caps)
        notes = [
            (name, n.model_copy(update={"text": redact_secrets_text(n.text)}))
            for name, r in reviews
            for n in r.notes
        ]
        notes += [
            (
                "checks",
                NoteOut(
                    target="drafter",
                    priority="critical",
                    text=f'{f.category.replace("_", " ")}: rewrite or remove "{f.text}"',
                ),
            )
            for f in checks.flags
            if f.blocking
        ]
        # A real model's own safety judgement joins the deterministic flags (issue 14).
        model_flags, model_notes = model_judgement(self.backend, plan.content, reviews,
                                                   moderation, ctx)
        notes += model_notes
        verdicts = [r.verdict for _, r in reviews if r.verdict]
        return ReviewOutcome(
            scores=[(n, v, llm, cap, src) for n, (v, llm, cap, src) in combined.items()],
            flags=checks.flags + model_flags,
            notes=notes,
            verdicts=verdicts,
        )

    # -- commit -------------------------------------------------------------------------

    def _all_critics(self, calls: list[Callable[[], Any]]) -> list[Future[Any]]:
        """Critics are independent, so they run at the same time: the first in this thread,
        the others on the pool. The offline backend computes here, under the GIL, where
        threads cannot overlap its critics and only add hand-offs: its critics run one after
        the other. Either way every call ends (and is recorded) before an error is raised."""
        rest = (
            [self._critic_pool(len(calls) - 1).submit(c) for c in calls[1:]]
            if self._parallel(len(calls))
            else []
        )
        here: list[Future[Any]] = []
        try:
            for call in calls[:1] if rest else calls:
                here.append(Future())
                try:
                    here[-1].set_result(call())
                except Exception as exc:  # raised by the caller, in the critics' order
                    here[-1].set_exception(exc)
        finally:
            wait(rest)
        return here + rest

    def _parallel(self, n: int) -> bool:
        return n > 1 and not isinstance(self.backend, OfflineBackend)

    def _critic_pool(self, n: int) -> ThreadPoolExecutor:
        """Threads kept for the critics (starting new ones at every review costs more than
        an offline critic); their number grows to the largest panel seen, less one."""
        pool = self.__dict__.get("_pool")
        if pool is None or self.__dict__.get("_pool_size", 0) < n:
            if pool is not None:
                pool.shutdown(wait=False)
            pool = ThreadPoolExecutor(max_workers=max(1, n), thread_name_prefix="critic")
            self.__dict__["_pool"], self.__dict__["_pool_size"] = pool, max(1, n)
        return pool

    def _commit(
        self, plan: StepPlan, result: Any, *, open_next: bool = False
    ) -> tuple[bool, StepPlan | None, str]:
        for attempt in range(COMMIT_ATTEMPTS):
            try:
                with self._tx() as tx:
                    c = tx.c
                    save_calls(plan.calls, c)  # first: the decision below counts their cost
                    # The row as this step's opening saved it, unless a first try found it
                    # changed: anyone who changed the run since (a claim, a person's halt)
                    # bumped its version, and saving it below fails the check.
                    run = plan.run if attempt == 0 and plan.run else RunRow.load(c, plan.run_id)
                    plan.new_draft = plan.new_draft and attempt == 0
                    if (
                        run is None
                        or run.lease_owner != self.worker_id
                        or run.status != RunStatus.RUNNING
                    ):
                        raise LeaseLost()
                    if run.next_node != plan.node:
                        raise LeaseLost()
                    step = _StepOut()
                    detail = self._apply(tx, run, step, plan, result)
                    FINISH_STEP.run(
                        c,
                        {
                            "b_step": plan.step_id,
                            "b_now": utcnow(),
                            "b_detail": detail,
                            "b_draft": step.draft_id,
                        },
                    )
                    events = [StepEvent(plan.run_id, plan.seq, plan.node, "done", run.iteration,
                                        run.stage, detail)]
                    seq = plan.seq
                    if run.next_node == "decide" and not run.halt_requested:
                        seq += 1
                        events += self._decide_step(tx, run, seq)
                    if run.halt_requested and run.status == RunStatus.RUNNING:
                        self._to_review(run, "halted")
                    run.updated_at = utcnow()
                    more = run.status == RunStatus.RUNNING and run.next_node is not None
                    # The next step starts in the same transaction: this step's outputs are
                    # durable before the next node runs, with one commit between them.
                    texts: dict[int | None, str] = (
                        {step.draft_id: result} if plan.node == "draft"
                        else {plan.current_draft_id: plan.content} if plan.content is not None
                        else {}
                    )
                    nxt = self._open_step(tx, run, seq + 1, texts) if more and open_next else None
                    if nxt is not None and plan.node == "draft":
                        nxt.new_draft = True
                    run.save(c)
                plan.calls.clear()  # committed with the step
                for event in events:
                    self.on_event(event)
                return more, nxt, run.status
            except StaleDataError:
                if attempt == COMMIT_ATTEMPTS - 1:
                    raise
            except IntegrityError:
                # With the row carried over, a worker that lost its lease can reach another
                # owner's new rows (a step number taken) before the version check: read the
                # run afresh, which finds the lease gone. Without it, this is a real error.
                if attempt > 0 or plan.run is None:
                    raise
            except DBAPIError as exc:
                self._retrying(exc, attempt)
        return False, None, None  # type: ignore[return-value]  # unreachable: the loop raises

    @staticmethod
    def _retrying(exc: DBAPIError, attempt: int) -> None:
        """Go on to the next attempt when the database dropped the held connection (the
        transaction rolled back; the connection reconnects when next used); else raise."""
        if not exc.connection_invalidated or attempt == COMMIT_ATTEMPTS - 1:
            raise exc
        log.warning("database connection dropped; trying the transaction again")

    def _decide_step(self, tx: LoopTx, run: RunRow, seq: int) -> list[StepEvent]:
        """The supervisor's decision on a review, as a step of its own committed with the
        review's outputs: it calls no model and reads only what that transaction wrote, so a
        transaction of its own would add a commit and no durability."""
        node, iteration, stage = run.next_node, run.iteration, run.stage
        started = utcnow()
        detail = self._apply_decide(tx, run)
        INSERT_DONE_STEP.run(tx.c, {
            "run_id": run.id, "seq": seq, "node": node, "stage": stage,
            "iteration": iteration, "worker": self.worker_id, "status": "done",
            "started_at": started, "finished_at": utcnow(), "detail": detail,
        })
        return [StepEvent(run.id or 0, seq, node or "", "started", iteration, stage),
                StepEvent(run.id or 0, seq, node or "", "done", iteration, stage, detail)]

    def _apply(self, tx: LoopTx, run: RunRow, step: _StepOut, plan: StepPlan,
               result: Any) -> str:
        if plan.node == "draft":
            return self._apply_draft(tx, run, step, result)
        if plan.node == "review":
            return self._apply_review(tx, run, result, replace=not plan.new_draft)
        if plan.node == "advance":
            return self._apply_advance(run)
        return self._apply_decide(tx, run)

    def _apply_advance(self, run: RunRow) -> str:
        """A person approved the stage's output (its completion signal): only here does a
        run move to its next stage, with a fresh iteration budget and no current draft."""
        nxt = get_pipeline(run.kind).next_stage(run.stage)
        if nxt is None:
            self._to_review(run, "final_stage")
            return "no stage after this one"
        done = run.stage
        run.stage = nxt.name
        run.iteration = 0
        run.current_draft_id = None
        run.best_draft_id = None
        run.approved_draft_id = None
        run.review_mode = "loop"
        run.next_node = "draft"
        return f"stage {done} approved; moving to {nxt.name}"

    def _apply_draft(self, tx: LoopTx, run: RunRow, step: _StepOut, text: str) -> str:
        c = tx.c
        version = (MAX_VERSION.scalar(c, {"b_run": run.id}) or 0) + 1
        author = get_pipeline(run.kind).stage(run.stage).drafter.name
        draft_id = INSERT_DRAFT.scalar(
            c,
            {
                "run_id": run.id,
                "version": version,
                "stage": run.stage,
                "author": author,
                "author_kind": "agent",
                "content": text,
                "parent_id": run.current_draft_id,
                "content_hash": content_hash(text),
                "iteration": run.iteration + 1,
                "created_at": utcnow(),
            },
        )
        step.draft_id = draft_id
        run.iteration += 1
        run.current_draft_id = draft_id
        run.next_node = "review"
        return f"v{version} written by {author} ({len(text)} chars)"

    def _apply_review(
        self, tx: LoopTx, run: RunRow, outcome: ReviewOutcome, *, replace: bool = True
    ) -> str:
        c = tx.c
        draft_id = run.current_draft_id
        if replace:  # re-reviewing a version replaces its scores and flags, never duplicates
            DELETE_SCORES.run(c, {"b_draft": draft_id})
            DELETE_FLAGS.run(c, {"b_draft": draft_id})
        # One multi-row INSERT per table rather than an ORM object per row.
        if outcome.scores:
            INSERT_SCORE.run_many(
                c,
                [
                    {
                        "draft_id": draft_id,
                        "name": name,
                        "value": value,
                        "llm_value": llm,
                        "check_value": cap,
                        "source": source,
                    }
                    for name, value, llm, cap, source in outcome.scores
                ],
            )
        if outcome.flags:
            INSERT_FLAG.run_many(
                c,
                [
                    {
                        "draft_id": draft_id,
                        "check": f.check,
                        "category": f.category,
                        "text": f.text,
                        "start": f.start,
                        "end": f.end,
                        "blocking": f.blocking,
                    }
                    for f in outcome.flags
                ],
            )
        if outcome.notes:
            now = utcnow()
            INSERT_NOTE.run_many(
                c,
                [
                    {
                        "run_id": run.id or 0,
                        "draft_id": draft_id,
                        "author": author,
                        "target": n.target,
                        "priority": n.priority,
                        "text": n.text,
                        "created_at": now,
                    }
                    for author, n in outcome.notes
                ],
            )
        run.next_node = "decide"
        if outcome.verdicts:
            params = dict(run.params)
            params["_last_verdicts"] = outcome.verdicts
            run.params = params
        return ", ".join(f"{name} {value:.2f}" for name, value, *_ in outcome.scores)

    def _apply_decide(self, tx: LoopTx, run: RunRow) -> str:
        stage = get_pipeline(run.kind).stage(run.stage)
        thresholds = thresholds_for(stage, run.params)
        board = Board.read(tx.c, run.id or 0, run.stage)
        if run.current_draft_id in board.versions:
            verdict = gate(
                board.scores.get(run.current_draft_id, {}),
                board.blocking.get(run.current_draft_id, []),
                thresholds,
                run.params.get("_last_verdicts") if stage.require_pass_verdict else None,
            )
        else:
            verdict = self._gate(tx.session, run.current_draft_id, thresholds, stage, run.params)
        run.best_draft_id = board.best(thresholds)
        run.cost_usd = board.spend
        if run.review_mode == "human":
            self._to_review(run, "rescored")
            return "re-scored a person's edit; waiting for review"
        if verdict.passed:
            self._to_review(run, "thresholds_met")
            return "thresholds met; waiting for review"
        if run.iteration >= max_iterations_for(stage, run.params):
            self._to_review(run, "max_iterations")
            return (f"{run.iteration} iterations without meeting thresholds ({verdict.why}); "
                    "waiting for review")
        run.next_node = "draft"
        return f"revise: {verdict.why}"

    def _gate(
        self,
        s: Session,
        draft_id: int | None,
        thresholds: dict[str, float],
        stage: StageSpec,
        params: dict[str, Any],
    ) -> GateVerdict:
        scores = {
            sc.name: sc.value for sc in s.exec(select(Score).where(Score.draft_id == draft_id))
        }
        flags = s.exec(select(Flag).where(Flag.draft_id == draft_id, Flag.blocking == True)).all()  # noqa: E712
        return gate(
            scores,
            [f.category for f in flags],
            thresholds,
            params.get("_last_verdicts") if stage.require_pass_verdict else None,
        )

    # -- halting ------------------------------------------------------------------------

    def _to_review(self, run: RunRow, reason: str | None) -> None:
        run.status = RunStatus.REVIEW
        run.halt_reason = reason
        run.halt_requested = False
        run.next_node = None if reason != "halted" else run.next_node
        run.lease_owner = None
        run.lease_expires = None
        run.updated_at = utcnow()

    def _stop(self, plan: StepPlan, *, status: str, reason: str, message: str) -> None:
        """End the step without outputs: the run waits for a person; nothing earlier changes."""
        message = redact_text(message)  # servers quote requests (emails, keys) in errors
        for _ in range(COMMIT_ATTEMPTS):
            try:
                with session_scope() as s:
                    run = s.get(Run, plan.run_id)
                    step = s.get(Step, plan.step_id)
                    if run is None or step is None or run.lease_owner != self.worker_id:
                        return
                    step.status = "error" if status == RunStatus.FAILED else "stopped"
                    step.error = message
                    step.finished_at = utcnow()
                    s.add(step)
                    run.status = status
                    run.halt_reason = reason
                    run.error = message if status == RunStatus.FAILED else None
                    run.lease_owner = None
                    run.lease_expires = None
                    run.cost_usd = run_spend(s.connection(), run.id or 0)
                    run.updated_at = utcnow()
                    s.add(run)
                self.on_event(
                    StepEvent(
                        plan.run_id,
                        plan.seq,
                        plan.node,
                        "error" if status == RunStatus.FAILED else "halted",
                        plan.iteration,
                        plan.stage,
                        message,
                    )
                )
                return
            except StaleDataError:
                continue

    def _emit(self, plan: StepPlan, status: str) -> None:
        self.on_event(
            StepEvent(plan.run_id, plan.seq, plan.node, status, plan.iteration, plan.stage)
        )


class _StepOut:
    """What a node's commit sets on its step row besides status and time."""

    draft_id: int | None = None


__all__ = ["Supervisor", "StepEvent", "LeaseLost"]
