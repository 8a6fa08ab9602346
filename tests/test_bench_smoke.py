"""The benchmarks behind `make bench` run, on tiny N. Nothing here asserts a timing: speed is
shown by `python -m bench`, never enforced by a test."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench._harness import (
    AgentClock,
    Row,
    as_row,
    database,
    markdown_table,
    percentile,
    sqlite_synchronous,
    sqlite_url,
    timed_protocol,
)


def test_draftroom_batch_drives_runs_to_review_and_times_the_agents(tmp_path: Path) -> None:
    from bench.engine_overhead import draftroom_batch, rows_for

    clock = AgentClock()
    with database(sqlite_url(tmp_path)) as url, timed_protocol(clock):
        batch = draftroom_batch(3, clock)
        assert "synchronous=NORMAL" in sqlite_synchronous(url)
    assert batch.runs == 3 and batch.steps >= 9  # draft, review, decide at least once each
    assert batch.agent_calls >= 3 * 4  # drafter, two critics and the checks per iteration
    assert batch.agent_s > 0 and len(batch.per_run_s) == 3
    rows = rows_for([batch], 3, "SQLite", "python -m bench --only engine_overhead")
    assert all(isinstance(r, Row) and r.result for r in rows)


def test_langgraph_graph_does_the_same_work_as_draftroom(tmp_path: Path) -> None:
    pytest.importorskip("langgraph.checkpoint.sqlite")
    from bench.langgraph_protocol import compare, rows_for

    d, lg, d_mode, l_mode = compare(2, 2)
    assert d_mode == l_mode and "synchronous=NORMAL" in l_mode
    for x, y in zip(d, lg, strict=True):
        # Same agents, same inputs: the same calls to the agents and checks, to review.
        assert x.agent_calls == y.agent_calls
        assert y.steps >= 4 * y.runs and x.steps >= 3 * x.runs
    text = markdown_table(rows_for(d, lg, 2, d_mode, l_mode, "python -m bench --only langgraph"))
    assert "Draftroom / LangGraph" in text


def test_critics_are_measured_against_the_fake_server(tmp_path: Path) -> None:
    from bench.critics_concurrency import measure

    with database(sqlite_url(tmp_path)):
        m = measure(1, latency=0.02)
    assert len(m["step"]) == len(m["slowest"]) == 3  # three review steps in the run
    assert len(m["sequential"]) == 1


def test_in_app_worker_throughput_counts_every_run(tmp_path: Path) -> None:
    from bench.throughput import in_app

    with database(sqlite_url(tmp_path)):
        r = in_app(4)
    assert r.in_review == 4 and len(r.per_run_s) == 4


@pytest.mark.slow
def test_worker_processes_throughput_and_memory(tmp_path: Path) -> None:
    from bench.memory import measure as memory
    from bench.throughput import processes

    with database(sqlite_url(tmp_path, "procs.db")) as url:
        r = processes(4, url, 2, tmp_path)
    assert r.in_review == 4
    with database(sqlite_url(tmp_path, "mem.db")) as url:
        m = memory(5, url, tmp_path)
    assert m["peak_mb"] > 0


def test_main_lists_and_runs_one_benchmark(capsys: pytest.CaptureFixture[str],
                                           tmp_path: Path) -> None:
    from bench.__main__ import BENCHES, main

    assert main(["--list"]) == 0
    assert set(capsys.readouterr().out.split()) == set(BENCHES)
    out = tmp_path / "table.md"
    assert main(["--only", "critics", "--quick", "--out", str(out)]) == 0
    assert "concurrent critics" in out.read_text() and "cores" in out.read_text()


def test_rows_from_other_modules_and_the_table() -> None:
    rows = [as_row(Row("a", "b", "c", "d")), as_row({"bench": "x", "measure": "y", "value": 1}),
            as_row(("p", "q", "r"))]
    assert [r.result for r in rows] == ["c", "1", "r"]
    table = markdown_table(rows).splitlines()
    assert table[0].startswith("| Benchmark") and len(table) == 5
    assert percentile([3, 1, 2, 4], 50) == 2 and percentile([1.0], 95) == 1.0


def test_streaming_bench_finds_when_each_marker_was_sent() -> None:
    from bench.streaming import MarkedTeam, sent_times

    sent = [(1.0, "ab q001z q0"), (2.0, "ab q001z q002z"), (3.0, "ab q001z q002z q003z")]
    assert sent_times(sent, 3) == {"q001z": 1.0, "q002z": 2.0, "q003z": 3.0}
    draft = MarkedTeam(4)({"messages": [{"content": "You are the Drafter"},
                                        {"content": "Write one"}]})
    text = draft["purpose"] + " ".join(draft["steps"])
    assert all(f"q00{k}z" in text for k in range(1, 5))


@pytest.mark.slow
def test_concurrency_bench_drives_queued_runs_through_one_worker(tmp_path: Path) -> None:
    from bench.concurrency import drive

    got = drive(3, 3, tmp_path)
    assert got.in_review == 3 and got.requests >= 9 and len(got.per_run_s) == 3
