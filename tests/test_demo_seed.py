"""seed-demo writes only what the current pipelines and the loop could have written: every
invariant the engine enforces holds on a seeded database (demo/invariants.py), the Run page
knows every name in it, and the checks themselves catch a run that breaks one."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import text

from db.session import get_engine
from demo.invariants import violations
from demo.seed import seed_demo
from engine import prompt_versions
from engine.views import get_run

END = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


@pytest.fixture
def seeded(db_any: str) -> object:
    return seed_demo(calls=6000, runs=300, big_run_calls=300, seed=13, end=END)


def test_every_invariant_holds_on_a_seeded_database(seeded: object) -> None:
    with get_engine().connect() as conn:
        broken = {k: v[:5] for k, v in violations(conn).items() if v}
        kinds = dict(conn.execute(text("SELECT kind, count(*) FROM run GROUP BY kind")).all())
        halts = dict(conn.execute(text(
            "SELECT coalesce(halt_reason, status), count(*) FROM run GROUP BY 1")).all())
        stages = {s for (s,) in conn.execute(text("SELECT DISTINCT stage FROM draft"))}
    assert broken == {}
    # The invariants are not held by leaving things out: both kinds, every campaign stage,
    # runs halted by each reason, budgets reached, failures.
    assert set(kinds) == {"protocol", "campaign"}
    assert {"brief", "creators", "outreach", "plan"} <= stages
    assert {"thresholds_met", "max_iterations", "budget_reached", "approved",
            "rejected"} <= set(halts)
    assert any(h.startswith("error:") for h in halts)


def test_the_run_page_knows_every_name_and_prompts_list_the_versions_used(
        seeded: object) -> None:
    with get_engine().connect() as conn:
        sample = [r for (r,) in conn.execute(text(
            "SELECT min(id) FROM run GROUP BY kind, status, halt_reason"))]
        used = conn.execute(text("SELECT DISTINCT agent, prompt_version FROM llmcall "
                                 "WHERE prompt_version IS NOT NULL")).all()
    for run_id in sample:
        assert get_run(run_id).unknown == [], run_id
    assert used
    for agent, version in used:
        saved = {v.version for v in prompt_versions.list_versions(agent, include_default=False)}
        assert version in saved, (agent, version)


def test_the_checks_catch_a_run_that_breaks_them(db_url: str) -> None:
    seed_demo(calls=600, runs=30, big_run_calls=0, seed=2, end=END, demo_budgets=False)
    with get_engine().begin() as conn:
        run_id = conn.execute(text("SELECT min(id) FROM run")).scalar()
        conn.execute(text("UPDATE run SET budget_usd = 0.0001, cost_usd = cost_usd + 1, "
                          "stage = 'messages' WHERE id = :id"), {"id": run_id})
        found = violations(conn)
    assert found["spend within budget"] == [run_id]
    assert found["cost is the sum of the calls"] == [run_id]
    assert any("run stage" in v and "messages" in v for v in found["names the pipelines define"])
