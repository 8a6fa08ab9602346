"""The trace of a run: steps with their calls nested, and the three exports (JSONL events,
run summary, OTLP/JSON spans with OpenInference attributes) parsed back; spans POSTed to a
local collector; a long seeded run; the timeline figure."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

import pytest

from demo.seed import seed_demo
from engine import service, traces
from engine.exports import otlp, trace_events
from engine.interfaces.cli import main as cli
from engine.llm.base import LLMError
from engine.loop.leases import claim_run
from engine.loop.supervisor import Supervisor
from engine.traces import CallSpan
from tests.factories import GOOD_CLINICAL, GOOD_SAFETY, INTENT, protocol_draft, review
from tests.utils.scripted import ScriptedModel
from ui.ops_figures import ERROR_RED
from ui.trace_figures import MIN_BAR_S, ActiveClock, _lanes, trace_timeline_figure

CALL_COST = (800 * 0.40 + 200 * 0.10 + 500 * 1.60) / 1e6


@pytest.fixture
def run_id(db_url: str) -> int:
    """Draft; a review whose safety call times out (the run fails); a retry; approval."""
    model = ScriptedModel({
        "drafter": [protocol_draft()],
        "safety_guardian": [LLMError("timeout", "Request timed out after 60s", attempts=3),
                            review(GOOD_SAFETY)],
        "clinical_critic": [review(GOOD_CLINICAL), review(GOOD_CLINICAL)],
    })
    rid = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
    for _ in range(2):
        assert claim_run(rid, "w1")
        Supervisor(model, "w1").run_until_idle(rid)
        if traces.load_trace(rid).status == "failed":
            service.retry(run_id=rid, actor="dr. lee")
    service.approve(run_id=rid, actor="dr. lee")
    model.assert_consumed()
    return rid


def test_the_trace_nests_calls_under_their_steps(run_id: int) -> None:
    t = traces.load_trace(run_id)
    assert t.status == "approved"
    assert [(s.node, s.status, sorted(c.agent for c in s.calls)) for s in t.steps] == [
        ("draft", "done", ["drafter"]),
        ("review", "error", ["clinical_critic", "safety_guardian"]),
        ("review", "done", ["clinical_critic", "safety_guardian"]),
        ("decide", "done", []),
    ]
    failed = next(c for c in t.calls if c.status == "error")
    assert failed.agent == "safety_guardian" and failed.cost_usd is None
    assert "timeout" in (failed.error or "") and failed.attempts == 3
    assert len(t.calls) == 5 and t.cost_usd == pytest.approx(4 * CALL_COST)
    assert t.unpriced_calls == 0
    detail = traces.call_detail(t.steps[0].calls[0].id)
    assert detail.request["messages"][0]["role"] == "system"
    assert "title" in json.loads(detail.response["content"])
    assert detail.prompt_tokens == 1000 and detail.cached_tokens == 200


def test_jsonl_has_one_event_per_line_in_time_order(run_id: int) -> None:
    lines = trace_events.to_jsonl(run_id).splitlines()
    events = [json.loads(line) for line in lines]
    assert events[0]["type"] == "run.created" and events[0]["input"]["intent"] == INTENT["intent"]
    assert events[-1]["type"] == "run.status" and events[-1]["status"] == "approved"
    stamps = [datetime.fromisoformat(e["ts"]) for e in events]
    assert stamps == sorted(stamps)
    calls = [e for e in events if e["type"] == "llm.call"]
    assert len(calls) == 5
    ok = next(e for e in calls if e["agent"] == "drafter")
    assert ok["usage"] == {"prompt_tokens": 1000, "cached_tokens": 200,
                           "completion_tokens": 500, "total_tokens": 1500}
    assert ok["cost_usd"] == pytest.approx(CALL_COST) and ok["step"] == 1
    assert ok["request"]["messages"][1]["role"] == "user"
    assert [e["action"] for e in events if e["type"] == "human.action"] == ["retry", "approve"]
    assert sum(e["type"] == "step.started" for e in events) == 4
    assert sum(e["type"] == "draft.created" for e in events) == 1


def test_run_summary_carries_input_events_response_and_usage(run_id: int) -> None:
    summary = json.loads(json.dumps(trace_events.run_summary(run_id)))
    assert summary["input"] == {**INTENT, **summary["input"]}
    assert summary["response"].startswith("#") and summary["response_version"] == 1
    assert summary["events"][0]["type"] == "run.created"
    assert [s["node"] for s in summary["trace"]] == ["draft", "review", "review", "decide"]
    assert len(summary["trace"][1]["calls"]) == 2
    usage = summary["usage"]
    assert usage["requests"] == 5 and usage["errors"] == 1
    assert usage["input_tokens"] == 4000 and usage["cached_input_tokens"] == 800
    assert usage["output_tokens"] == 2000 and usage["total_tokens"] == 6000
    assert usage["model"] == "gpt-4.1-mini"
    assert usage["total_estimated_usd_cost"] == pytest.approx(4 * CALL_COST, abs=1e-6)
    assert summary["duration_s"] >= 0


def _attrs(span: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for a in span["attributes"]:
        (kind, value), = a["value"].items()
        out[a["key"]] = int(value) if kind == "intValue" else value
    return out


def test_otlp_spans_use_openinference_names_and_nest(run_id: int) -> None:
    payload = json.loads(json.dumps(otlp.to_otlp(run_id)))
    rs = payload["resourceSpans"][0]
    assert {"key": "service.name", "value": {"stringValue": "draftroom"}} in (
        rs["resource"]["attributes"])
    spans = rs["scopeSpans"][0]["spans"]
    assert len(spans) == 1 + 4 + 5
    trace_id = spans[0]["traceId"]
    assert len(trace_id) == 32 and all(s["traceId"] == trace_id for s in spans)
    ids = [s["spanId"] for s in spans]
    assert len(set(ids)) == len(ids) and all(len(i) == 16 for i in ids)
    root = spans[0]
    assert "parentSpanId" not in root and _attrs(root)["openinference.span.kind"] == "CHAIN"
    steps = {s["spanId"]: s for s in spans if s.get("parentSpanId") == root["spanId"]}
    assert len(steps) == 4
    llm = [s for s in spans if _attrs(s)["openinference.span.kind"] == "LLM"]
    assert len(llm) == 5 and all(s["parentSpanId"] in steps for s in llm)
    for s in spans:
        assert int(s["startTimeUnixNano"]) <= int(s["endTimeUnixNano"])
    ok = next(s for s in llm if s["status"]["code"] == 1 and "drafter" in s["name"])
    a = _attrs(ok)
    assert a["llm.model_name"] == "gpt-4.1-mini"
    assert (a["llm.token_count.prompt"], a["llm.token_count.completion"],
            a["llm.token_count.total"]) == (1000, 500, 1500)
    assert a["llm.token_count.prompt_details.cache_read"] == 200
    assert a["llm.cost.total"] == pytest.approx(CALL_COST)
    assert a["llm.input_messages.0.message.role"] == "system"
    assert a["llm.input_messages.1.message.role"] == "user"
    assert json.loads(a["input.value"])["messages"][0]["role"] == "system"
    assert "title" in json.loads(a["output.value"])
    assert a["llm.output_messages.0.message.role"] == "assistant"
    failed = next(s for s in llm if s["status"]["code"] == 2)
    assert "timeout" in failed["status"]["message"]
    assert failed["events"][0]["name"] == "exception"
    assert "llm.cost.total" not in _attrs(failed)  # unknown, not $0
    assert "output.value" in _attrs(root)


class _Collector(BaseHTTPRequestHandler):
    received: list[tuple[str, Any, bytes]] = []

    def do_POST(self) -> None:  # noqa: N802
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.received.append((self.path, self.headers, body))  # names case-insensitive
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args: object) -> None:
        pass


def test_spans_are_posted_to_the_configured_collector(run_id: int,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    server = HTTPServer(("127.0.0.1", 0), _Collector)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        monkeypatch.setenv(otlp.OTLP_ENV, f"http://127.0.0.1:{server.server_port}")
        monkeypatch.setenv(otlp.OTLP_HEADERS_ENV, "Authorization=Bearer abc, x-team=ops")
        assert otlp.otlp_endpoint().endswith("/v1/traces")  # type: ignore[union-attr]
        assert otlp.send_otlp(run_id) == 200
        path, headers, body = _Collector.received[-1]
        assert path == "/v1/traces"
        assert headers["Content-Type"] == "application/json"
        assert headers["Authorization"] == "Bearer abc" and headers["x-team"] == "ops"
        assert json.loads(body) == otlp.to_otlp(run_id)
    finally:
        server.shutdown()
        server.server_close()


def test_an_unreachable_collector_is_a_clear_error(run_id: int,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(otlp.OTLP_ENV, raising=False)
    with pytest.raises(otlp.TraceExportError, match="No collector"):
        otlp.send_otlp(run_id)
    with pytest.raises(otlp.TraceExportError, match="Could not reach"):
        otlp.send_otlp(run_id, endpoint="http://127.0.0.1:9/v1/traces", timeout=2)


def test_cli_exports_each_format(run_id: int, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["export-trace", str(run_id), "--format", "jsonl"]) == 0
    assert [json.loads(x)["type"] for x in capsys.readouterr().out.splitlines()][0] == "run.created"
    assert cli(["export-trace", str(run_id), "--format", "summary"]) == 0
    assert json.loads(capsys.readouterr().out)["usage"]["requests"] == 5
    assert cli(["export-trace", str(run_id), "--format", "otlp"]) == 0
    assert json.loads(capsys.readouterr().out)["resourceSpans"]
    assert cli(["export-trace", "999999"]) == 2


def test_a_500_call_run_loads_whole_and_draws_a_window(db_url: str) -> None:
    # A fixed end: the seeded calls' prices and prompt versions follow the calendar, so the
    # run's path (and its call count) would otherwise change with the day the test runs.
    report = seed_demo(calls=2000, runs=60, big_run_calls=500, seed=3, demo_budgets=False,
                       end=datetime(2026, 11, 24, 12, tzinfo=UTC))
    t = traces.load_trace(report.big_run_id)  # type: ignore[arg-type]
    # The demo run goes as the loop would, so it ends within a cycle of the 500 asked for.
    assert len(t.calls) == report.big_run_calls and 495 <= len(t.calls) <= 505
    assert not t.loose_calls
    assert all(c.step_id == s.id for s in t.steps for c in s.calls)
    window = t.steps[:40]
    fig = trace_timeline_figure(t, steps=window)
    drawn = [i for tr in fig.data for i in tr.customdata if i is not None]
    assert sorted(drawn) == sorted(c.id for s in window for c in s.calls)
    rows = list(fig.layout.yaxis.ticktext)
    assert [r.split()[0] for r in rows] == [f"#{s.seq}" for s in window]  # a row per step
    # Each call is drawn inside its step's row, and calls at the same time do not overlap.
    row_of = {c.id: i for i, s in enumerate(window) for c in s.calls}
    placed = {i: (y, w, base, x) for tr in fig.data if tr.meta["series"] not in
              ("step", "step failed")
              for i, y, w, base, x in zip(tr.customdata, tr.y, tr.width, tr.base, tr.x,
                                          strict=True)}
    for call_id, (y, w, _base, _x) in placed.items():
        assert row_of[call_id] - 0.45 <= y - w / 2 and y + w / 2 <= row_of[call_id] + 0.45
    for s in window:
        spans = [placed[c.id] for c in s.calls]
        for i, (y1, w1, b1, x1) in enumerate(spans):
            for y2, w2, b2, x2 in spans[i + 1:]:
                same_time = b1 < b2 + x2 and b2 < b1 + x1
                assert not same_time or abs(y1 - y2) >= (w1 + w2) / 2
    errors = [tr for tr in fig.data if tr.meta["series"] == "error"]
    failed = [c.id for s in window for c in s.calls if c.status != "ok"]
    assert (errors[0].marker.color == ERROR_RED and sorted(errors[0].customdata) == sorted(failed)
            ) if failed else not errors


def test_long_waits_are_collapsed_on_the_timeline() -> None:
    t0 = datetime(2026, 3, 1, 9, tzinfo=UTC)
    spans = [(t0, t0 + timedelta(seconds=5)),
             (t0 + timedelta(seconds=6), t0 + timedelta(seconds=9)),
             (t0 + timedelta(hours=3), t0 + timedelta(hours=3, seconds=4))]
    clock = ActiveClock(spans, max_gap_s=30, shown_gap_s=2)
    assert clock.x(t0) == 0 and clock.x(t0 + timedelta(seconds=9)) == 9
    assert clock.x(t0 + timedelta(hours=3)) == pytest.approx(11)  # 9 s busy + 2 s shown gap
    assert clock.x(t0 + timedelta(hours=3, seconds=4)) == pytest.approx(15)  # true length kept
    assert len(clock.gaps) == 1 and clock.gaps[0].real_seconds == pytest.approx(3 * 3600 - 9)
    assert clock.gaps[0].at == pytest.approx(10)


def test_calls_at_the_same_time_get_lanes_of_their_own() -> None:
    t0 = datetime(2026, 3, 1, 9, tzinfo=UTC)

    def call(i: int, start_s: float, ms: float) -> CallSpan:
        return CallSpan(id=i, step_id=1, agent="critic", backend="openai", model="m", stage="s",
                        prompt_version=None, prompt_tokens=1, cached_tokens=0,
                        completion_tokens=1, cost_usd=0.0, latency_ms=ms, status="ok",
                        error=None, attempts=1, started_at=t0 + timedelta(seconds=start_s))

    # Two critics at once, a third after both, a fourth overlapping only the third.
    calls = [call(1, 0, 300), call(2, 0.01, 310), call(3, 0.5, 200), call(4, 0.6, 50)]
    spans = [(clock_s := c.started_at.timestamp() - t0.timestamp(),
               clock_s + c.latency_ms / 1000) for c in calls]
    assert _lanes(spans) == [0, 1, 0, 1]
    assert _lanes([]) == []
    # Drawn spans, not real times: an instant call is drawn MIN_BAR_S wide, so the call that
    # starts as it ends still needs a lane of its own.
    assert _lanes([(0.0, 0.0 + MIN_BAR_S), (0.0 + MIN_BAR_S / 2, 1.0)]) == [0, 1]
