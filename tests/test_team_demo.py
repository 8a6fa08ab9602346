"""Demo campaigns have their team's messages (engine/team/demo.py, hooked into seed-demo): the
hierarchy, a thread per stage built from the run's own versions, REVISE evaluations that send
work back to the worker, artifacts that open the run's drafts; seeding again doubles nothing,
and the demo's invariants still hold."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import text

from db.session import get_engine
from demo.invariants import violations
from demo.seed import seed_demo
from engine.team.demo import seed_team_messages
from engine.team.read import load_team

END = datetime(2026, 11, 20, tzinfo=UTC)


def test_demo_campaigns_have_their_teams_messages(db_url: str) -> None:
    seed_demo(calls=3000, runs=120, big_run_calls=0, seed=5, end=END, demo_budgets=False)
    with get_engine().connect() as c:
        campaigns = c.execute(text("select id from run where kind = 'campaign'")).scalars().all()
        with_msgs = set(c.execute(text("select distinct run_id from teammessage")).scalars())
        kinds = set(c.execute(text("select r.kind from teammessage m join run r on "
                                   "r.id = m.run_id")).scalars())
        # Every result names a version of its own run and stage.
        strays = c.execute(text(
            "select count(*) from teammessage m join draft d on d.id = m.draft_id "
            "where d.run_id != m.run_id or d.stage != m.stage")).scalar()
        assert not any(violations(c).values()), violations(c)
    assert campaigns and with_msgs == set(campaigns) and kinds == {"campaign"}
    assert strays == 0
    revised = None
    for run_id in campaigns:
        view = load_team(run_id)
        assert view is not None
        by = {m.name: m for m in view.members}
        assert "marketing_lead" in by["orchestrator"].delegated_to
        assert by["brief_writer"].reports_to == "marketing_lead"
        assert view.artifacts and all(a.draft_id for a in view.artifacts)
        msgs = view.messages
        for i, m in enumerate(msgs):
            if m.kind == "evaluation" and m.payload.verdict == "REVISE":  # type: ignore[union-attr]
                nxt = msgs[i + 1]
                assert (nxt.kind, nxt.sender, nxt.recipient) == ("feedback", "marketing_lead",
                                                                 m.recipient)
                revised = run_id
    assert revised is not None, "some demo campaign had a stage revised"
    with get_engine().begin() as c:
        assert seed_team_messages(c) == 0  # runs that have messages are left alone
