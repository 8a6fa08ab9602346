"""The writes that apply a step's outputs, inside the transaction that commits the step: a
draft's new version, a review's scores, flags and notes, the supervisor's decision and a
stage's advance. Each sets the run's next node; the caller saves the run."""

from __future__ import annotations

from typing import Any

from db.models import utcnow
from engine import run_state
from engine.loop.decide import (
    Board,
    gate,
    max_iterations_for,
    review_verdict,
    same_text,
    scores_moved,
    thresholds_for,
    unchanged,
)
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
    SEL_SAME_TEXT,
    SEL_SCORES,
    SEL_VERDICT,
    SEL_WITH_PARENT,
    SET_VERDICT,
    LoopTx,
    RunRow,
)
from engine.loop.steps import HeldTexts, ReviewOutcome, StepEvent, StepOut, StepPlan
from engine.pipelines.registry import get_pipeline
from engine.run_state import HaltReason, Node
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


def decide_step(tx: LoopTx, run: RunRow, seq: int, worker: str,
                held: HeldTexts | None = None) -> list[StepEvent]:
    """The supervisor's decision on a review, as a step of its own committed with the review's
    outputs: it calls no model and reads only what that transaction wrote, so a transaction of
    its own would add a commit and no durability. `held`: the reviewed version's text and its
    parent's, which the review step read when it opened."""
    node, iteration, stage = run.next_node, run.iteration, run.stage
    started = utcnow()
    detail = apply_decide(tx, run, held)
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
        run_state.to_review(run, HaltReason.FINAL_STAGE)
        return "no stage after this one"
    done = run.stage
    run_state.advance_stage(run, nxt.name)
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
    step.draft_id, step.version, step.parent_id = draft_id, version, run.current_draft_id
    run.iteration += 1
    run.current_draft_id = draft_id
    run_state.goto(run, Node.REVIEW)
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
    verdict = review_verdict(outcome.verdicts)
    if verdict is not None or replace:  # a new version has none to clear
        SET_VERDICT.run(c, {"b_draft": draft_id, "b_verdict": verdict})
    run_state.goto(run, Node.DECIDE)
    return ", ".join(f"{s.name} {s.value:.2f}" for s in outcome.scores)


def apply_decide(tx: LoopTx, run: RunRow, held: HeldTexts | None = None) -> str:
    """The supervisor's decision on the current version: wait for a person (thresholds met, a
    stall, the iteration limit, a person's edit re-scored) or revise."""
    stage = get_pipeline(run.kind).stage(run.stage)
    thresholds = thresholds_for(stage, run.params)
    board = Board.read(tx.c, run.id or 0, run.stage)
    scores, blocking, said = _judged(tx, board, run.current_draft_id)
    verdict = gate(scores, blocking, thresholds,
                   [said] if stage.require_pass_verdict and said else None)
    run.best_draft_id = board.best(thresholds)
    run.cost_usd = board.spend
    if run.review_mode == "human":
        run_state.to_review(run, HaltReason.RESCORED)
        return "re-scored a person's edit; waiting for review"
    repeat = _repeat(tx, board, run, scores, held)
    if repeat == HaltReason.STALLED:
        run_state.to_review(run, HaltReason.STALLED)
        return "stalled: the revision changed neither the text nor any score; waiting for review"
    if repeat == _CYCLE:
        run_state.to_review(run, HaltReason.STALLED)
        return ("stalled: the revision went back to an earlier version's text and scores; "
                "waiting for review")
    if verdict.passed and repeat is None:  # a repeated text meeting them now is no progress
        run_state.to_review(run, HaltReason.THRESHOLDS_MET)
        return "thresholds met; waiting for review"
    why = "the revision did not change the text" if repeat else verdict.why
    if run.iteration >= max_iterations_for(stage, run.params):
        run_state.to_review(run, HaltReason.MAX_ITERATIONS)
        return f"{run.iteration} iterations without meeting thresholds ({why}); waiting for review"
    run_state.goto(run, Node.DRAFT)
    return f"revise: {why}"


def _judged(
    tx: LoopTx, board: Board, did: int | None
) -> tuple[dict[str, float], list[str], str | None]:
    """A version's scores, blocking flags' categories and verdict."""
    if did in board.versions:
        return board.scores.get(did, {}), board.blocking.get(did, []), board.verdicts.get(did)
    # a current draft of another stage (not on this stage's board)
    return (dict(SEL_SCORES.rows(tx.c, {"b_draft": did})),
            [cat for (cat,) in SEL_BLOCKING.rows(tx.c, {"b_draft": did})],
            SEL_VERDICT.scalar(tx.c, {"b_draft": did}))


def _repeat(tx: LoopTx, board: Board, run: RunRow, scores: dict[str, float],
            held: HeldTexts | None = None) -> str | None:
    """None when the current version changed its previous one's text; else "stalled" when no
    score moved either, "unchanged" when only scores did. Either way the drafter is told, in a
    critical note on the version, so a revision after a person's comment cannot pass it by.
    With the texts `held` (versions never change), only a repeat reads the parent's row."""
    if held is not None and held.draft_id == run.current_draft_id and (
            held.previous is None or not unchanged(held.previous, held.text)):
        return None if held.previous is None else _cycle(tx, board, run, held.text, scores)
    rows = SEL_WITH_PARENT.rows(tx.c, {"b_draft": run.current_draft_id})
    if not rows:
        return None
    text, parent_id, parent_version, parent_text = rows[0]
    if not unchanged(parent_text, text):
        return _cycle(tx, board, run, text, scores)
    before, flags_before, _ = _judged(tx, board, parent_id)
    flags_now = board.blocking.get(run.current_draft_id or 0, [])
    if sorted(flags_now) != sorted(flags_before) and not same_text(text, parent_text):
        return None  # a small edit that cleared (or raised) a flag: a change of substance
    INSERT_NOTE.run_many(tx.c, [{
        "run_id": run.id or 0, "draft_id": run.current_draft_id, "author": "supervisor",
        "target": "drafter", "priority": "critical", "created_at": utcnow(),
        "text": f"This revision repeats v{parent_version}: the notes and comments on it were "
                "not applied. Apply them, or say which one cannot be applied and why.",
    }])
    return "unchanged" if scores_moved(scores, before) else HaltReason.STALLED


_CYCLE = "cycle"


def _cycle(tx: LoopTx, board: Board, run: RunRow, text: str,
           scores: dict[str, float]) -> str | None:
    """A revision that goes back to an older version's text (A, B, A) with that version's
    scores is a stall too: the loop would swing between the two until its iteration limit.
    Read only once a stage has three versions, the fewest a swing needs."""
    if len(board.versions) < 3:
        return None
    for did, version in SEL_SAME_TEXT.rows(tx.c, {"b_run": run.id or 0, "b_text": text}):
        if did == run.current_draft_id or did not in board.versions:
            continue
        if scores_moved(scores, _judged(tx, board, did)[0]):
            continue
        INSERT_NOTE.run_many(tx.c, [{
            "run_id": run.id or 0, "draft_id": run.current_draft_id, "author": "supervisor",
            "target": "drafter", "priority": "critical", "created_at": utcnow(),
            "text": f"This revision goes back to v{version}'s text, with its scores: the loop is "
                    "swinging between versions. Apply the notes and comments in one revision, "
                    "or say which one cannot be applied and why.",
        }])
        return _CYCLE
    return None


__all__ = ["apply", "apply_advance", "apply_decide", "apply_draft", "apply_review",
           "decide_step"]
