"""Traces: what exactly happened in one run. A timeline of its steps with their LLM calls
nested under them; click a call (or pick it) to read its request, response, tokens, cost,
latency, prompt version and error. Exports: JSONL events, a run summary, OTLP spans."""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from db.connect import database_url
from engine import attempts, identity, traces
from engine.errors import NotFound, ServiceError
from engine.exports import otlp, trace_events
from ui import reviewer
from ui.chart_slot import chart_slot
from ui.format import STATUS
from ui.markdown import escape_inline
from ui.ops_figures import seconds, usd
from ui.team_view import render_team_calls  # team (issue 18)
from ui.trace_figures import scroll_script, trace_timeline_figure

WINDOW = 25  # steps drawn at once; a long run gets a slider
CALL_KEY = "trace_call"
SCROLL_KEY = "_trace_scroll_to"
CALL_ANCHOR = "call-details"
TTL = 10  # seconds: a click, a slider move or a call pick reruns the page without a query


@st.cache_data(ttl=TTL, show_spinner=False, max_entries=32)
def _trace(url: str, run_id: int) -> traces.RunTrace:
    # Keyed by the database URL too: one process may serve, or test, several databases.
    return traces.load_trace(run_id)


@st.cache_data(ttl=TTL, show_spinner=False, max_entries=32)
def _recent(url: str, include: int | None) -> list[traces.RunChoice]:
    return traces.recent_runs(limit=100, include=include)


def _run_label(c: traces.RunChoice | None, run_id: int) -> str:
    if c is None:
        return f"#{run_id}"
    return f"#{c.id} · {c.kind} · {c.title[:60]} · {STATUS.get(c.status, (c.status,))[0]}"


def _pick_run() -> int | None:
    raw = st.query_params.get("run")
    wanted = int(raw) if raw and raw.isdigit() else None
    choices = {c.id: c for c in _recent(database_url(), wanted)}
    ids = list(choices)
    if wanted is not None and wanted not in choices:
        ids.insert(0, wanted)
    if not ids:
        return None
    pick = st.selectbox("Run", ids, index=ids.index(wanted) if wanted in ids else 0,
                        format_func=lambda i: _run_label(choices.get(i), i), key="trace_run")
    if str(pick) != raw:
        st.query_params["run"] = str(pick)
    return pick


def _call_label(c: traces.CallSpan, seq: dict[int | None, int]) -> str:
    mark = "✖ " if c.status != "ok" else ""
    return (f"{mark}step {seq.get(c.step_id, '?')} · {c.agent} · {c.model} · "
            f"{seconds(c.latency_ms)} · call {c.id}")


def _show_attempts(call_id: int) -> None:
    """The call's HTTP requests, each with what it cost: the call's figures are their sums."""
    rows = attempts.call_attempts(call_id)
    if not rows:
        return
    st.markdown(f"**Requests** ({len(rows)}): the call's tokens and cost are their sums")
    st.dataframe(pd.DataFrame([{
        "#": a.seq + 1, "kind": a.kind, "format": a.mode, "outcome": a.outcome,
        "HTTP": a.http_status, "latency_ms": round(a.latency_ms), "input": a.prompt_tokens,
        "cached": a.cached_tokens, "output": a.completion_tokens,
        "reasoning": a.reasoning_tokens, "cost_usd": a.cost_usd, "error": a.error or "",
    } for a in rows]), hide_index=True, column_config={
        "cost_usd": st.column_config.NumberColumn("cost", format="$%.5f"),
        "HTTP": st.column_config.NumberColumn(format="%d")})


def _show_call(call_id: int) -> None:
    d = traces.call_detail(call_id)
    # Which call the details below are of, for the browser test and the pages bench
    # (testkit/trace_click.py): the picker's text alone does not say they are drawn.
    st.html(f'<div data-testid="call-details" data-call="{int(call_id)}"></div>')
    st.markdown(f"**{d.agent}** · `{d.model}` ({d.backend}) · stage {d.stage} · started "
                f"{d.started_at:%Y-%m-%d %H:%M:%S} UTC · {d.attempts} attempt(s)")
    cols = st.columns(5)
    cols[0].metric("Latency", seconds(d.latency_ms))
    cols[1].metric("Input tokens", f"{d.prompt_tokens:,}", help=f"{d.cached_tokens:,} cached")
    cols[2].metric("Output tokens", f"{d.completion_tokens:,}")
    cols[3].metric("Cost", usd(d.cost_usd) if d.cost_usd is not None else "–",
                   help="Unpriced: this model has no price in the table." if d.cost_usd is None
                   else "With the price in force when the call was made.")
    cols[4].metric("Prompt version", str(d.prompt_version) if d.prompt_version else "default")
    if d.status != "ok":
        st.error(f"**{d.status}**: {d.error}", icon=":material/error:")
    _show_attempts(call_id)
    req, resp = st.columns(2)
    with req:
        st.markdown("**Request**")
        for m in (d.request or {}).get("messages") or []:
            st.caption(m.get("role", ""))
            st.code(m.get("content", ""), language=None, wrap_lines=True)
    with resp:
        st.markdown("**Response**")
        content = (d.response or {}).get("content")
        try:
            st.code(json.dumps(json.loads(content), indent=2, ensure_ascii=False),
                    language="json", wrap_lines=True)
        except (TypeError, ValueError):
            st.code(content or json.dumps(d.response), language=None, wrap_lines=True)


st.title("Traces")
if not identity.can(reviewer.reviewer(), "view_traces"):
    st.warning("Traces are for ops, clinicians, marketers and admins. Enter your name under "
               "**Reviewer** in the sidebar.", icon=":material/lock:")
    st.stop()
run_id = _pick_run()
# The timeline's place, holding a placeholder until the run's trace is read (ui/chart_slot.py:
# the browser fetches Plotly meanwhile); cleared once the timeline is drawn below it. The
# run's header and figures go in `head`, above it.
head = st.container()
body = st.container()
loading = chart_slot("timeline", height=300, where=body)
if run_id is None:
    loading.empty()
    st.info("No runs yet: start one, or fill a demo database with `python -m engine seed-demo`.")
    st.stop()
try:
    trace = _trace(database_url(), run_id)
except NotFound as exc:
    loading.empty()
    st.error(str(exc))
    st.stop()

label, color, icon = STATUS.get(trace.status, (trace.status, "gray", ":material/help:"))
head.markdown(f"**{trace.title}** · {trace.kind} · :{color}[{icon} {label}]"
              + (f" ({trace.halt_reason.replace('_', ' ')})" if trace.halt_reason else ""))
head.page_link("pages/run.py", label="Open the run", icon=":material/article:",
               query_params={"run": str(run_id)})
calls = trace.calls
m = head.columns(6)
m[0].metric("Steps", len(trace.steps))
m[1].metric("LLM calls", len(calls))
m[2].metric("Cost", usd(trace.cost_usd) if not trace.unpriced_calls or trace.cost_usd
            else "unpriced", help=f"{trace.unpriced_calls} unpriced call(s)"
            if trace.unpriced_calls else None)
m[3].metric("Tokens", f"{sum(c.total_tokens for c in calls):,}")
m[4].metric("Errors", sum(c.status != "ok" for c in calls))
m[5].metric("Budget", usd(trace.budget_usd) if trace.budget_usd is not None else "none")

@st.fragment
def _timeline_and_call(url: str, run_id: int) -> None:
    """The timeline and the call picked on it, rerun on their own: a click on a bar, the
    window's slider or the call picker redraws this part only, not the page's header,
    metrics, exports and sidebar."""
    trace = _trace(url, run_id)
    calls = trace.calls
    steps = trace.steps
    if len(steps) > WINDOW:
        lo, hi = st.select_slider("Steps shown", options=[s.seq for s in steps],
                                  value=(steps[0].seq, steps[WINDOW - 1].seq), key=f"win_{run_id}")
        steps = [s for s in steps if lo <= s.seq <= hi]
    if steps:
        st.caption(f"Steps {steps[0].seq}–{steps[-1].seq} of {len(trace.steps)}, with their "
                   f"{sum(len(s.calls) for s in steps)} calls. Click a call to open it below.")
        event = st.plotly_chart(trace_timeline_figure(trace, steps=steps), key=f"tl_{run_id}",
                                on_select="rerun", selection_mode=("points",))
        clicked = [p.get("customdata") for p in (event.selection.points if event else [])]
        clicked = [c[0] if isinstance(c, list) and c else c for c in clicked]
        clicked = [c for c in clicked if isinstance(c, int)]
        # Apply a click once; after that the picker below is free to change the call.
        if clicked and st.session_state.get("_trace_clicked") != clicked[0]:
            st.session_state["_trace_clicked"] = clicked[0]
            st.session_state[CALL_KEY] = clicked[0]
            st.session_state[SCROLL_KEY] = clicked[0]
    else:
        st.info("This run has no steps yet.")
    render_team_calls(run_id)  # team (issue 18): calls nested under the member that made them

    if calls:
        seq = {s.id: s.seq for s in trace.steps}
        by_id = {c.id: c for c in calls}
        if CALL_KEY in st.session_state and st.session_state[CALL_KEY] not in by_id:
            st.session_state[CALL_KEY] = None  # a call of the run shown before
        st.subheader("Call", anchor=CALL_ANCHOR)
        failed = [c for c in calls if c.status != "ok"]
        if failed:
            first = failed[0]
            st.caption(f":red[:material/error: {len(failed)} failed call(s); the first: "
                       f"{escape_inline(_call_label(first, seq))}: "
                       f"{escape_inline((first.error or first.status)[:160])}]")
        # The request and response are read (and drawn) only for the call picked: a run's page
        # opens with its summary and timeline, not with one call's bodies.
        picked = st.selectbox("Call", list(by_id), key=CALL_KEY, label_visibility="collapsed",
                              index=None, placeholder="Click a call on the timeline, or pick one",
                              format_func=lambda i: _call_label(by_id[i], seq))
        if picked is not None:
            _show_call(picked)
        scroll_to = st.session_state.pop(SCROLL_KEY, None)
        if scroll_to is not None and scroll_to == picked:
            # The details sit below a chart that can fill the window: bring them into view, or
            # a click looks as if nothing happened.
            st.html(scroll_script(CALL_ANCHOR, scroll_to), unsafe_allow_javascript=True)
        # On request only: a 500-row grid is the heaviest thing this page could draw.
        if st.toggle(f"Table of all {len(calls)} calls", key=f"all_calls_{run_id}"):
            st.dataframe(pd.DataFrame([{
                "call": c.id, "step": seq.get(c.step_id), "agent": c.agent, "model": c.model,
                "status": c.status, "started": c.started_at, "latency_ms": round(c.latency_ms),
                "input": c.prompt_tokens, "cached": c.cached_tokens, "output": c.completion_tokens,
                "cost_usd": c.cost_usd, "prompt_version": c.prompt_version,
            } for c in calls]), hide_index=True, column_config={
                "cost_usd": st.column_config.NumberColumn("cost", format="$%.5f"),
                "started": st.column_config.DatetimeColumn(format="MM-DD HH:mm:ss")})


with body:
    _timeline_and_call(database_url(), run_id)
loading.empty()

st.subheader("Export")
e = st.columns(4)
e[0].download_button("Events (JSONL)", data=lambda: trace_events.to_jsonl(run_id),
                     file_name=f"run-{run_id}-events.jsonl", mime="application/x-ndjson",
                     icon=":material/download:", help="One event per line, in time order.")
e[1].download_button("Run summary (JSON)",
                     data=lambda: json.dumps(trace_events.run_summary(run_id), indent=2,
                                             default=str),
                     file_name=f"run-{run_id}-trace.json", mime="application/json",
                     icon=":material/download:",
                     help="Input, events, response, and the trace with usage.")
e[2].download_button("OpenTelemetry (OTLP/JSON)",
                     data=lambda: json.dumps(otlp.to_otlp(run_id)),
                     file_name=f"run-{run_id}-otlp.json", mime="application/json",
                     icon=":material/download:",
                     help="Spans with OpenInference attributes, for Phoenix or Langfuse.")
endpoint = otlp.otlp_endpoint()
if e[3].button("Send to collector", icon=":material/send:", disabled=endpoint is None,
               help=f"POST the spans to {endpoint}" if endpoint
               else f"Set {otlp.OTLP_ENV} to send spans to an OTLP/HTTP collector."):
    try:
        status = otlp.send_otlp(run_id)
        st.success(f"Sent {len(calls) + len(trace.steps) + 1} spans to {endpoint} "
                   f"(HTTP {status}).")
    except ServiceError as exc:
        st.error(str(exc))
