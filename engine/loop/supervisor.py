"""The supervisor: drives a run this worker holds, draft -> review -> decide -> halt for a
person | revise, one committed step at a time.

Each node is one Step. A step's row is committed when it starts; its outputs (draft, scores,
notes) and the run's next node are committed together when it ends, in the same transaction
that writes the next step's row and reads what that node needs. A process killed in between
leaves a "running" step and no outputs, so a worker that takes the run over redoes that node
and nothing is lost or written twice. The node bodies are in nodes.py, the writes that apply
their outputs in apply.py."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm.exc import StaleDataError

from db.models import Run, Step, utcnow
from db.session import get_engine, session_scope
from engine import run_state
from engine.llm.base import LLMBackend, LLMError
from engine.llm.offline.backend import OfflineBackend
from engine.loop import nodes
from engine.loop.agents import BudgetReached, save_calls
from engine.loop.apply import apply, decide_step
from engine.loop.clock import SYSTEM_CLOCK, Clock
from engine.loop.critics import CriticPool
from engine.loop.leases import claim_row, lease_until
from engine.loop.sql import (
    ABANDON_STEPS,
    FINISH_STEP,
    INSERT_STEP,
    MAX_SEQ,
    SEL_STATUS,
    LoopTx,
    RunRow,
    draft_content,
    loop_transaction,
    prompts_for,
    run_spend,
)
from engine.loop.steps import HeldDraft, HeldTexts, LeaseLost, StepEvent, StepOut, StepPlan
from engine.pipelines.base import AgentSpec
from engine.pipelines.registry import get_pipeline
from engine.redact import redact_text
from engine.run_state import HaltReason, RunStatus

COMMIT_ATTEMPTS = 5
log = logging.getLogger("draftroom.supervisor")


class Supervisor:
    """Drives runs this worker holds, one committed step at a time."""

    def __init__(
        self,
        backend: LLMBackend,
        worker_id: str,
        on_event: Callable[[StepEvent], None] | None = None,
        clock: Clock = SYSTEM_CLOCK,
        stopping: Callable[[], bool] = lambda: False,
    ) -> None:
        self.backend = backend
        # True once this worker is stopping: a drive ends after its current step, which
        # commits with no next step opened (the run goes back to the queue with the leases).
        self.stopping = stopping
        self.clock = clock  # what leases are measured by (tests move it on)
        self.worker_id = worker_id
        self.on_event = on_event or (lambda e: None)
        self.critics = CriticPool(parallel=not isinstance(backend, OfflineBackend))
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

    def advance(self, run_id: int) -> bool:
        """Run one node (a review and the supervisor's decision on it count as one). True
        while the run has more to do for this worker."""
        return self._advance(run_id, None, open_next=False)[0]

    # -- driving ------------------------------------------------------------------------

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
            result = self._run_node(plan)
        except BudgetReached as exc:
            self._save_calls(plan)
            self._stop(plan, str(exc), fail_kind=None)
            return False, None, None
        except LLMError as exc:
            self._save_calls(plan)
            if exc.kind == "cancelled":  # a person halted the run while the model was out
                self._stop(plan, str(exc), halt=HaltReason.HALTED)
                return False, None, None
            self._stop(plan, str(exc), fail_kind=exc.kind)
            return False, None, None
        except LeaseLost:
            self._save_calls(plan)
            return False, None, None
        except Exception as exc:  # a bug or bad output must not leave the run spinning
            log.exception("run %s: %s step failed", plan.run_id, plan.node)
            self._save_calls(plan)
            self._stop(plan, f"{plan.node} step failed: {type(exc).__name__}: {exc}"[:2000],
                       fail_kind="internal")
            return False, None, None
        try:
            # Asked as the step commits (not as it starts): a stop while the model answered counts.
            more, nxt, status = self._commit(plan, result,
                                             open_next=open_next and not self.stopping())
        except LeaseLost:
            return False, None, None
        finally:
            self._save_calls(plan)  # what the commit did not take (a lost lease, an error)
        if nxt is None and self.stopping():
            return False, None, status  # committed; the next step is another worker's
        return more, nxt, status  # (a step opened just before the stop runs to its end too)

    def _run_node(self, plan: StepPlan) -> Any:
        if plan.node == "draft":
            return nodes.draft(plan, self.backend)
        if plan.node == "review":
            return nodes.review(plan, self.backend, self.critics)
        return None  # decide, advance: no model; their commit does the work

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
            row = claim_row(tx.c, run_id, self.worker_id, self.clock)
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
            run_state.to_review(run, HaltReason.HALTED if run.halt_requested else run.halt_reason)
            run.save(c)
            return None
        last = MAX_SEQ.scalar(c, {"b_run": run.id}) or 0
        if last:  # steps left "running" by a worker that died are abandoned, not resumed
            ABANDON_STEPS.run(c, {"b_run": run.id, "b_now": utcnow()})
        plan = self._open_step(tx, run, last + 1, renew_lease=renew_lease)
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
        held: HeldDraft | None = None,
    ) -> StepPlan:
        """Write the step's row, renew the lease and read what the node needs (the caller
        saves the run). `texts`: drafts' contents the caller holds already, by id; `held`: the
        version the committing step wrote."""
        c = tx.c
        texts = texts or {}
        step_id = INSERT_STEP.scalar(c, {
            "run_id": run.id, "seq": seq, "node": run.next_node, "stage": run.stage,
            "iteration": run.iteration, "worker": self.worker_id, "started_at": utcnow(),
        })
        if renew_lease:
            run.lease_expires = lease_until(self.clock)
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
        stage = nodes.stage_of(plan)
        agents: tuple[AgentSpec, ...] = ()
        if plan.node == "draft":
            plan.task = nodes.draft_task(tx, plan, texts)
            agents = (stage.drafter,)
        elif plan.node == "review":
            plan.content = draft_content(c, plan.current_draft_id, texts)
            pipeline = get_pipeline(plan.kind)
            # An ORM session only for a pipeline that reads its review context (campaigns).
            plan.context = pipeline.context_for_review(
                tx.session, plan.input, plan.stage) if pipeline.review_context else {}
            plan.follow = nodes.follow_input(c, plan, held)
            agents = stage.critics
        plan.prompts = prompts_for(tx, agents, plan.params)
        hooks = get_pipeline(plan.kind).hooks
        if hooks is not None:  # team (issue 18): what the agent is given from memory
            hooks.on_open(tx, plan)
        return plan

    # -- commit -------------------------------------------------------------------------

    def _commit(
        self, plan: StepPlan, result: Any, *, open_next: bool = False
    ) -> tuple[bool, StepPlan | None, str]:
        for attempt in range(COMMIT_ATTEMPTS):
            try:
                with self._tx() as tx:
                    more, nxt, run, events = self._commit_in(tx, plan, result, attempt,
                                                             open_next=open_next)
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
        raise AssertionError("unreachable: the last attempt raises")

    def _commit_in(
        self, tx: LoopTx, plan: StepPlan, result: Any, attempt: int, *, open_next: bool
    ) -> tuple[bool, StepPlan | None, RunRow, list[StepEvent]]:
        """The step's outputs, its decision when a review ends, and the next step's opening,
        in the transaction `tx`."""
        c = tx.c
        save_calls(plan.calls, c)  # first: the decision below counts their cost
        # The row as this step's opening saved it, unless a first try found it changed:
        # anyone who changed the run since (a claim, a person's halt) bumped its version, and
        # saving it below fails the check.
        run = plan.run if attempt == 0 and plan.run else RunRow.load(c, plan.run_id)
        plan.new_draft = plan.new_draft and attempt == 0
        if run is None or run.lease_owner != self.worker_id or run.status != RunStatus.RUNNING:
            raise LeaseLost()
        if run.next_node != plan.node:
            raise LeaseLost()
        step = StepOut()
        detail = apply(tx, run, step, plan, result)
        if FINISH_STEP.run(c, {"b_step": plan.step_id, "b_now": utcnow(), "b_detail": detail,
                               "b_draft": step.draft_id}) != 1:
            raise LeaseLost()  # abandoned: another drive of the run (any worker) took it over
        events = [StepEvent(plan.run_id, plan.seq, plan.node, "done", run.iteration,
                            run.stage, detail)]
        seq = plan.seq
        if run.next_node == "decide" and not run.halt_requested:
            seq += 1
            events += decide_step(tx, run, seq, self.worker_id, _reviewed(plan))
        if run.halt_requested and run.status == RunStatus.RUNNING:
            run_state.to_review(run, HaltReason.HALTED)
        run.updated_at = utcnow()
        hooks = get_pipeline(run.kind).hooks
        if hooks is not None:  # team (issue 18): the step's messages and memory, committed with it
            hooks.on_commit(tx, plan, run, step, result, events[-1].detail)
        more = run.status == RunStatus.RUNNING and run.next_node is not None
        # The next step starts in the same transaction: this step's outputs are durable
        # before the next node runs, with one commit between them.
        texts: dict[int | None, str] = (
            {step.draft_id: result} if plan.node == "draft"
            else {plan.current_draft_id: plan.content} if plan.content is not None
            else {}
        )
        nxt = (self._open_step(tx, run, seq + 1, texts, held=_written(plan, step, run, result))
               if more and open_next else None)
        if nxt is not None and plan.node == "draft":
            nxt.new_draft = True
        run.save(c)
        return more, nxt, run, events

    @staticmethod
    def _retrying(exc: DBAPIError, attempt: int) -> None:
        """Go on to the next attempt when the database dropped the held connection (the
        transaction rolled back; the connection reconnects when next used); else raise."""
        if not exc.connection_invalidated or attempt == COMMIT_ATTEMPTS - 1:
            raise exc
        log.warning("database connection dropped; trying the transaction again")

    # -- stopping -----------------------------------------------------------------------

    def _stop(self, plan: StepPlan, message: str, *, fail_kind: str | None = None,
              halt: HaltReason = HaltReason.BUDGET_REACHED) -> None:
        """End the step without outputs: the run waits for a person (failed, with `fail_kind`;
        else halted for `halt`); nothing earlier changes."""
        failed = fail_kind is not None
        message = redact_text(message)  # servers quote requests (emails, keys) in errors
        for _ in range(COMMIT_ATTEMPTS):
            try:
                with session_scope() as s:
                    run = s.get(Run, plan.run_id)
                    step = s.get(Step, plan.step_id)
                    if (run is None or step is None or run.lease_owner != self.worker_id
                            or run.status != RunStatus.RUNNING):
                        return
                    step.status = "error" if failed else "stopped"
                    step.error = message
                    step.finished_at = utcnow()
                    s.add(step)
                    if fail_kind is not None:
                        run_state.fail(run, fail_kind, message)
                    elif halt == HaltReason.BUDGET_REACHED:
                        run_state.stop_on_budget(run)
                    else:
                        run_state.to_review(run, halt)
                    run.cost_usd = run_spend(s.connection(), run.id or 0)
                    s.add(run)
                self.on_event(StepEvent(
                    plan.run_id, plan.seq, plan.node,
                    "error" if failed else "halted",
                    plan.iteration, plan.stage, message,
                ))
                return
            except StaleDataError:
                continue

    def _emit(self, plan: StepPlan, status: str) -> None:
        self.on_event(
            StepEvent(plan.run_id, plan.seq, plan.node, status, plan.iteration, plan.stage)
        )


def _written(plan: StepPlan, step: StepOut, run: RunRow, text: Any) -> HeldDraft | None:
    """The version a draft step's commit wrote, with its parent's text (the drafter's task
    held it), for the review it opens; None when the step wrote none or revised another
    version than the one its task was given (the run changed in between)."""
    if plan.node != "draft" or step.draft_id is None or step.version is None:
        return None
    if step.parent_id != plan.current_draft_id or plan.task is None:
        return None
    return HeldDraft(step.draft_id, step.version, run.stage, step.parent_id, plan.task.previous)


def _reviewed(plan: StepPlan) -> HeldTexts | None:
    """The reviewed version's text and its parent's, as the review step read them."""
    if plan.node != "review" or plan.content is None or plan.follow is None:
        return None
    return HeldTexts(plan.current_draft_id, plan.content, plan.follow.previous)


__all__ = ["Supervisor"]
