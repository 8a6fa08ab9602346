"""The same protocol graph in LangGraph, as most public implementations of this design build
it: nodes draft -> safety -> clinical -> supervisor, a conditional edge back to draft, an
interrupt before human review, and SqliteSaver checkpointing every super-step to a file.

It calls the very same offline agents, the same deterministic checks and the same scoring
and gate functions as Draftroom, so both engines do identical work and reach review after
the same number of iterations; the difference in time is the engines themselves.

Durability is made equal: LangGraph runs with durability="sync" (each checkpoint written
before the next step starts; its default "async" writes it in the background), and both
databases use SQLite WAL with synchronous=NORMAL."""

from __future__ import annotations

import operator
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Annotated, Any, TypedDict

from bench._harness import (
    SYNC_NAMES,
    AgentClock,
    Row,
    cmd,
    database,
    log,
    median,
    protocol_input,
    sqlite_synchronous,
    sqlite_url,
    timed_protocol,
)
from bench.engine_overhead import Batch, draftroom_batch


class ProtocolState(TypedDict, total=False):
    input: dict[str, Any]
    iteration: int
    version: int
    draft: str
    previous: str | None
    """The version the draft revises (the checks that follow the text compare them)."""
    critical: list[str]
    """The critics' and checks' critical notes on the previous version."""
    follow_notes: list[tuple[str, str]]
    history: Annotated[list[dict[str, Any]], operator.add]
    """Every version with its scores: what a reviewer browses, kept in the checkpoint."""
    caps: dict[str, float]
    flags: list[dict[str, Any]]
    reviews: list[dict[str, Any]]
    notes: list[dict[str, Any]]
    scores: dict[str, float]
    best_version: int
    halt_reason: str
    route: str


def build_graph(checkpointer: Any, pipeline: Any) -> Any:
    """The compiled graph; `pipeline` is the protocol pipeline (or its timed copy)."""
    from langgraph.graph import END, START, StateGraph

    from engine.checks.feedback_coverage import Comment
    from engine.checks.follow import FollowInput, follow_checks, merge
    from engine.loop.decide import (
        as_review,
        combine_review,
        gate,
        max_iterations_for,
        thresholds_for,
    )
    from engine.pipelines.base import PRIORITY_ORDER, DraftTask, NoteOut, Review, ReviewTask

    stage = pipeline.stages[0]
    safety_spec, clinical_spec = stage.critics
    thresholds = thresholds_for(stage, {})
    max_iter = max_iterations_for(stage, {})

    def draft(state: ProtocolState) -> dict[str, Any]:
        notes = [NoteOut(**n) for n in state.get("notes", [])
                 if n["target"] in ("drafter", "broadcast")]
        notes.sort(key=lambda n: PRIORITY_ORDER[n.priority])
        task = DraftTask(kind="protocol", stage=stage.name, input=state["input"],
                         iteration=state.get("iteration", 0) + 1,
                         previous=state.get("draft"), notes=notes, feedback=[])
        text = stage.to_text(stage.drafter.offline(task), task.context)
        return {"draft": text, "previous": state.get("draft"),
                "version": state.get("version", 0) + 1,
                "iteration": state.get("iteration", 0) + 1, "reviews": [], "notes": []}

    def review_task(state: ProtocolState, flags: list[Any]) -> ReviewTask:
        return ReviewTask(kind="protocol", stage=stage.name, input=state["input"],
                          content=state["draft"], flags=flags)

    def safety(state: ProtocolState) -> dict[str, Any]:
        checks = stage.checks(state["draft"], state["input"], {})
        previous = state.get("previous")
        follow = follow_checks("protocol", stage.name, state["draft"], state["input"],
                               FollowInput(previous=previous, comments=[
                                   Comment(text=t, before=previous, source="critic")
                                   for t in state.get("critical", [])]), checks.flags)
        checks = merge(checks, follow)
        review = as_review(safety_spec.offline(review_task(state, checks.flags)))
        return {"caps": checks.caps, "flags": [f.model_dump() for f in checks.flags],
                "follow_notes": follow.notes,
                "reviews": [{"author": safety_spec.name, **review.model_dump()}]}

    def clinical(state: ProtocolState) -> dict[str, Any]:
        from engine.checks.base import FlagOut

        flags = [FlagOut(**f) for f in state.get("flags", [])]
        review = as_review(clinical_spec.offline(review_task(state, flags)))
        return {"reviews": state["reviews"] + [{"author": clinical_spec.name,
                                                **review.model_dump()}]}

    def supervisor(state: ProtocolState) -> dict[str, Any]:
        reviews = [(r["author"], Review.model_validate({k: v for k, v in r.items()
                                                        if k != "author"}))
                   for r in state["reviews"]]
        combined = combine_review(stage, reviews, state.get("caps", {}))
        scores = {name: v for name, (v, *_rest) in combined.items()}
        blocking = [f["category"] for f in state.get("flags", []) if f.get("blocking", True)]
        notes = [n.model_dump() for _, r in reviews for n in r.notes]
        notes += [{"target": "drafter", "priority": "critical",
                   "text": f"{f['category'].replace('_', ' ')}: rewrite or remove \"{f['text']}\""}
                  for f in state.get("flags", []) if f.get("blocking", True)]
        critical = [n["text"] for n in notes if n["priority"] == "critical"
                    and n["target"] in ("drafter", "broadcast")]
        notes += [{"target": "drafter", "priority": p, "text": t}
                  for p, t in state.get("follow_notes", [])]
        verdict = gate(scores, blocking, thresholds, None)
        entry = {"version": state["version"], "content": state["draft"], "scores": scores,
                 "flagged": bool(blocking)}
        history = state.get("history", []) + [entry]

        def key(h: dict[str, Any]) -> tuple[int, float, float, int]:
            margins = [h["scores"].get(n, 0.0) - t for n, t in thresholds.items()] or [0.0]
            return (0 if h["flagged"] else 1, min(margins),
                    sum(h["scores"].values()) / max(1, len(h["scores"])), h["version"])

        if verdict.passed:
            route, reason = "human_review", "thresholds_met"
        elif state["iteration"] >= max_iter:
            route, reason = "human_review", "max_iterations"
        else:
            route, reason = "draft", ""
        return {"scores": scores, "notes": notes, "critical": critical,
                "history": [entry], "route": route,
                "halt_reason": reason, "best_version": max(history, key=key)["version"]}

    def human_review(state: ProtocolState) -> dict[str, Any]:
        return {}  # a person acts here; the graph is interrupted before it

    g = StateGraph(ProtocolState)
    g.add_node("draft", draft)
    g.add_node("safety", safety)
    g.add_node("clinical", clinical)
    g.add_node("supervisor", supervisor)
    g.add_node("human_review", human_review)
    g.add_edge(START, "draft")
    g.add_edge("draft", "safety")
    g.add_edge("safety", "clinical")
    g.add_edge("clinical", "supervisor")
    g.add_conditional_edges("supervisor", lambda s: s["route"],
                            {"draft": "draft", "human_review": "human_review"})
    g.add_edge("human_review", END)
    return g.compile(checkpointer=checkpointer, interrupt_before=["human_review"])


class LangGraphDesk:
    """The LangGraph engine on one SQLite checkpoint file, WAL with synchronous=NORMAL."""

    def __init__(self, path: Path, pipeline: Any) -> None:
        from langgraph.checkpoint.sqlite import SqliteSaver

        self.conn = sqlite3.connect(str(path), check_same_thread=False)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.saver = SqliteSaver(self.conn)
        self.saver.setup()
        self.graph = build_graph(self.saver, pipeline)
        self.threads = 0

    def synchronous(self) -> str:
        journal = self.conn.execute("PRAGMA journal_mode").fetchone()[0]
        mode = self.conn.execute("PRAGMA synchronous").fetchone()[0]
        return f"{journal}, synchronous={SYNC_NAMES.get(int(mode), mode)}"

    def run_to_review(self, run_input: dict[str, Any]) -> int:
        """One protocol from its input to the interrupt before human review; returns the
        number of nodes (super-steps) it ran."""
        from engine.pipelines.protocol.models import ProtocolInput

        self.threads += 1
        config = {"configurable": {"thread_id": f"protocol-{self.threads}"}}
        parsed = ProtocolInput.model_validate(run_input).model_dump(mode="json")
        steps = 0
        for update in self.graph.stream({"input": parsed}, config, stream_mode="updates",
                                        durability="sync"):
            steps += sum(1 for node in update if not node.startswith("__"))  # not the interrupt
        state = self.graph.get_state(config)
        if state.next != ("human_review",):
            raise RuntimeError(f"LangGraph run stopped at {state.next}, not at human review")
        return steps

    def close(self) -> None:
        self.conn.close()


def langgraph_batch(desk: LangGraphDesk, n: int, clock: AgentClock, *, offset: int = 0) -> Batch:
    clock.reset()
    per_run: list[float] = []
    steps = 0
    cpu0, t0 = time.process_time(), time.perf_counter()
    for i in range(n):
        r0 = time.perf_counter()
        steps += desk.run_to_review(protocol_input(offset + i))
        per_run.append(time.perf_counter() - r0)
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    return Batch("LangGraph", n, steps, clock.calls, wall, cpu, clock.seconds,
                 clock.wall_seconds, per_run)


def compare(n: int, rounds: int) -> tuple[list[Batch], list[Batch], str, str]:
    """`rounds` rounds of `n` runs per engine, alternating which goes first."""
    clock = AgentClock()
    with tempfile.TemporaryDirectory(prefix="draftroom-bench-lg-") as tmp, \
            database(sqlite_url(Path(tmp), "draftroom.db")) as url, \
            timed_protocol(clock) as pipeline:
        desk = LangGraphDesk(Path(tmp) / "langgraph.db", pipeline)
        try:
            d_mode, l_mode = sqlite_synchronous(url), desk.synchronous()
            draftroom_batch(min(n, 8), clock, offset=0)  # warm-up, same inputs on both
            langgraph_batch(desk, min(n, 8), clock, offset=0)
            d_batches: list[Batch] = []
            l_batches: list[Batch] = []
            for r in range(rounds):
                off = r * n
                if r % 2 == 0:
                    d_batches.append(draftroom_batch(n, clock, offset=off))
                    l_batches.append(langgraph_batch(desk, n, clock, offset=off))
                else:
                    l_batches.append(langgraph_batch(desk, n, clock, offset=off))
                    d_batches.append(draftroom_batch(n, clock, offset=off))
                d, lg = d_batches[-1], l_batches[-1]
                log(f"  round {r + 1}: Draftroom {d.overhead_ms_per_run:.1f} ms/run overhead "
                    f"({d.steps} steps), LangGraph {lg.overhead_ms_per_run:.1f} ms/run "
                    f"({lg.steps} steps); agents {d.agent_s:.2f} s vs {lg.agent_s:.2f} s")
        finally:
            desk.close()
    return d_batches, l_batches, d_mode, l_mode


def rows_for(d: list[Batch], lg: list[Batch], n: int, d_mode: str, l_mode: str,
             command: str) -> list[Row]:
    b = "engine overhead vs LangGraph (offline)"
    ratios_run = [x.overhead_ms_per_run / y.overhead_ms_per_run for x, y in zip(d, lg, strict=True)]
    ratios_step = [x.overhead_ms_per_step / y.overhead_ms_per_step
                   for x, y in zip(d, lg, strict=True)]
    ratios_cpu = [x.cpu_overhead_ms_per_step / y.cpu_overhead_ms_per_step
                  for x, y in zip(d, lg, strict=True)]
    ratios_run_cpu = [x.cpu_overhead_ms_per_run / y.cpu_overhead_ms_per_run
                      for x, y in zip(d, lg, strict=True)]
    mode = d_mode if d_mode == l_mode else f"Draftroom {d_mode}; LangGraph {l_mode}"

    def per(batches: list[Batch]) -> str:
        return (f"{median([x.overhead_ms_per_step for x in batches]):.2f} ms/step wall "
                f"({median([x.cpu_overhead_ms_per_step for x in batches]):.2f} CPU), "
                f"{median([x.overhead_ms_per_run for x in batches]):.1f} ms/run wall "
                f"({median([x.cpu_overhead_ms_per_run for x in batches]):.1f} CPU), "
                f"{batches[0].steps / batches[0].runs:.1f} steps/run")

    return [
        Row(b, f"setup: {n} runs x {len(d)} rounds per engine, alternating; SQLite {mode}; "
               "LangGraph durability=sync", "same agents, same iterations", command),
        Row(b, "Draftroom overhead (total minus time inside agents)", per(d), command),
        Row(b, "LangGraph overhead (total minus time inside agents)", per(lg), command),
        Row(b, "runs to review per second, Draftroom / LangGraph",
            f"{median([x.runs_per_s for x in d]):.1f} / {median([x.runs_per_s for x in lg]):.1f}",
            command),
        Row(b, "overhead ratio Draftroom / LangGraph, per run: same work (wall; CPU; goal <= 0.5)",
            f"{median(ratios_run):.2f}x; {median(ratios_run_cpu):.2f}x (rounds: "
            f"{min(ratios_run):.2f}-{max(ratios_run):.2f}x wall)", command),
        Row(b, "overhead ratio Draftroom / LangGraph, per step (wall; CPU)",
            f"{median(ratios_step):.2f}x; {median(ratios_cpu):.2f}x (rounds: "
            f"{min(ratios_step):.2f}-{max(ratios_step):.2f}x wall)", command),
    ]


def run(quick: bool = False) -> list[Row]:
    n, rounds = (10, 2) if quick else (40, 10)  # ten rounds: the machine's noise moves one
    log(f"LangGraph comparison: {rounds} rounds x {n} runs per engine, alternating")
    d, lg, d_mode, l_mode = compare(n, rounds)
    if [x.steps for x in d] and d[0].agent_calls != lg[0].agent_calls:
        log(f"  note: agent+check calls differ: Draftroom {d[0].agent_calls} vs "
            f"LangGraph {lg[0].agent_calls}")
    return rows_for(d, lg, n, d_mode, l_mode, cmd("langgraph", quick))


if __name__ == "__main__":
    from bench._harness import markdown_table

    print(markdown_table(run()))
