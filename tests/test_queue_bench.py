"""The pages bench's Queue-only quick mode (`python -m bench.bench_pages --only-case Queue`):
the Queue's case beside the baseline and the Queue's own interaction; without it, every case
and interaction as before."""

from __future__ import annotations

from bench.bench_pages import BASELINE, INTERACTIONS, _interacting, cases


def test_only_the_queue_beside_the_baseline() -> None:
    assert [c.name for c in cases(7, "Queue")] == [BASELINE, "Queue"]
    assert [n for n in INTERACTIONS if _interacting(n, "Queue")] == ["queue filter"]
    assert [c.name for c in cases(7, "Traces")] == [BASELINE, "Traces (500-call run)"]


def test_without_a_case_every_page_and_interaction() -> None:
    names = [c.name for c in cases(7)]
    assert len(names) == 8 and names[0] == BASELINE and "Queue" in names
    assert all(_interacting(n, None) for n in INTERACTIONS)
    assert "traces?run=7" in [c.path for c in cases(7)]
