"""The node bodies: what the drafter is given (read in the transaction that opens the step),
the draft node and the review node. A node writes nothing but its model calls' records: its
outputs go to the step's commit (engine/loop/apply.py)."""

from __future__ import annotations

from functools import partial
from typing import Any

from sqlalchemy.engine import Connection

from engine.checks.follow import FollowInput, follow_checks, merge
from engine.follow_context import FOLLOW_AUTHOR, DraftRow, load_follow
from engine.live_draft import LiveScores
from engine.llm.base import LLMBackend, LLMError
from engine.loop.agents import CallContext, run_agent
from engine.loop.critics import CriticPool
from engine.loop.decide import as_review, combine_review
from engine.loop.sql import SEL_DRAFTER_NOTES, SEL_FEEDBACK, LoopTx, draft_content
from engine.loop.steps import AuthoredNote, HeldDraft, ReviewOutcome, ScoreOut, StepPlan
from engine.model_safety import model_judgement, start_moderation
from engine.pipelines.base import PRIORITY_ORDER, DraftTask, NoteOut, ReviewTask, StageSpec
from engine.pipelines.registry import get_pipeline
from engine.redact import redact_secrets_text, redact_text


def stage_of(plan: StepPlan) -> StageSpec:
    return get_pipeline(plan.kind).stage(plan.stage)


def run_checks(stage: StageSpec, text: str, run_input: dict[str, Any],  # type: ignore[no-untyped-def]
               context: dict[str, Any]):
    return stage.checks(text, run_input, context)


def call_context(plan: StepPlan, *, defer: bool) -> CallContext:
    """`defer`: the calls' rows wait for the step's commit, which follows the last call with
    no model time in between; otherwise each is written when its call ends."""
    return CallContext(
        run_id=plan.run_id,
        step_id=plan.step_id,
        kind=plan.kind,
        stage=plan.stage,
        params=plan.params,
        budget_usd=plan.budget_usd,
        pending=plan.calls if defer else None,
    )


def draft_task(tx: LoopTx, plan: StepPlan, texts: dict[int | None, str]) -> DraftTask:
    """What the drafter is given: the previous version, the notes on it for the drafter (most
    urgent first), people's comments on this stage, and the pipeline's stage context."""
    c = tx.c
    previous = draft_content(c, plan.current_draft_id, texts)
    notes: list[NoteOut] = []
    if previous is not None:
        rows = SEL_DRAFTER_NOTES.rows(c, {"b_run": plan.run_id, "b_draft": plan.current_draft_id})
        notes = [NoteOut(target=t, priority=p, text=x) for t, p, x in rows]  # type: ignore[arg-type]
        notes.sort(key=lambda n: PRIORITY_ORDER[n.priority])
    feedback = [
        comment
        for (comment,) in SEL_FEEDBACK.rows(c, {"b_run": plan.run_id, "b_stage": plan.stage})
        if comment
    ] if people_acted(plan) else []
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


def people_acted(plan: StepPlan) -> bool:
    """Whether any person ever acted on the run (commented, approved, edited): every act moves
    its audit chain's head (engine/audit_chain.py), so a run without one has none to read."""
    return plan.run is None or plan.run.audit_head is not None


def follow_input(c: Connection, plan: StepPlan, held: HeldDraft | None = None) -> FollowInput:
    """What the checks that follow the text need for the draft under review; `held`: that
    draft, when the transaction opening the review wrote it."""
    known: DraftRow | None = None
    if held is not None and held.draft_id == plan.current_draft_id:
        known = (held.version, held.stage, "agent", held.parent_id, held.previous)
    return load_follow(c, run_id=plan.run_id, draft_id=plan.current_draft_id, kind=plan.kind,
                       critics={a.name for a in stage_of(plan).critics},
                       brand_id=plan.input.get("brand_id"), known=known,
                       people_acted=people_acted(plan))


def draft(plan: StepPlan, backend: LLMBackend) -> str:
    """The drafter's text for this step (a model never gets to store a key)."""
    stage = stage_of(plan)
    assert plan.task is not None
    out = run_agent(
        stage.drafter,
        plan.task,
        backend,
        call_context(plan, defer=True),
        prompt=plan.prompts.get(stage.drafter.name),
    )
    # A model never gets to store a key.
    return redact_secrets_text(stage.to_text(out, plan.task.context))


def review(plan: StepPlan, backend: LLMBackend, critics: CriticPool) -> ReviewOutcome:
    """The checks and every critic on the step's draft: scores bound by the checks, the
    checks' flags, the critics' notes and a critical note per blocking flag."""
    stage = stage_of(plan)
    if plan.content is None:
        raise LLMError("malformed", "there is no draft to review")
    checks = run_checks(stage, plan.content, plan.input, plan.context)
    follow = follow_checks(plan.kind, plan.stage, plan.content, plan.input, plan.follow,
                           checks.flags).redacted(redact_text)
    checks = merge(checks, follow)
    # People's comments on this stage go to the critics too, so an offline critic does not
    # ask to undo what a person asked for (a creator moved to another channel, a crisis line
    # of another region).
    context = plan.context
    if plan.follow:
        context = context | {"asked": [c.text for c in plan.follow.comments
                                       if c.source == "human"]}
    task = ReviewTask(
        kind=plan.kind, stage=plan.stage, input=plan.input, content=plan.content,
        flags=checks.flags, context=context,
    )
    # Critics at the same time over a network: a paid call that ends while another is still
    # out is written at once, so a kill in the meantime cannot lose it.
    ctx = call_context(plan, defer=not (critics.parallel and len(stage.critics) > 1))
    moderation = start_moderation(backend, plan.content)  # next to the critics
    calls = [
        partial(run_agent, c, task, backend, ctx, prompt=plan.prompts.get(c.name))
        for c in stage.critics
    ]
    if backend.name != "offline":  # over a network: each critic's scores shown as it ends
        live = LiveScores(run_id=plan.run_id, step_id=plan.step_id,
                          critics=[c.name for c in stage.critics])
        calls = [live.wrap(c.name, call) for c, call in zip(stage.critics, calls, strict=True)]
    futures = critics.run_all(calls)
    reviews = [
        (c.name, as_review(f.result())) for c, f in zip(stage.critics, futures, strict=True)
    ]
    combined = combine_review(stage, reviews, checks.caps)
    notes = [
        AuthoredNote(name, n.model_copy(update={"text": redact_secrets_text(n.text)}))
        for name, r in reviews
        for n in r.notes
    ]
    notes += [
        AuthoredNote("checks", NoteOut(
            target="drafter",
            priority="critical",
            text=f'{f.category.replace("_", " ")}: rewrite or remove "{f.text}"',
        ))
        for f in checks.flags
        if f.blocking
    ]
    notes += [AuthoredNote(FOLLOW_AUTHOR, NoteOut(target="drafter", priority=p, text=t))  # type: ignore[arg-type]
              for p, t in follow.notes]
    # A real model's own safety judgement joins the deterministic flags (issue 14).
    model_flags, model_notes = model_judgement(backend, plan.content, reviews, moderation, ctx)
    notes += [AuthoredNote(author, note) for author, note in model_notes]
    return ReviewOutcome(
        scores=[ScoreOut(n, v, llm, cap, src) for n, (v, llm, cap, src) in combined.items()],
        flags=checks.flags + model_flags,
        notes=notes,
        verdicts=[r.verdict for _, r in reviews if r.verdict],
    )


__all__ = ["call_context", "draft", "draft_task", "follow_input", "people_acted", "review",
           "run_checks", "stage_of"]
