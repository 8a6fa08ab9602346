"""Every HTTP request of a model call, priced and written under the call (issue 16).

A call to a small model on a server without structured outputs can take several requests (a
refused format, a malformed answer and its repair, a retry after a 5xx); each one that
produced tokens is paid for. The backend logs them as `Attempt`s; here they become LLMAttempt
rows with their cost, the call's row gets their sums, and the budget check counts them before
every further request of the same call.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any

from pydantic import BaseModel
from sqlalchemy import insert, select
from sqlalchemy.engine import Connection

from db.models import LLMAttempt, LLMCall, Run
from db.prepared import Prepared
from db.session import get_engine
from engine.llm.base import Attempt, LLMError
from engine.pricing import PRICE_BOOK, call_cost
from engine.redact import redact_text

ATTEMPT_T = LLMAttempt.__table__  # type: ignore[attr-defined]
RUN_T = Run.__table__  # type: ignore[attr-defined]
INSERT_ATTEMPT = Prepared(insert(ATTEMPT_T), tuple(c.key for c in ATTEMPT_T.c if c.key != "id"))


def new_call_key() -> str:
    return uuid.uuid4().hex


def attempt_rows(
    attempts: list[Attempt], *, run_id: int | None, call_key: str, model: str
) -> list[dict[str, Any]]:
    """One row per request, each priced as in force when it started."""
    rows = []
    for seq, a in enumerate(attempts):
        price = PRICE_BOOK.lookup(model, a.started_at)
        cost = call_cost(price, prompt=a.usage.prompt_tokens, cached=a.usage.cached_tokens,
                         completion=a.usage.completion_tokens)
        rows.append({
            "run_id": run_id, "call_key": call_key, "seq": seq, "kind": a.kind,
            "outcome": a.outcome, "mode": a.mode, "http_status": a.http_status,
            "prompt_tokens": a.usage.prompt_tokens, "cached_tokens": a.usage.cached_tokens,
            "completion_tokens": a.usage.completion_tokens,
            "reasoning_tokens": a.usage.reasoning_tokens, "cost_usd": cost,
            # Servers and validation messages quote the request (emails, keys): redacted as
            # the call's own error is.
            "latency_ms": a.latency_ms, "error": redact_text(a.error) if a.error else None,
            "started_at": a.started_at,
        })
    return rows


def totals(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The call's tokens and cost: the sums over its requests (cost None when unpriced)."""
    costs = [r["cost_usd"] for r in rows]
    return {
        "prompt_tokens": sum(r["prompt_tokens"] for r in rows),
        "cached_tokens": sum(r["cached_tokens"] for r in rows),
        "completion_tokens": sum(r["completion_tokens"] for r in rows),
        "reasoning_tokens": sum(r["reasoning_tokens"] for r in rows),
        "cost_usd": None if any(c is None for c in costs) else sum(costs),
    }


def attempts_cost(attempts: list[Attempt], model: str) -> float:
    price = PRICE_BOOK.lookup(model)
    return sum(
        call_cost(price, prompt=a.usage.prompt_tokens, cached=a.usage.cached_tokens,
                  completion=a.usage.completion_tokens) or 0.0
        for a in attempts
    )


def save_attempts(c: Connection, records: list[dict[str, Any]]) -> None:
    """The attempt rows the call records carry (under "attempt_rows"), on `c`."""
    rows = [a for r in records for a in r.get("attempt_rows") or ()]
    if rows:
        INSERT_ATTEMPT.run_many(c, rows)


def budget_guard(
    *, budget_usd: float, model: str, spent: Callable[[], float], next_estimate: float
) -> Callable[[list[Attempt]], None]:
    """Before a further request of a call (a fallback, repair or retry): the run's spend, plus
    what this call's requests cost so far, plus the next one's estimate, must fit."""

    def check(made: list[Attempt]) -> None:
        so_far = spent() + attempts_cost(made, model)
        if so_far + next_estimate > budget_usd:
            raise LLMError(
                "budget",
                f"budget reached: spent ${so_far:.4f} of ${budget_usd:.4f} (this call's "
                f"{len(made)} request(s) included); the next {model} request would cost about "
                f"${next_estimate:.4f}",
            )

    return check


def halt_check(run_id: int, every_s: float = 0.5) -> Callable[[], bool]:
    """True once a person asked to halt the run (read at most every `every_s`)."""
    state = {"at": float("-inf"), "halted": False}

    def halted() -> bool:
        if not state["halted"] and time.monotonic() - state["at"] >= every_s:
            with get_engine().connect() as c:
                row = c.execute(
                    select(RUN_T.c.halt_requested).where(RUN_T.c.id == run_id)
                ).first()
            state["at"] = time.monotonic()
            state["halted"] = row is not None and bool(row[0])
        return bool(state["halted"])

    return halted


class AttemptView(BaseModel):
    seq: int
    kind: str
    outcome: str
    mode: str
    http_status: int | None
    prompt_tokens: int
    cached_tokens: int
    completion_tokens: int
    reasoning_tokens: int
    cost_usd: float | None
    latency_ms: float
    error: str | None
    started_at: datetime


def call_attempts(call_id: int) -> list[AttemptView]:
    """The HTTP requests of one call, in order (none for the offline backend's calls)."""
    call_t = LLMCall.__table__  # type: ignore[attr-defined]
    with get_engine().connect() as c:
        rows = c.execute(
            select(ATTEMPT_T)
            .join(call_t, (call_t.c.call_key == ATTEMPT_T.c.call_key)
                  & (call_t.c.run_id == ATTEMPT_T.c.run_id))
            .where(call_t.c.id == call_id)
            .order_by(ATTEMPT_T.c.seq)
        ).mappings().all()
    return [AttemptView.model_validate(dict(r)) for r in rows]
