"""A server that refuses json_schema (issue 16): HTTP 500 with a validation message, answered at
once, while each real answer takes GENERATION_S to generate. Before, every agent call sent
json_schema first and the SDK retried the 500 three times with backoff (a first drafter call:
14.5 s over 7 requests for ~3 s of generation). Now the refusal is learned once per (server,
model) per database and every later call goes straight to JSON mode.

Measured per protocol run (two iterations: draft, review, draft, review): its wall time from
the worker taking it to the run waiting for review, against the generation time on its
critical path (per step: the drafter's answers, or the slowest critic's, since the critics run
at the same time), and the rejected requests over all runs."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from bench._harness import Row, cmd, database, log, median, sqlite_url

GENERATION_S = 0.5


class _Server:
    """Refuses json_schema with a 500 at once; any other request answers after GENERATION_S."""

    def __init__(self) -> None:
        from testkit.fake_openai import Reply
        from testkit.protocol_team import ProtocolTeam

        # two drafts: the first is sent back
        self.team = ProtocolTeam([0.5, 0.9], follow_request=True)
        self.reject = Reply.reject_json_schema(500)
        self.delay = Reply.delay
        self.rejected = 0

    def __call__(self, request: dict[str, Any]) -> Any:
        if (request.get("response_format") or {}).get("type") == "json_schema":
            self.rejected += 1
            return self.reject
        return self.delay(GENERATION_S, self._answer(request))

    def _answer(self, request: dict[str, Any]) -> Any:
        from testkit.fake_openai import Reply

        return Reply.ok(self.team(request))


def measure(runs: int) -> dict[str, Any]:
    from sqlmodel import select

    from db.models import LLMAttempt, LLMCall, Step
    from db.session import session_scope
    from engine import service
    from engine.llm.capabilities import Capabilities
    from engine.llm.openai_backend import OpenAIBackend
    from engine.loop.worker import Worker
    from testkit.fake_openai import FakeOpenAI

    out: dict[str, Any] = {"wall": [], "generation": [], "requests": 0}
    # Warm up offline first (imports, the screen's tables), so the first measured run's extra
    # time is what learning the refusal costs.
    Worker(worker_id="bench-format-warm-up").run_given(
        service.start_run(kind="protocol", input={"intent": "Warm up", "audience": "adults"},
                          actor="bench"))
    responder = _Server()
    with FakeOpenAI(responder=responder) as server:
        for i in range(runs):
            # A new backend per run, as a new worker process would build it: what it knows of
            # the server comes from the database.
            backend = OpenAIBackend(base_url=server.url, api_key="sk-bench-format-0000",
                                    model="gpt-4.1-mini", timeout=30, max_retries=3)
            backend.caps = Capabilities(backend.base_url, backend.model, db=True)
            worker = Worker(backend=backend, worker_id=f"bench-format-{i}")
            intent = {"intent": f"Help student {i} with exam panic", "audience": "adult students"}
            run_id = service.start_run(kind="protocol", input=intent, actor="bench")
            t0 = time.perf_counter()
            worker.run_given(run_id)
            out["wall"].append(time.perf_counter() - t0)
            with session_scope() as s:
                steps = s.exec(select(Step).where(Step.run_id == run_id)).all()
                calls = s.exec(select(LLMCall).where(LLMCall.run_id == run_id)).all()
                answered = s.exec(select(LLMAttempt).where(
                    LLMAttempt.run_id == run_id, LLMAttempt.http_status == 200)).all()
            per_call: dict[str | None, int] = {}
            for a in answered:
                per_call[a.call_key] = per_call.get(a.call_key, 0) + 1
            critical = 0.0
            for st in steps:
                mine = [per_call.get(c.call_key, 0) * GENERATION_S for c in calls
                        if c.step_id == st.id and c.agent != "moderation"]
                critical += max(mine, default=0.0)
            out["generation"].append(critical)
        out["requests"] = len(server.chat_requests)
    out["rejected"] = responder.rejected
    return out


def run(quick: bool = False) -> list[Row]:
    runs = 2 if quick else 5
    log(f"refused json_schema: {runs} protocol runs, {GENERATION_S * 1000:.0f} ms per answer")
    with tempfile.TemporaryDirectory(prefix="draftroom-bench-format-") as tmp, \
            database(sqlite_url(Path(tmp))):
        m = measure(runs)
    ratios = [w / g for w, g in zip(m["wall"], m["generation"], strict=True)]
    b, c = ("server refusing json_schema (fake server: HTTP 500 at once, 500 ms per answer)",
            cmd("refused_format", quick))
    return [
        Row(b, f"protocol run wall time (2 iterations; median of {runs}) / generation time "
               "on its critical path", f"{median(m['wall']):.2f} s / "
               f"{median(m['generation']):.2f} s", c),
        Row(b, "wall / generation (median; goal <= 1.1x)",
            f"{median(ratios):.2f}x (first run, which learns the refusal: {ratios[0]:.2f}x; "
            f"worst {max(ratios):.2f}x)", c),
        Row(b, "requests refused for json_schema, all runs (goal: 1 per server and model)",
            f"{m['rejected']} of {m['requests']} chat requests", c),
    ]


if __name__ == "__main__":
    from bench._harness import markdown_table

    print(markdown_table(run()))
