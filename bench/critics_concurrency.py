"""Concurrent critics: with the fake OpenAI-compatible server adding 300 ms to every answer,
one review step with two critics should take about as long as the slower critic, not the sum.

Draftroom's review steps are timed from the Step rows (opened -> committed, so the checks and
the commit are inside), the critics' latencies from their LLMCall rows; the sequential
baseline calls the same two critics one after the other on the same draft."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from bench._harness import Row, cmd, database, log, median, protocol_input, sqlite_url

LATENCY_S = 0.3


def measure(runs: int, latency: float = LATENCY_S) -> dict[str, list[float]]:
    """Drive `runs` protocol runs against the fake server; per review step: its duration,
    its slowest critic, and a sequential replay of the same two critics (seconds)."""
    from sqlmodel import select

    from db.models import LLMCall, Step
    from db.session import session_scope
    from engine import service
    from engine.llm.openai_backend import OpenAIBackend
    from engine.loop.agents import CallContext, run_agent
    from engine.loop.worker import Worker
    from engine.pipelines.base import ReviewTask
    from engine.pipelines.registry import get_pipeline
    from testkit.fake_openai import FakeOpenAI
    from testkit.protocol_team import ProtocolTeam

    out: dict[str, list[float]] = {"step": [], "slowest": [], "sequential": []}
    with FakeOpenAI(latency=latency) as server:
        backend = OpenAIBackend(base_url=server.url, api_key="sk-bench-critics-0000",
                                model="gpt-4.1-mini", timeout=30, max_retries=0)
        worker = Worker(backend=backend, worker_id="bench-critics")
        stage = get_pipeline("protocol").stages[0]
        for i in range(runs):
            # three iterations per run
            server.responder = ProtocolTeam([0.5, 0.6, 0.9], follow_request=True)
            run_id = service.start_run(kind="protocol", input=protocol_input(i), actor="bench")
            worker.run_given(run_id)
            with session_scope() as s:
                steps = s.exec(select(Step).where(Step.run_id == run_id, Step.node == "review",
                                                  Step.status == "done")).all()
                calls = s.exec(select(LLMCall).where(LLMCall.run_id == run_id)).all()
            for st in steps:
                assert st.finished_at is not None
                mine = [c.latency_ms / 1000 for c in calls if c.step_id == st.id]
                out["step"].append((st.finished_at - st.started_at).total_seconds())
                out["slowest"].append(max(mine))
            # The same two critics, one after the other, on this run's last draft.
            content = service_draft_content(run_id)
            task = ReviewTask(kind="protocol", stage=stage.name, input=protocol_input(i),
                              content=content, flags=stage.checks(content, {}, {}).flags)
            ctx = CallContext(run_id=run_id, step_id=None, kind="protocol", stage=stage.name,
                              params={}, budget_usd=None)
            t0 = time.perf_counter()
            stage.checks(content, {}, {})
            for critic in stage.critics:
                run_agent(critic, task, backend, ctx)
            out["sequential"].append(time.perf_counter() - t0)
    return out


def service_draft_content(run_id: int) -> str:
    from db.models import Draft, Run
    from db.session import session_scope

    with session_scope() as s:
        run = s.get(Run, run_id)
        draft = s.get(Draft, run.current_draft_id) if run and run.current_draft_id else None
        return draft.content if draft else ""


def run(quick: bool = False) -> list[Row]:
    runs = 1 if quick else 3
    log(f"concurrent critics: {runs} runs x 3 review steps, fake server +{LATENCY_S * 1000:.0f} ms")
    with tempfile.TemporaryDirectory(prefix="draftroom-bench-critics-") as tmp, \
            database(sqlite_url(Path(tmp))):
        m = measure(runs)
    step, slowest = median(m["step"]), median(m["slowest"])
    ratios = [a / b for a, b in zip(m["step"], m["slowest"], strict=True)]
    b, c = "concurrent critics (fake server, +300 ms per call)", cmd("critics", quick)
    return [
        Row(b, f"review step with 2 critics, opened to committed (median of {len(m['step'])})",
            f"{step * 1000:.0f} ms", c),
        Row(b, "slowest critic's own latency (median)", f"{slowest * 1000:.0f} ms", c),
        Row(b, "review step / slowest critic (median; goal <= 1.15)",
            f"{median(ratios):.2f}x (worst {max(ratios):.2f}x)", c),
        Row(b, "sequential baseline: the same two critics one after the other (median)",
            f"{median(m['sequential']) * 1000:.0f} ms "
            f"({median(m['sequential']) / step:.2f}x the concurrent step)", c),
    ]


if __name__ == "__main__":
    from bench._harness import markdown_table

    print(markdown_table(run()))
