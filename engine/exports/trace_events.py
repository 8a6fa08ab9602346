"""A run's trace as files: every event in time order (JSONL, like an append-only events log),
and the run summary (the Workforce seed's artifacts in one file: input, events, response, and
a trace of steps with usage: requests, tokens, estimated USD cost)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlmodel import select

from db.models import Draft, HumanAction, LLMCall, Run, Step
from db.session import session_scope
from engine.views import run_row

# -- events (JSONL) -------------------------------------------------------------------------

_ORDER = {"run.created": 0, "step.started": 1, "llm.call": 2, "draft.created": 3,
          "step.finished": 4, "human.action": 5, "run.status": 6}


def iso(dt: datetime | None) -> str | None:
    if dt is None:
        return None
    return (dt if dt.tzinfo else dt.replace(tzinfo=UTC)).isoformat()


def _call_event(c: LLMCall, seq: int | None) -> dict[str, Any]:
    return {
        "ts": iso(c.started_at), "type": "llm.call", "run_id": c.run_id, "call_id": c.id,
        "step": seq, "agent": c.agent, "backend": c.backend, "model": c.model,
        "stage": c.stage, "prompt_version": c.prompt_version, "status": c.status,
        "error": c.error, "attempts": c.attempts, "latency_ms": round(c.latency_ms, 3),
        "finished_at": iso(c.started_at + timedelta(milliseconds=c.latency_ms)),
        "usage": {"prompt_tokens": c.prompt_tokens, "cached_tokens": c.cached_tokens,
                  "completion_tokens": c.completion_tokens,
                  "total_tokens": c.prompt_tokens + c.completion_tokens},
        "cost_usd": c.cost_usd, "request": c.request, "response": c.response,
    }


Loaded = tuple[Run, list[Step], list[LLMCall], list[Draft], list[HumanAction]]


def load_all(run_id: int) -> Loaded:
    with session_scope() as s:
        run = run_row(s, run_id)
        steps = list(s.exec(select(Step).where(Step.run_id == run_id).order_by(Step.seq)))
        calls = list(s.exec(select(LLMCall).where(LLMCall.run_id == run_id)
                            .order_by(LLMCall.started_at, LLMCall.id)))
        drafts = list(s.exec(select(Draft).where(Draft.run_id == run_id).order_by(Draft.version)))
        acts = list(s.exec(select(HumanAction).where(HumanAction.run_id == run_id)
                           .order_by(HumanAction.at, HumanAction.id)))
        return run, steps, calls, drafts, acts


def events(run_id: int) -> list[dict[str, Any]]:
    """Everything that happened to the run, one dict per event, in time order."""
    return _events(load_all(run_id))


def _events(loaded: Loaded) -> list[dict[str, Any]]:
    run, steps, calls, drafts, acts = loaded
    seq_of = {st.id: st.seq for st in steps}
    out: list[dict[str, Any]] = [{
        "ts": iso(run.created_at), "type": "run.created", "run_id": run.id, "kind": run.kind,
        "title": run.title, "input": run.input, "params": run.params,
        "created_by": run.created_by, "budget_usd": run.budget_usd,
    }]
    for st in steps:
        out.append({"ts": iso(st.started_at), "type": "step.started", "run_id": run.id,
                    "step": st.seq, "node": st.node, "stage": st.stage,
                    "iteration": st.iteration, "worker": st.worker})
        if st.finished_at is not None:
            out.append({"ts": iso(st.finished_at), "type": "step.finished", "run_id": run.id,
                        "step": st.seq, "node": st.node, "status": st.status,
                        "detail": st.detail, "error": st.error, "draft_id": st.draft_id})
    out += [_call_event(c, seq_of.get(c.step_id)) for c in calls]
    out += [{"ts": iso(d.created_at), "type": "draft.created", "run_id": run.id,
             "draft_id": d.id, "version": d.version, "stage": d.stage, "author": d.author,
             "author_kind": d.author_kind, "content": d.content} for d in drafts]
    out += [{"ts": iso(a.at), "type": "human.action", "run_id": run.id, "action": a.action,
             "actor": a.actor, "verified": a.verified, "draft_id": a.draft_id,
             "comment": a.comment} for a in acts]
    out.sort(key=lambda e: (e["ts"] or "", _ORDER[e["type"]]))
    last = max([run.updated_at] + [datetime.fromisoformat(e["ts"]) for e in out if e["ts"]])
    out.append({"ts": iso(last), "type": "run.status", "run_id": run.id,
                "status": run.status, "halt_reason": run.halt_reason, "stage": run.stage,
                "cost_usd": run.cost_usd})
    return out


def to_jsonl(run_id: int) -> str:
    return "".join(json.dumps(e, ensure_ascii=False, default=str) + "\n" for e in events(run_id))


# -- run summary (the Workforce seed's artifacts) -------------------------------------------


def usage(calls: list[LLMCall]) -> dict[str, Any]:
    models: dict[str, int] = {}
    for c in calls:
        models[c.model] = models.get(c.model, 0) + 1
    priced = [c.cost_usd for c in calls if c.cost_usd is not None]
    unpriced = sum(1 for c in calls if c.cost_usd is None and c.status == "ok")
    prompt = sum(c.prompt_tokens for c in calls)
    completion = sum(c.completion_tokens for c in calls)
    return {
        "requests": len(calls),
        "errors": sum(1 for c in calls if c.status != "ok"),
        "input_tokens": prompt,
        "cached_input_tokens": sum(c.cached_tokens for c in calls),
        "output_tokens": completion,
        "total_tokens": prompt + completion,
        "model": max(models, key=lambda m: models[m]) if models else None,
        "models": models,
        # None when nothing could be priced; otherwise the priced part, with the unpriced
        # calls counted beside it: an unknown price is never added as $0.
        "total_estimated_usd_cost": round(sum(priced), 6) if priced or not unpriced else None,
        "unpriced_requests": unpriced,
    }


def final_draft(run: Run, drafts: list[Draft]) -> Draft | None:
    """The approved version, else the current one, else the latest."""
    by_id = {d.id: d for d in drafts}
    return (by_id.get(run.approved_draft_id) or by_id.get(run.current_draft_id)
            or (drafts[-1] if drafts else None))


def run_summary(run_id: int) -> dict[str, Any]:
    loaded = load_all(run_id)
    run, steps, calls, drafts, _acts = loaded
    evs = _events(loaded)
    by_step: dict[int | None, list[LLMCall]] = {}
    for c in calls:
        by_step.setdefault(c.step_id, []).append(c)
    final = final_draft(run, drafts)
    started = run.created_at
    finished = datetime.fromisoformat(evs[-1]["ts"])
    return {
        "run_id": run.id, "kind": run.kind, "title": run.title, "status": run.status,
        "halt_reason": run.halt_reason, "stage": run.stage, "created_by": run.created_by,
        "started_at": iso(started), "finished_at": iso(finished),
        "duration_s": round((finished - started).total_seconds(), 3),
        "budget_usd": run.budget_usd,
        "input": run.input,
        "response": final.content if final else None,
        "response_version": final.version if final else None,
        "events": evs,
        "trace": [{
            "step": st.seq, "node": st.node, "stage": st.stage, "iteration": st.iteration,
            "status": st.status, "started_at": iso(st.started_at),
            "finished_at": iso(st.finished_at), "detail": st.detail, "error": st.error,
            "calls": [{"call_id": c.id, "agent": c.agent, "model": c.model,
                       "status": c.status, "latency_ms": round(c.latency_ms, 3),
                       "prompt_tokens": c.prompt_tokens, "cached_tokens": c.cached_tokens,
                       "completion_tokens": c.completion_tokens, "cost_usd": c.cost_usd}
                      for c in by_step.get(st.id, [])],
        } for st in steps],
        "usage": usage(calls),
    }
