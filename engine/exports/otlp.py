"""A run's trace as OpenTelemetry spans (OTLP/JSON: run -> steps -> LLM calls) with
OpenInference attribute names, for Phoenix, Langfuse or any OTLP/HTTP collector; sent there when
DRAFTROOM_OTLP_ENDPOINT is set (headers from DRAFTROOM_OTLP_HEADERS, "k=v,k2=v2")."""

from __future__ import annotations

import hashlib
import json
import urllib.error
import urllib.request
from datetime import UTC, datetime, timedelta
from typing import Any

from db.models import LLMCall
from engine.config import settings
from engine.errors import ServiceError
from engine.exports.trace_events import final_draft, load_all, usage

SERVICE_NAME = "draftroom"
OTLP_ENV = "DRAFTROOM_OTLP_ENDPOINT"
OTLP_HEADERS_ENV = "DRAFTROOM_OTLP_HEADERS"
# OpenInference span kind per supervisor node.
NODE_SPAN_KIND = {"draft": "AGENT", "review": "EVALUATOR", "decide": "CHAIN", "advance": "CHAIN"}


class TraceExportError(ServiceError):
    """The collector could not be reached or refused the spans."""


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
    run, steps, calls, drafts, _acts = load_all(run_id)
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
    final = final_draft(run, drafts)
    totals = usage(calls)
    spans.insert(0, _span(trace_id, root, None, f"{run.kind} run {run.id}", run.created_at,
                          max(ends), {
                              "openinference.span.kind": "CHAIN",
                              "session.id": f"run-{run.id}",
                              "user.id": run.created_by or None,
                              "input.value": json.dumps(run.input, ensure_ascii=False),
                              "input.mime_type": "application/json",
                              "output.value": final.content if final else None,
                              "output.mime_type": "text/markdown" if final else None,
                              "llm.token_count.prompt": totals["input_tokens"],
                              "llm.token_count.completion": totals["output_tokens"],
                              "llm.token_count.total": totals["total_tokens"],
                              "llm.cost.total": totals["total_estimated_usd_cost"],
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
