"""The Costs page's numbers: every aggregate in engine/ops.py checked against a direct
computation over the calls themselves, on a small seeded set (SQLite and PostgreSQL); the
rollup follows inserts, deletes and updates; the figures label unpriced spend."""

from __future__ import annotations

import math
from collections import defaultdict
from datetime import UTC, date, datetime, timedelta

import pandas as pd
import pytest
from sqlalchemy import delete, text, update
from sqlmodel import select

from db.models import CallRollup, HumanAction, LLMCall, Run
from db.session import get_engine, reset_engines, session_scope
from demo.seed import seed_demo
from engine import ops, ops_settings, rollup
from ui.ops_figures import (
    cost_bars_figure,
    error_rate_figure,
    latency_figure,
    spend_by_day_figure,
    top_runs_markdown,
)

END = datetime(2026, 3, 20, 18, 0, tzinfo=UTC)
TODAY = END.date()
ALL = ops.OpsFilter(start=TODAY - timedelta(days=120), end=TODAY)


@pytest.fixture
def seeded(db_any: str) -> str:
    seed_demo(calls=3000, runs=150, big_run_calls=300, seed=11, end=END, demo_budgets=False)
    return db_any


def _calls() -> list[LLMCall]:
    with session_scope() as s:
        return list(s.exec(select(LLMCall)))


def _match(c: LLMCall, f: ops.OpsFilter) -> bool:
    day = c.started_at.astimezone(UTC).date()
    return (f.start <= day <= f.end and all(
        not f.values(d) or getattr(c, d) in f.values(d) for d in ops.DIMENSIONS))


def _direct(calls: list[LLMCall], key=lambda c: None) -> dict:  # type: ignore[no-untyped-def]
    out: dict = defaultdict(lambda: defaultdict(float))
    for c in calls:
        g = out[key(c)]
        g["calls"] += 1
        g["errors"] += c.status != "ok"
        g["unpriced"] += c.status == "ok" and c.cost_usd is None
        g["cost_usd"] += c.cost_usd or 0.0
        g["prompt_tokens"] += c.prompt_tokens
        g["cached_tokens"] += c.cached_tokens
        g["completion_tokens"] += c.completion_tokens
        g["latency_ms"] += c.latency_ms
    return out


FILTERS = [
    ALL,
    ops.OpsFilter(start=TODAY - timedelta(days=20), end=TODAY - timedelta(days=5)),
    ops.OpsFilter(start=ALL.start, end=TODAY, kinds=("protocol",)),
    ops.OpsFilter(start=ALL.start, end=TODAY, models=("gpt-4.1-mini", "llama3.1:8b"),
                  agents=("drafter", "brief_writer", "evaluator")),
    ops.OpsFilter(start=TODAY - timedelta(days=60), end=TODAY, kinds=("campaign",),
                  stages=("outreach",)),
]


@pytest.mark.parametrize("f", FILTERS, ids=["all", "dates", "kind", "model+agent", "stage"])
def test_totals_and_breakdowns_match_a_direct_computation(seeded: str, f: ops.OpsFilter) -> None:
    calls = [c for c in _calls() if _match(c, f)]
    assert calls, "the seeded set should have calls for every filter"
    want = _direct(calls)[None]
    got = ops.totals(f)
    assert got.calls == want["calls"] and got.errors == want["errors"]
    assert got.unpriced == want["unpriced"]
    assert got.cost_usd == pytest.approx(want["cost_usd"], rel=1e-9)
    assert (got.prompt_tokens, got.cached_tokens, got.completion_tokens) == (
        want["prompt_tokens"], want["cached_tokens"], want["completion_tokens"])
    assert got.latency_mean_ms == pytest.approx(want["latency_ms"] / want["calls"])

    for dim in ops.DIMENSIONS:
        direct = _direct(calls, key=lambda c, d=dim: getattr(c, d))
        df = ops.breakdown(f, dim)
        assert set(df[dim]) == set(direct)
        for row in df.itertuples():
            w = direct[getattr(row, dim)]
            assert row.calls == w["calls"] and row.errors == w["errors"]
            assert row.error_rate == pytest.approx(w["errors"] / w["calls"])
            priced = w["calls"] - w["errors"] - w["unpriced"]
            if priced == 0 and w["unpriced"]:
                assert math.isnan(row.cost_usd)  # unpriced: no number, never $0
            else:
                assert row.cost_usd == pytest.approx(w["cost_usd"], rel=1e-9)
        costs = [c for c in df["cost_usd"] if not math.isnan(c)]
        assert costs == sorted(costs, reverse=True)

    by_day = ops.by_day(f)
    direct_days = _direct(calls, key=lambda c: c.started_at.astimezone(UTC).date())
    assert list(by_day["day"]) == [f.start + timedelta(days=i)
                                   for i in range((f.end - f.start).days + 1)]
    for row in by_day.itertuples():
        w = direct_days.get(row.day) or defaultdict(float)
        assert row.calls == w["calls"]
        if w["unpriced"] and w["calls"] == w["errors"] + w["unpriced"]:
            assert math.isnan(row.cost_usd)
        else:
            assert row.cost_usd == pytest.approx(w["cost_usd"], abs=1e-12)
    assert ops.table(f)["calls"].sum() == want["calls"]


def test_latency_percentiles_are_within_one_bucket_of_the_exact_ones(seeded: str) -> None:
    calls = _calls()
    groups: dict = defaultdict(list)
    for c in calls:
        groups[(c.agent, c.model)].append(c.latency_ms)
    df = ops.latency_percentiles(ALL)
    assert len(df) == len(groups)
    bucket = 2 ** (1 / rollup.BUCKETS_PER_DOUBLING)  # the width of one bucket
    for row in df.itertuples():
        values = sorted(groups[(row.agent, row.model)])
        assert row.calls == len(values)
        for p, got in ((0.5, row.p50_ms), (0.95, row.p95_ms), (0.99, row.p99_ms)):
            exact = max(values[math.ceil(p * len(values)) - 1], 1.0)  # nearest rank
            assert exact / bucket <= got <= exact * bucket, (row.agent, row.model, p)
    overall = ops.latency_percentiles(ALL, by=())
    assert int(overall["calls"][0]) == len(calls)
    assert overall["p50_ms"][0] <= overall["p95_ms"][0] <= overall["p99_ms"][0]


def test_run_economics_and_most_expensive_runs(seeded: str) -> None:
    f = ops.OpsFilter(start=TODAY - timedelta(days=45), end=TODAY, kinds=("protocol",))
    lo = datetime.combine(f.start, datetime.min.time(), tzinfo=UTC)
    with session_scope() as s:
        runs = [r for r in s.exec(select(Run)) if r.created_at >= lo and r.kind == "protocol"]
        kinds = {r.id: r.kind for r in s.exec(select(Run))}
        approvals = [a for a in s.exec(select(HumanAction))
                     if a.action in ("approve", "approve_override") and a.at >= lo
                     and kinds[a.run_id] == "protocol"]
    econ = ops.run_economics(f)
    spend = ops.totals(f).cost_usd
    assert econ.runs == len(runs) and econ.approved_drafts == len(approvals)
    assert econ.cost_per_run == pytest.approx(spend / len(runs))
    assert econ.cost_per_approved_draft == pytest.approx(spend / len(approvals))

    top = ops.top_runs(f, limit=5)
    want = sorted(runs, key=lambda r: (-r.cost_usd, r.id))[:5]
    assert list(top["run_id"]) == [r.id for r in want]
    assert list(top["cost_usd"]) == pytest.approx([r.cost_usd for r in want])

    narrow = f.model_copy(update={"models": ("gpt-5",), "agents": ("drafter",)})
    top = ops.top_runs(narrow, limit=3)
    calls = _calls()
    having = {c.run_id for c in calls if c.model == "gpt-5" and c.agent == "drafter"}
    want = sorted((r for r in runs if r.id in having), key=lambda r: (-r.cost_usd, r.id))[:3]
    assert list(top["run_id"]) == [r.id for r in want]
    for row in top.itertuples():
        mine = [c.cost_usd or 0 for c in calls
                if c.run_id == row.run_id and c.model == "gpt-5" and c.agent == "drafter"]
        assert row.filtered_cost_usd == pytest.approx(sum(mine))


def test_monthly_budget_alerts_at_80_and_100_percent(seeded: str) -> None:
    month = [c for c in _calls() if c.started_at.astimezone(UTC).date() >= TODAY.replace(day=1)]
    spent = _direct(month, key=lambda c: c.kind)
    ops_settings.set_monthly_budget(kind="protocol", usd=spent["protocol"]["cost_usd"] / 0.85,
                                actor="ops")
    ops_settings.set_monthly_budget(kind="campaign", usd=spent["campaign"]["cost_usd"] / 1.05,
                                actor="ops")
    status = {s.kind: s for s in ops.budget_status(today=TODAY)}
    assert status["protocol"].level == "warning"
    assert status["protocol"].share == pytest.approx(0.85, rel=1e-3)  # budgets keep 4 decimals
    assert status["campaign"].level == "over"
    assert status["protocol"].spent_usd == pytest.approx(spent["protocol"]["cost_usd"])
    ops_settings.set_monthly_budget(kind="campaign", usd=None, actor="ops")
    assert {s.kind: s.level for s in ops.budget_status(today=TODAY)}["campaign"] == "none"
    ops_settings.set_monthly_budget(kind="protocol", usd=spent["protocol"]["cost_usd"] * 2,
                                actor="ops")
    assert {s.kind: s.level for s in ops.budget_status(today=TODAY)}["protocol"] == "ok"


def _rollup_matches_calls() -> None:
    calls = _calls()
    direct = _direct(calls, key=lambda c: (c.started_at.astimezone(UTC).date(), c.kind,
                                           c.model, c.agent, c.stage))
    with session_scope() as s:
        rows = list(s.exec(select(CallRollup)))
    assert {(r.day, r.kind, r.model, r.agent, r.stage) for r in rows} == set(direct)
    for r in rows:
        w = direct[(r.day, r.kind, r.model, r.agent, r.stage)]
        assert (r.calls, r.errors, r.unpriced) == (w["calls"], w["errors"], w["unpriced"])
        assert r.cost_usd == pytest.approx(w["cost_usd"], abs=1e-9)
        assert r.prompt_tokens == w["prompt_tokens"]
    with get_engine().connect() as conn:
        hist = conn.execute(text("SELECT sum(n) FROM calllatency")).scalar()
    assert hist == len(calls)


def test_the_rollup_follows_every_insert_delete_and_update(seeded: str) -> None:
    ops.totals(ALL)
    at = END - timedelta(days=1)
    with session_scope() as s:
        run_id = s.exec(select(Run.id)).first()
        s.add(LLMCall(run_id=run_id, agent="drafter", backend="openai", model="gpt-4.1",
                      kind="protocol", stage="draft", prompt_tokens=1000, cached_tokens=0,
                      completion_tokens=100, cost_usd=0.0028, latency_ms=1234.0,
                      started_at=at))
        s.add(LLMCall(run_id=run_id, agent="new_agent", backend="openai", model="brand-new",
                      kind="protocol", stage="draft", latency_ms=50.0, started_at=at))
    _rollup_matches_calls()
    with session_scope() as s:
        victim = s.exec(select(LLMCall.id).where(LLMCall.model == "gpt-4.1")).first()
        s.execute(update(LLMCall).where(LLMCall.id == victim).values(  # type: ignore[arg-type]
            model="gpt-4.1-nano", latency_ms=99.0, started_at=at - timedelta(days=3)))
        s.execute(delete(LLMCall).where(LLMCall.agent == "new_agent"))  # type: ignore[arg-type]
    _rollup_matches_calls()


def test_a_database_without_the_rollup_gets_it_filled_on_first_use(seeded: str) -> None:
    with get_engine().begin() as conn:
        rollup.drop_triggers(conn)
        conn.exec_driver_sql("DELETE FROM callrollup")
        conn.exec_driver_sql("DELETE FROM calllatency")
    with session_scope() as s:  # a call written while no trigger was there
        s.add(LLMCall(run_id=s.exec(select(Run.id)).first(), agent="drafter", backend="openai",
                      model="gpt-4.1", kind="protocol", stage="draft", prompt_tokens=10,
                      cost_usd=0.5, started_at=END))
    reset_engines()  # a new process, as far as ops knows
    assert ops.totals(ALL).calls == len(_calls())
    _rollup_matches_calls()


def test_an_empty_database_answers_with_zeros(db_url: str) -> None:
    f = ops.last_days(7)
    assert ops.totals(f).calls == 0 and ops.totals(f).error_rate is None
    assert ops.by_day(f)["calls"].tolist() == [0] * 7
    assert ops.breakdown(f, "model").empty and ops.latency_percentiles(f).empty
    assert ops.top_runs(f).empty
    assert ops.run_economics(f).cost_per_run is None
    assert [s.level for s in ops.budget_status()] == ["none", "none"]


def test_a_filter_must_end_after_it_starts() -> None:
    with pytest.raises(ValueError):
        ops.OpsFilter(start=date(2026, 3, 2), end=date(2026, 3, 1))


# -- figures ---------------------------------------------------------------------------------


def test_figures_label_unpriced_spend_and_never_draw_it_as_zero_dollars(seeded: str) -> None:
    df = ops.breakdown(ALL, "model")
    fig = cost_bars_figure(df, "model")
    bar = fig.data[0]
    labels = dict(zip(bar.y, bar.text, strict=True))
    assert labels["llama3.1:8b"] == "unpriced"
    assert labels["gpt-4.1-mini"].startswith("$")
    # The offline backend is priced, at $0 (it runs here); an unknown model is not.
    assert labels["offline-v1"] == "$0.0000"
    assert dict(zip(bar.y, bar.x, strict=True))["llama3.1:8b"] == 0.0  # no bar, a label

    split = spend_by_day_figure(ops.by_day(ALL, split="kind"), split="kind")
    assert sorted(t.meta["series"] for t in split.data) == ["campaign", "protocol"]
    pct = ops.latency_percentiles(ALL)
    lat = latency_figure(pct).data[0]
    assert len(lat.y) == pct["agent"].nunique() and len(lat.x) == pct["model"].nunique()
    r = pct.iloc[0]
    i, j = list(lat.y).index(r["agent"]), list(lat.x).index(r["model"])
    assert lat.z[i][j] == pytest.approx(r["p95_ms"] / 1000)
    assert lat.text[i][j] == (f"{r['p50_ms'] / 1000:.1f} / {r['p95_ms'] / 1000:.1f} / "
                              f"{r['p99_ms'] / 1000:.1f}")
    err = error_rate_figure(df)
    assert max(err.data[0].x) == pytest.approx(df["error_rate"].max())


def test_figures_of_an_empty_range_say_so() -> None:
    fig = cost_bars_figure(pd.DataFrame(columns=["model", "cost_usd"]), "model")
    assert "No calls" in fig.layout.annotations[0].text


def test_the_most_expensive_runs_table_links_each_run_and_shows_titles_as_text() -> None:
    df = pd.DataFrame([
        {"run_id": 7, "title": "Evil | [click](https://x.test) **bold**", "kind": "protocol",
         "status": "approved", "stage": "draft", "created_at": datetime(2026, 3, 1, 9, 5),
         "cost_usd": 0.51234, "calls": 12, "filtered_cost_usd": float("nan")},
        {"run_id": 8, "title": "Plain", "kind": "campaign", "status": "awaiting_review",
         "stage": "outreach", "created_at": datetime(2026, 3, 2, 10, 0), "cost_usd": 0.1,
         "calls": 3, "filtered_cost_usd": 0.05},
    ])
    md = top_runs_markdown(df, filtered=True)
    lines = md.splitlines()
    assert len(lines) == 4 and lines[0].startswith("| Run | Trace |") and "Filtered" in lines[0]
    assert "[#7](run?run=7)" in lines[2] and "[timeline](traces?run=7)" in lines[2]
    # A title can neither add a cell nor a link nor markup.
    assert lines[2].count(" | ") == lines[0].count(" | ")
    assert "\\[click\\]" in lines[2] and "\\*\\*bold" in lines[2]
    assert "$0.5123" in lines[2] and "2026-03-01 09:05" in lines[2] and lines[2].endswith("| – |")
    assert "$0.0500" in lines[3] and "Awaiting review" in lines[3]
    assert "Filtered" not in top_runs_markdown(df)
