"""Running one agent: resolve its prompt, check the budget, call the backend, record the call."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from pydantic import BaseModel
from sqlalchemy.engine import Connection

from db.models import utcnow
from db.session import get_engine, session_scope
from engine.attempts import (
    attempt_rows,
    budget_guard,
    halt_check,
    new_call_key,
    save_attempts,
    totals,
)
from engine.config import setting
from engine.context_trim import trim_step
from engine.live_draft import LiveDraftWriter
from engine.llm.base import AgentCall, LLMBackend, LLMError
from engine.llm.offline.backend import estimate_tokens
from engine.loop.sql import INSERT_CALL, run_spend
from engine.memory.access import given
from engine.pipelines.base import AgentSpec, DraftTask
from engine.pricing import PRICE_BOOK, call_cost
from engine.prompts import ResolvedPrompt, resolve_prompt
from engine.redact import redact, redact_text

# Expected completion size when estimating whether a call fits in the budget.
EXPECTED_COMPLETION_TOKENS = 1200


class BudgetReached(Exception):
    """The next call would take the run over its budget."""


@dataclass(frozen=True)
class CallContext:
    run_id: int
    step_id: int | None
    kind: str
    stage: str
    params: dict[str, Any]
    budget_usd: float | None
    pending: list[dict[str, Any]] | None = field(default=None, compare=False)
    """Where a successful call's row waits to be written with the step's commit, which
    follows it with no model time in between (the supervisor writes what it leaves behind);
    None: the row is written at once, in a transaction of its own."""


def _spent(ctx: CallContext) -> float:
    with get_engine().connect() as c:
        spent = run_spend(c, ctx.run_id)
    return spent + sum(r["cost_usd"] or 0.0 for r in ctx.pending or ())  # not written yet


def _check_budget(ctx: CallContext, backend: LLMBackend, messages: list[dict[str, str]]) -> float:
    """Before every call of a run with a budget: the cached price and one prebuilt query on
    a plain connection (an ORM session here cost more than the rest of the check). Returns
    the estimate of one request's cost."""
    if ctx.budget_usd is None:
        return 0.0
    price = PRICE_BOOK.lookup(backend.model)
    spent = _spent(ctx)
    prompt = sum(estimate_tokens(m["content"]) for m in messages)
    estimate = (
        call_cost(price, prompt=prompt, cached=0, completion=EXPECTED_COMPLETION_TOKENS) or 0.0
    )
    if spent + estimate > ctx.budget_usd:
        raise BudgetReached(
            f"budget reached: spent ${spent:.4f} of ${ctx.budget_usd:.4f}; "
            f"the next {backend.model} call would cost about ${estimate:.4f}"
        )
    return estimate


def run_agent(
    spec: AgentSpec,
    task: BaseModel,
    backend: LLMBackend,
    ctx: CallContext,
    *,
    prompt: ResolvedPrompt | None = None,
) -> BaseModel:
    """Call the agent's model once (the backend retries), record the call, return the output.
    `prompt` is the agent's prompt when the caller has resolved it already (the supervisor
    does, in the transaction that opens the step). Raises LLMError (recorded as a failed
    call) or BudgetReached (no call made). A drafter's input longer than the model's context
    is trimmed a step at a time (engine.context_trim) and sent again, each call recorded."""
    if prompt is None:
        with session_scope() as s:
            prompt = resolve_prompt(
                s, agent=spec.name, default=spec.system_prompt, params=ctx.params
            )
    trimmed: list[str] = []
    while True:
        try:
            return _run_once(spec, task, backend, ctx, prompt, trimmed)
        except LLMError as exc:
            smaller = trim_step(task) if exc.kind == "context_length" else None
            if smaller is None:
                if trimmed:
                    exc.message += f" (even with its input trimmed: {'; '.join(trimmed)})"
                raise
            task, what = smaller
            trimmed.append(what)


def _run_once(
    spec: AgentSpec,
    task: BaseModel,
    backend: LLMBackend,
    ctx: CallContext,
    prompt: ResolvedPrompt,
    trimmed: list[str],
) -> BaseModel:
    # The stable part first (system prompt, with the rubric; the schema goes in the request's
    # response_format or at the end of this system message), byte-identical at every call of
    # the agent, so providers' prompt caches hit; what changes comes last.
    messages = [
        {"role": "system", "content": prompt.text},
        {"role": "user", "content": spec.render_user(task)},
    ]
    estimate = _check_budget(ctx, backend, messages)
    call = AgentCall(
        agent=spec.name,
        messages=messages,
        output_type=spec.output_type,
        task=task,
        offline=spec.offline,
        # A budget counts the requests this call already made (issue 16); a halt stops
        # waiting for the model.
        before_attempt=None if ctx.budget_usd is None else budget_guard(
            budget_usd=ctx.budget_usd, model=backend.model, next_estimate=estimate,
            spent=lambda: _spent(ctx)),
        cancelled=halt_check(ctx.run_id) if ctx.run_id else None,
        # The drafter's answer streams to the Run page (a real model takes 10-60 s).
        on_text=LiveDraftWriter(run_id=ctx.run_id, step_id=ctx.step_id, agent=spec.name)
        if isinstance(task, DraftTask) and ctx.run_id and getattr(backend, "streams", True)
        else None,  # (concurrency helper: the offline backend streams when asked to)
    )
    started_at = utcnow()
    t0 = time.perf_counter()
    record: dict[str, Any] = {
        "run_id": ctx.run_id,
        "step_id": ctx.step_id,
        "agent": spec.name,
        "backend": backend.name,
        "model": backend.model,
        "kind": ctx.kind,
        "stage": ctx.stage,
        "prompt_version": prompt.version,
        "request": {**_redact_request(messages), **given(task),  # given: team (issue 18)
                    **({"trimmed": list(trimmed)} if trimmed else {})},
        "started_at": started_at,
    }
    try:
        resp = backend.generate(call)
    except LLMError as exc:
        record.update(
            latency_ms=(time.perf_counter() - t0) * 1000,
            status="error",
            error=redact(f"{exc.kind}: {exc.message}"),
            attempts=exc.attempts,
            cost_usd=None,
            response={},
        )
        _attempts(record, exc.attempt_log)  # a failed call's requests are paid for too
        save_calls([record])  # at once: the step stops here
        if exc.kind == "budget":
            raise BudgetReached(exc.message) from None
        raise
    record.update(
        latency_ms=(time.perf_counter() - t0) * 1000,
        model=resp.model or backend.model,
        prompt_tokens=resp.usage.prompt_tokens,
        cached_tokens=resp.usage.cached_tokens,
        completion_tokens=resp.usage.completion_tokens,
        attempts=resp.attempts,
        response=redact({"content": resp.raw_text or resp.output.model_dump_json()}),
    )
    _price(record)
    _attempts(record, resp.attempt_log)
    if ctx.pending is not None:
        ctx.pending.append(record)
    else:
        save_calls([record])
    return resp.output


def _attempts(record: dict[str, Any], log: list[Any]) -> None:
    """A call that went over HTTP: its requests' rows ride with its record, and its tokens and
    cost are their sums (a refused format, a malformed answer and its repair all count)."""
    if not log:
        return  # the offline backend makes no requests
    key = new_call_key()
    rows = attempt_rows(log, run_id=record["run_id"], call_key=key, model=record["model"])
    record.update(totals(rows), call_key=key, attempt_rows=rows)


@lru_cache(maxsize=64)
def _redact_message(text: str, _key: str | None, _pii: str | None) -> str:
    # Messages repeat: the system prompts on every call, a review's draft for every critic.
    # Redact each distinct text once (per API key and PII setting, which redact_text reads).
    return redact_text(text)


def _redact_request(messages: list[dict[str, str]]) -> dict[str, Any]:
    key, pii = setting("openai_api_key"), str(setting("redact_pii"))
    return {
        "messages": [{**m, "content": _redact_message(m["content"], key, pii)} for m in messages]
    }


def _price(record: dict[str, Any]) -> None:
    """Price the call as in force when it started."""
    price = PRICE_BOOK.lookup(record["model"], record["started_at"])
    record["cost_usd"] = call_cost(
        price,
        prompt=record["prompt_tokens"],
        cached=record["cached_tokens"],
        completion=record["completion_tokens"],
    )


def save_calls(records: list[dict[str, Any]], c: Connection | None = None) -> None:
    """Calls' rows on `c`, or in a transaction of their own (a Core one: an ORM session
    cost more than the insert)."""
    if not records:
        return
    if c is not None:
        INSERT_CALL.run_many(c, records)
        save_attempts(c, records)
        return
    with get_engine().begin() as conn:
        INSERT_CALL.run_many(conn, records)
        save_attempts(conn, records)

