"""The writes that apply a step's outputs, inside the transaction that commits the step: a
draft's new version, a review's scores, flags and notes, the supervisor's decision and a
stage's advance. Each sets the run's next node; the caller saves the run."""

from __future__ import annotations

from typing import Any

from db.models import utcnow
from engine.loop.decide import Board, gate, max_iterations_for, thresholds_for
from engine.loop.sql import (
    DELETE_FLAGS,
    DELETE_SCORES,
    INSERT_DONE_STEP,
    INSERT_DRAFT,
    INSERT_FLAG,
    INSERT_NOTE,
    INSERT_SCORE,
    MAX_VERSION,
    SEL_BLOCKING,
    SEL_SCORES,
    LoopTx,
    RunRow,
)
from engine.loop.steps import ReviewOutcome, StepEvent, StepOut, StepPlan
from engine.pipelines.registry import get_pipeline
from engine.text import content_hash


def apply(tx: LoopTx, run: RunRow, step: StepOut, plan: StepPlan, result: Any) -> str:
    """Apply what the step's node produced; returns the step's detail line."""
    if plan.node == "draft":
        return apply_draft(tx, run, step, result)
    if plan.node == "review":
        return apply_review(tx, run, result, replace=not plan.new_draft)
    if plan.node == "advance":
        return apply_advance(run)
    return apply_decide(tx, run)


def decide_step(tx: LoopTx, run: RunRow, seq: int, worker: str) -> list[StepEvent]:
    """The supervisor's decision on a review, as a step of its own committed with the review's
    outputs: it calls no model and reads only what that transaction wrote, so a transaction of
    its own would add a commit and no durability."""
    node, iteration, stage = run.next_node, run.iteration, run.stage
    started = utcnow()
    detail = apply_decide(tx, run)
    INSERT_DONE_STEP.run(tx.c, {
        "run_id": run.id, "seq": seq, "node": node, "stage": stage,
        "iteration": iteration, "worker": worker, "status": "done",
        "started_at": started, "finished_at": utcnow(), "detail": detail,
    })
    return [StepEvent(run.id or 0, seq, node or "", "started", iteration, stage),
            StepEvent(run.id or 0, seq, node or "", "done", iteration, stage, detail)]


def apply_advance(run: RunRow) -> str:
    """A person approved the stage's output (its completion signal): only here does a run
    move to its next stage, with a fresh iteration budget and no current draft."""
    nxt = get_pipeline(run.kind).next_stage(run.stage)
    if nxt is None:
        to_review(run, "final_stage")
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


def apply_draft(tx: LoopTx, run: RunRow, step: StepOut, text: str) -> str:
    c = tx.c
    version = (MAX_VERSION.scalar(c, {"b_run": run.id}) or 0) + 1
    author = get_pipeline(run.kind).stage(run.stage).drafter.name
    draft_id = INSERT_DRAFT.scalar(c, {
        "run_id": run.id, "version": version, "stage": run.stage, "author": author,
        "author_kind": "agent", "content": text, "parent_id": run.current_draft_id,
        "content_hash": content_hash(text), "iteration": run.iteration + 1,
        "created_at": utcnow(),
    })
    step.draft_id = draft_id
    run.iteration += 1
    run.current_draft_id = draft_id
    run.next_node = "review"
    return f"v{version} written by {author} ({len(text)} chars)"


def apply_review(tx: LoopTx, run: RunRow, outcome: ReviewOutcome, *, replace: bool = True) -> str:
    c = tx.c
    draft_id = run.current_draft_id
    if replace:  # re-reviewing a version replaces its scores and flags, never duplicates
        DELETE_SCORES.run(c, {"b_draft": draft_id})
        DELETE_FLAGS.run(c, {"b_draft": draft_id})
    # One multi-row INSERT per table rather than an ORM object per row.
    INSERT_SCORE.run_many(c, [
        {"draft_id": draft_id, "name": s.name, "value": s.value, "llm_value": s.llm,
         "check_value": s.cap, "source": s.source}
        for s in outcome.scores
    ])
    INSERT_FLAG.run_many(c, [
        {"draft_id": draft_id, "check": f.check, "category": f.category, "text": f.text,
         "start": f.start, "end": f.end, "blocking": f.blocking}
        for f in outcome.flags
    ])
    now = utcnow()
    INSERT_NOTE.run_many(c, [
        {"run_id": run.id or 0, "draft_id": draft_id, "author": n.author,
         "target": n.note.target, "priority": n.note.priority, "text": n.note.text,
         "created_at": now}
        for n in outcome.notes
    ])
    run.next_node = "decide"
    if outcome.verdicts:
        params = dict(run.params)
        params["_last_verdicts"] = outcome.verdicts
        run.params = params
    return ", ".join(f"{s.name} {s.value:.2f}" for s in outcome.scores)


def apply_decide(tx: LoopTx, run: RunRow) -> str:
    stage = get_pipeline(run.kind).stage(run.stage)
    thresholds = thresholds_for(stage, run.params)
    board = Board.read(tx.c, run.id or 0, run.stage)
    verdicts = run.params.get("_last_verdicts") if stage.require_pass_verdict else None
    if run.current_draft_id in board.versions:
        scores = board.scores.get(run.current_draft_id, {})
        blocking = board.blocking.get(run.current_draft_id, [])
    else:  # a current draft of another stage (not on this stage's board)
        scores = dict(SEL_SCORES.rows(tx.c, {"b_draft": run.current_draft_id}))
        blocking = [cat for (cat,) in SEL_BLOCKING.rows(tx.c, {"b_draft": run.current_draft_id})]
    verdict = gate(scores, blocking, thresholds, verdicts)
    run.best_draft_id = board.best(thresholds)
    run.cost_usd = board.spend
    if run.review_mode == "human":
        to_review(run, "rescored")
        return "re-scored a person's edit; waiting for review"
    if verdict.passed:
        to_review(run, "thresholds_met")
        return "thresholds met; waiting for review"
    if run.iteration >= max_iterations_for(stage, run.params):
        to_review(run, "max_iterations")
        return (f"{run.iteration} iterations without meeting thresholds ({verdict.why}); "
                "waiting for review")
    run.next_node = "draft"
    return f"revise: {verdict.why}"


def to_review(run: RunRow, reason: str | None) -> None:
    run.status = "awaiting_review"
    run.halt_reason = reason
    run.halt_requested = False
    run.next_node = None if reason != "halted" else run.next_node
    run.lease_owner = None
    run.lease_expires = None
    run.updated_at = utcnow()


__all__ = ["apply", "apply_advance", "apply_decide", "apply_draft", "apply_review",
           "decide_step", "to_review"]
