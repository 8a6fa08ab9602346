"""The trace of one run: its steps with their LLM calls nested, and three exports of it.

- JSONL: one event per line, in time order (run created, step started, LLM call, draft,
  step finished, human act, run status), like an append-only events log.
- Run summary JSON: the artifacts of the Workforce seed in one file: input, events,
  response, and a trace of steps with usage (requests, tokens, estimated USD cost).
- OTLP/JSON: OpenTelemetry spans (run -> steps -> LLM calls) with OpenInference attribute
  names, for Phoenix, Langfuse or any OTLP/HTTP collector; sent there when
  DRAFTROOM_OTLP_ENDPOINT is set (headers from DRAFTROOM_OTLP_HEADERS, "k=v,k2=v2")."""

from __future__ import annotations

import hashlib
import json
import urllib.error
import urllib.request
from datetime import UTC, datetime, timedelta
from typing import Any

from pydantic import BaseModel
from sqlmodel import col, select

from db.models import Draft, HumanAction, LLMCall, Run, Step
from db.session import session_scope
from engine.config import settings
from engine.errors import NotFound, ServiceError
from engine.views import StepView

SERVICE_NAME = "draftroom"
OTLP_ENV = "DRAFTROOM_OTLP_ENDPOINT"
OTLP_HEADERS_ENV = "DRAFTROOM_OTLP_HEADERS"
# OpenInference span kind per supervisor node.
NODE_SPAN_KIND = {"draft": "AGENT", "review": "EVALUATOR", "decide": "CHAIN", "advance": "CHAIN"}


class CallSpan(BaseModel):
    id: int
    step_id: int | None
    agent: str
    backend: str
    model: str
    stage: str
    prompt_version: int | None
    prompt_tokens: int
    cached_tokens: int
    completion_tokens: int
    cost_usd: float | None
    """None: the model has no price (unpriced), never $0."""
    latency_ms: float
    status: str
    error: str | None
    attempts: int
    started_at: datetime

    @property
    def finished_at(self) -> datetime:
        return self.started_at + timedelta(milliseconds=self.latency_ms)

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class CallDetail(CallSpan):
    request: dict[str, Any]
    response: dict[str, Any]


class StepSpan(StepView):
    """A step with the model calls made inside it."""

    calls: list[CallSpan]

    @property
    def end(self) -> datetime:
        ends = [self.started_at] + [c.finished_at for c in self.calls]
        return self.finished_at or max(ends)


class RunTrace(BaseModel):
    run_id: int
    kind: str
    title: str
    status: str
    halt_reason: str | None
    stage: str
    created_at: datetime
    updated_at: datetime
    budget_usd: float | None
    steps: list[StepSpan]
    loose_calls: list[CallSpan]
    """Calls recorded without a step (none today; kept so none is ever hidden)."""

    @property
    def calls(self) -> list[CallSpan]:
        return [c for s in self.steps for c in s.calls] + self.loose_calls

    @property
    def cost_usd(self) -> float:
        return sum(c.cost_usd or 0.0 for c in self.calls)

    @property
    def unpriced_calls(self) -> int:
        return sum(1 for c in self.calls if c.cost_usd is None and c.status == "ok")

    @property
    def started_at(self) -> datetime:
        return self.created_at

    @property
    def finished_at(self) -> datetime:
        ends = [self.created_at] + [s.end for s in self.steps] + [c.finished_at for c in self.calls]
        return max(ends)


class RunChoice(BaseModel):
    id: int
    kind: str
    title: str
    status: str
    created_at: datetime


class TraceExportError(ServiceError):
    """The collector could not be reached or refused the spans."""


_CALL_COLS = (LLMCall.id, LLMCall.step_id, LLMCall.agent, LLMCall.backend, LLMCall.model,
              LLMCall.stage, LLMCall.prompt_version, LLMCall.prompt_tokens,
              LLMCall.cached_tokens, LLMCall.completion_tokens, LLMCall.cost_usd,
              LLMCall.latency_ms, LLMCall.status, LLMCall.error, LLMCall.attempts,
              LLMCall.started_at)


def recent_runs(*, limit: int = 300, include: int | None = None) -> list[RunChoice]:
    """Newest runs first, for a picker; `include` (a run opened from a link) comes first
    when it is older than those."""
    cols = (Run.id, Run.kind, Run.title, Run.status, Run.created_at)
    with session_scope() as s:
        rows = list(s.exec(select(*cols).order_by(col(Run.id).desc()).limit(limit)).all())
        if include is not None and include not in {r[0] for r in rows}:
            rows = list(s.exec(select(*cols).where(Run.id == include)).all()) + rows
    return [RunChoice(id=r[0], kind=r[1], title=r[2], status=r[3], created_at=r[4]) for r in rows]


def load_trace(run_id: int) -> RunTrace:
    """Steps and calls without the request and response bodies (call_detail has those)."""
    with session_scope() as s:
        run = s.get(Run, run_id)
        if run is None:
            raise NotFound(f"Run {run_id} does not exist.")
        steps = s.exec(select(Step).where(Step.run_id == run_id).order_by(Step.seq)).all()
        calls = [CallSpan(**row._mapping)
                 for row in s.exec(select(*_CALL_COLS).where(LLMCall.run_id == run_id)
                                   .order_by(LLMCall.started_at, LLMCall.id))]
        by_step: dict[int | None, list[CallSpan]] = {}
        for c in calls:
            by_step.setdefault(c.step_id, []).append(c)
        spans = [StepSpan(id=st.id or 0, seq=st.seq, node=st.node, stage=st.stage,
                          iteration=st.iteration, status=st.status, started_at=st.started_at,
                          finished_at=st.finished_at, detail=st.detail, error=st.error,
                          draft_id=st.draft_id, calls=by_step.pop(st.id, []))
                 for st in steps]
        loose = [c for cs in by_step.values() for c in cs]
        return RunTrace(run_id=run_id, kind=run.kind, title=run.title, status=run.status,
                        halt_reason=run.halt_reason, stage=run.stage, created_at=run.created_at,
                        updated_at=run.updated_at, budget_usd=run.budget_usd, steps=spans,
                        loose_calls=loose)


def call_detail(call_id: int) -> CallDetail:
    with session_scope() as s:
        c = s.get(LLMCall, call_id)
        if c is None:
            raise NotFound(f"Call {call_id} does not exist.")
        return CallDetail.model_validate(c, from_attributes=True)


# -- events (JSONL) -------------------------------------------------------------------------

_ORDER = {"run.created": 0, "step.started": 1, "llm.call": 2, "draft.created": 3,
          "step.finished": 4, "human.action": 5, "run.status": 6}


def _iso(dt: datetime | None) -> str | None:
    if dt is None:
        return None
    return (dt if dt.tzinfo else dt.replace(tzinfo=UTC)).isoformat()


def _call_event(c: LLMCall, seq: int | None) -> dict[str, Any]:
    return {
        "ts": _iso(c.started_at), "type": "llm.call", "run_id": c.run_id, "call_id": c.id,
        "step": seq, "agent": c.agent, "backend": c.backend, "model": c.model,
        "stage": c.stage, "prompt_version": c.prompt_version, "status": c.status,
        "error": c.error, "attempts": c.attempts, "latency_ms": round(c.latency_ms, 3),
        "finished_at": _iso(c.started_at + timedelta(milliseconds=c.latency_ms)),
        "usage": {"prompt_tokens": c.prompt_tokens, "cached_tokens": c.cached_tokens,
                  "completion_tokens": c.completion_tokens,
                  "total_tokens": c.prompt_tokens + c.completion_tokens},
        "cost_usd": c.cost_usd, "request": c.request, "response": c.response,
    }


_Loaded = tuple[Run, list[Step], list[LLMCall], list[Draft], list[HumanAction]]


def _load_all(run_id: int) -> _Loaded:
    with session_scope() as s:
        run = s.get(Run, run_id)
        if run is None:
            raise NotFound(f"Run {run_id} does not exist.")
        steps = list(s.exec(select(Step).where(Step.run_id == run_id).order_by(Step.seq)))
        calls = list(s.exec(select(LLMCall).where(LLMCall.run_id == run_id)
                            .order_by(LLMCall.started_at, LLMCall.id)))
        drafts = list(s.exec(select(Draft).where(Draft.run_id == run_id).order_by(Draft.version)))
        acts = list(s.exec(select(HumanAction).where(HumanAction.run_id == run_id)
                           .order_by(HumanAction.at, HumanAction.id)))
        return run, steps, calls, drafts, acts


def events(run_id: int) -> list[dict[str, Any]]:
    """Everything that happened to the run, one dict per event, in time order."""
    return _events(_load_all(run_id))


def _events(loaded: _Loaded) -> list[dict[str, Any]]:
    run, steps, calls, drafts, acts = loaded
    seq_of = {st.id: st.seq for st in steps}
    out: list[dict[str, Any]] = [{
        "ts": _iso(run.created_at), "type": "run.created", "run_id": run.id, "kind": run.kind,
        "title": run.title, "input": run.input, "params": run.params,
        "created_by": run.created_by, "budget_usd": run.budget_usd,
    }]
    for st in steps:
        out.append({"ts": _iso(st.started_at), "type": "step.started", "run_id": run.id,
                    "step": st.seq, "node": st.node, "stage": st.stage,
                    "iteration": st.iteration, "worker": st.worker})
        if st.finished_at is not None:
            out.append({"ts": _iso(st.finished_at), "type": "step.finished", "run_id": run.id,
                        "step": st.seq, "node": st.node, "status": st.status,
                        "detail": st.detail, "error": st.error, "draft_id": st.draft_id})
    out += [_call_event(c, seq_of.get(c.step_id)) for c in calls]
    out += [{"ts": _iso(d.created_at), "type": "draft.created", "run_id": run.id,
             "draft_id": d.id, "version": d.version, "stage": d.stage, "author": d.author,
             "author_kind": d.author_kind, "content": d.content} for d in drafts]
    out += [{"ts": _iso(a.at), "type": "human.action", "run_id": run.id, "action": a.action,
             "actor": a.actor, "verified": a.verified, "draft_id": a.draft_id,
             "comment": a.comment} for a in acts]
    out.sort(key=lambda e: (e["ts"] or "", _ORDER[e["type"]]))
    last = max([run.updated_at] + [datetime.fromisoformat(e["ts"]) for e in out if e["ts"]])
    out.append({"ts": _iso(last), "type": "run.status", "run_id": run.id,
                "status": run.status, "halt_reason": run.halt_reason, "stage": run.stage,
                "cost_usd": run.cost_usd})
    return out


def to_jsonl(run_id: int) -> str:
    return "".join(json.dumps(e, ensure_ascii=False, default=str) + "\n" for e in events(run_id))


# -- run summary (the Workforce seed's artifacts) -------------------------------------------


def _usage(calls: list[LLMCall]) -> dict[str, Any]:
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


def _final_draft(run: Run, drafts: list[Draft]) -> Draft | None:
    """The approved version, else the current one, else the latest."""
    by_id = {d.id: d for d in drafts}
    return (by_id.get(run.approved_draft_id) or by_id.get(run.current_draft_id)
            or (drafts[-1] if drafts else None))


def run_summary(run_id: int) -> dict[str, Any]:
    loaded = _load_all(run_id)
    run, steps, calls, drafts, _acts = loaded
    evs = _events(loaded)
    by_step: dict[int | None, list[LLMCall]] = {}
    for c in calls:
        by_step.setdefault(c.step_id, []).append(c)
    final = _final_draft(run, drafts)
    started = run.created_at
    finished = datetime.fromisoformat(evs[-1]["ts"])
    return {
        "run_id": run.id, "kind": run.kind, "title": run.title, "status": run.status,
        "halt_reason": run.halt_reason, "stage": run.stage, "created_by": run.created_by,
        "started_at": _iso(started), "finished_at": _iso(finished),
        "duration_s": round((finished - started).total_seconds(), 3),
        "budget_usd": run.budget_usd,
        "input": run.input,
        "response": final.content if final else None,
        "response_version": final.version if final else None,
        "events": evs,
        "trace": [{
            "step": st.seq, "node": st.node, "stage": st.stage, "iteration": st.iteration,
            "status": st.status, "started_at": _iso(st.started_at),
            "finished_at": _iso(st.finished_at), "detail": st.detail, "error": st.error,
            "calls": [{"call_id": c.id, "agent": c.agent, "model": c.model,
                       "status": c.status, "latency_ms": round(c.latency_ms, 3),
                       "prompt_tokens": c.prompt_tokens, "cached_tokens": c.cached_tokens,
                       "completion_tokens": c.completion_tokens, "cost_usd": c.cost_usd}
                      for c in by_step.get(st.id, [])],
        } for st in steps],
        "usage": _usage(calls),
    }


# -- OpenTelemetry (OTLP/JSON, OpenInference attributes) ------------------------------------


def _hex_id(*parts: object, size: int) -> str:
    return hashlib.sha256(":".join(map(str, parts)).encode()).hexdigest()[:size]


def _nanos(dt: datetime) -> str:
    aware = dt if dt.tzinfo else dt.replace(tzinfo=UTC)
    return str(int(aware.timestamp() * 1_000_000) * 1000)


def _attr(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        v: dict[str, Any] = {"boolValue": value}
    elif isinstance(value, int):
        v = {"intValue": str(value)}  # int64 travels as a string in OTLP/JSON
    elif isinstance(value, float):
        v = {"doubleValue": value}
    else:
        v = {"stringValue": str(value)}
    return {"key": key, "value": v}


def _attrs(pairs: dict[str, Any]) -> list[dict[str, Any]]:
    return [_attr(k, v) for k, v in pairs.items() if v is not None]


def _span(trace_id: str, span_id: str, parent: str | None, name: str, start: datetime,
          end: datetime, attrs: dict[str, Any], error: str | None = None,
          kind: int = 1) -> dict[str, Any]:
    span: dict[str, Any] = {
        "traceId": trace_id, "spanId": span_id, "name": name, "kind": kind,
        "startTimeUnixNano": _nanos(start), "endTimeUnixNano": _nanos(max(end, start)),
        "attributes": _attrs(attrs),
        "status": {"code": 2, "message": error} if error else {"code": 1},
    }
    if parent:
        span["parentSpanId"] = parent
    if error:
        span["events"] = [{"name": "exception", "timeUnixNano": _nanos(end),
                           "attributes": _attrs({"exception.message": error})}]
    return span


def _text(value: dict[str, Any]) -> tuple[str, str]:
    """A response body as OpenInference output.value and its mime type."""
    content = value.get("content") if isinstance(value, dict) else None
    if isinstance(content, str):
        try:
            json.loads(content)
            return content, "application/json"
        except ValueError:
            return content, "text/plain"
    return json.dumps(value, ensure_ascii=False), "application/json"


def _llm_attrs(c: LLMCall) -> dict[str, Any]:
    messages = (c.request or {}).get("messages") or []
    out_text, out_mime = _text(c.response or {})
    attrs: dict[str, Any] = {
        "openinference.span.kind": "LLM",
        "llm.system": "openai",
        "llm.provider": "openai" if c.backend == "openai" else c.backend,
        "llm.model_name": c.model,
        "llm.token_count.prompt": c.prompt_tokens,
        "llm.token_count.completion": c.completion_tokens,
        "llm.token_count.total": c.prompt_tokens + c.completion_tokens,
        "llm.token_count.prompt_details.cache_read": c.cached_tokens,
        "llm.cost.total": c.cost_usd,
        "llm.prompt_template.version": str(c.prompt_version) if c.prompt_version else None,
        "input.value": json.dumps(c.request or {}, ensure_ascii=False),
        "input.mime_type": "application/json",
        "metadata": json.dumps({"agent": c.agent, "stage": c.stage, "kind": c.kind,
                                "attempts": c.attempts, "status": c.status,
                                "unpriced": c.cost_usd is None and c.status == "ok"}),
    }
    for i, m in enumerate(messages):
        attrs[f"llm.input_messages.{i}.message.role"] = m.get("role", "")
        attrs[f"llm.input_messages.{i}.message.content"] = m.get("content", "")
    if c.status == "ok":
        attrs["output.value"] = out_text
        attrs["output.mime_type"] = out_mime
        attrs["llm.output_messages.0.message.role"] = "assistant"
        attrs["llm.output_messages.0.message.content"] = out_text
    return attrs


def to_otlp(run_id: int) -> dict[str, Any]:
    """ExportTraceServiceRequest as OTLP/JSON: a run span, a span per step, a span per call."""
    run, steps, calls, drafts, _acts = _load_all(run_id)
    trace_id = _hex_id(SERVICE_NAME, "run", run.id, run.created_at.isoformat(), size=32)
    root = _hex_id(trace_id, "run", size=16)
    step_span = {st.id: _hex_id(trace_id, "step", st.id, size=16) for st in steps}
    spans: list[dict[str, Any]] = []
    ends = [run.updated_at, run.created_at]
    for c in calls:
        end = c.started_at + timedelta(milliseconds=c.latency_ms)
        ends.append(end)
        spans.append(_span(trace_id, _hex_id(trace_id, "call", c.id, size=16),
                           step_span.get(c.step_id, root), f"{c.agent} {c.model}",
                           c.started_at, end, _llm_attrs(c), c.error if c.status != "ok" else None,
                           kind=3))
    by_step: dict[int | None, list[LLMCall]] = {}
    for c in calls:
        by_step.setdefault(c.step_id, []).append(c)
    for st in steps:
        mine = by_step.get(st.id, [])
        end = st.finished_at or max([st.started_at] + [c.started_at + timedelta(
            milliseconds=c.latency_ms) for c in mine])
        ends.append(end)
        spans.append(_span(trace_id, step_span[st.id], root, f"{st.node} #{st.seq}",
                           st.started_at, end, {
                               "openinference.span.kind": NODE_SPAN_KIND.get(st.node, "CHAIN"),
                               "output.value": st.detail, "draftroom.step.status": st.status,
                               "draftroom.stage": st.stage, "draftroom.iteration": st.iteration,
                           }, st.error if st.status == "error" else None))
    final = _final_draft(run, drafts)
    usage = _usage(calls)
    spans.insert(0, _span(trace_id, root, None, f"{run.kind} run {run.id}", run.created_at,
                          max(ends), {
                              "openinference.span.kind": "CHAIN",
                              "session.id": f"run-{run.id}",
                              "user.id": run.created_by or None,
                              "input.value": json.dumps(run.input, ensure_ascii=False),
                              "input.mime_type": "application/json",
                              "output.value": final.content if final else None,
                              "output.mime_type": "text/markdown" if final else None,
                              "llm.token_count.prompt": usage["input_tokens"],
                              "llm.token_count.completion": usage["output_tokens"],
                              "llm.token_count.total": usage["total_tokens"],
                              "llm.cost.total": usage["total_estimated_usd_cost"],
                              "metadata": json.dumps({"run_id": run.id, "title": run.title,
                                                      "status": run.status,
                                                      "halt_reason": run.halt_reason}),
                          }, run.error if run.status == "failed" else None))
    return {"resourceSpans": [{
        "resource": {"attributes": _attrs({"service.name": SERVICE_NAME,
                                           "openinference.project.name": SERVICE_NAME})},
        "scopeSpans": [{"scope": {"name": "draftroom.traces", "version": "1"},
                        "spans": spans}],
    }]}


def otlp_endpoint() -> str | None:
    """The collector's traces URL from DRAFTROOM_OTLP_ENDPOINT, or None when not configured.
    A base URL ("http://localhost:4318") gets the standard /v1/traces path."""
    raw = settings().otlp_endpoint or ""
    if not raw:
        return None
    return raw if raw.rstrip("/").endswith("/v1/traces") else raw.rstrip("/") + "/v1/traces"


def _headers() -> dict[str, str]:
    out = {"Content-Type": "application/json"}
    for part in settings().otlp_headers.split(","):
        if "=" in part:
            k, v = part.split("=", 1)
            out[k.strip()] = v.strip()
    return out


def send_otlp(run_id: int, *, endpoint: str | None = None, timeout: float = 10.0) -> int:
    """POST the run's spans to the OTLP/HTTP collector; returns the HTTP status."""
    url = endpoint or otlp_endpoint()
    if not url:
        raise TraceExportError(f"No collector configured: set {OTLP_ENV} "
                               "(e.g. http://localhost:6006/v1/traces for Phoenix).")
    body = json.dumps(to_otlp(run_id)).encode()
    req = urllib.request.Request(url, data=body, headers=_headers(), method="POST")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:  # noqa: S310 (configured URL)
            return int(resp.status)
    except urllib.error.HTTPError as exc:
        raise TraceExportError(f"The collector at {url} refused the spans: HTTP {exc.code} "
                               f"{exc.reason}.") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise TraceExportError(f"Could not reach the collector at {url}: {reason}.") from None
