"""The Calibration view: critics' scores against what people then did with the same version,
on runs made through the services (offline backend) and on seed-demo data; the page draws
the chart, the table and links to the versions where critic and people disagreed most."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import text
from streamlit.testing.v1 import AppTest

from db.session import get_engine
from engine import service, views
from engine.calibration import calibration, disagreements
from engine.text import similarity
from tests.test_campaign_pipeline import drive

APP = str(Path(__file__).resolve().parent.parent / "app.py")
ACTOR = "Dr. Lee"


def _protocol(intent: str) -> views.RunDetail:
    run_id = service.start_run(kind="protocol", actor=ACTOR,
                               input={"intent": intent, "audience": "adult students"})
    assert drive(run_id) == "awaiting_review"
    return views.get_run(run_id)


def _score(d: views.RunDetail, name: str) -> float:
    return d.current.scores[name]  # type: ignore[union-attr]


def test_each_outcome_is_counted_against_the_critics_score(db_any: str) -> None:
    a = _protocol("Help a student manage exam panic with paced breathing")
    service.approve(run_id=a.id, actor=ACTOR, expected_version=a.version)
    b = _protocol("Ease sleep worry with scheduled worry time")
    service.request_revision(run_id=b.id, actor=ACTOR, comment="Shorter steps, please.",
                             expected_version=b.version)
    c = _protocol("Notice and name feelings before a hard conversation")
    new = c.current.content.replace("\n", "\n\nTake your time.\n", 1)  # type: ignore[union-attr]
    service.edit(run_id=c.id, actor=ACTOR, content=new, expected_version=c.version)

    rows = {r.outcome: r for r in calibration()
            if r.critic == "safety_guardian" and r.score == "safety"}
    assert set(rows) == {"approved", "sent back", "edited"}
    assert all(r.versions == 1 and r.kind == "protocol" for r in rows.values())
    assert rows["approved"].mean_score == _score(a, "safety")
    assert rows["approved"].disagreement == 1 - _score(a, "safety")
    assert rows["sent back"].disagreement == _score(b, "safety")
    kept = similarity(c.current.content, service_text(c.id))  # type: ignore[union-attr]
    assert 0 < kept < 1 and rows["edited"].mean_kept == kept
    # The critics' prompt version is the one their calls used (the offline default: v1).
    assert {r.prompt_version for r in rows.values()} <= {None, 1}

    worst = disagreements(limit=50)
    assert [w.disagreement for w in worst] == sorted((w.disagreement for w in worst),
                                                     reverse=True)
    assert {(w.run_id, w.outcome) for w in worst} >= {(a.id, "approved"), (b.id, "sent back")}
    assert disagreements(kind="campaign") == [] and disagreements(kind="protocol")


def service_text(run_id: int) -> str:
    return views.get_run(run_id).current.content  # type: ignore[union-attr]


def test_the_page_draws_chart_table_and_links(db_url: str) -> None:
    d = _protocol("Help a student manage exam panic with paced breathing")
    service.reject(run_id=d.id, actor=ACTOR, comment="Not for this client.",
                   expected_version=d.version)
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["reviewer"] = ACTOR
    at.run()
    at.switch_page("pages/calibration.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.get("plotly_chart")
    table = next(m.value for m in at.markdown if m.value.startswith("| critic · score |"))
    head, _, *rows = table.splitlines()
    rejected = head.strip("| ").split(" | ").index("rejected")
    assert {r.strip("| ").split(" | ")[rejected] for r in rows} != {"–"}
    assert not at.dataframe  # a Markdown table: no grid chunks to fetch
    links = next(m.value for m in at.markdown if "](run?run=" in m.value)
    assert f"(run?run={d.id}&version={d.current.version})" in links  # type: ignore[union-attr]


def test_on_seed_demo_data_every_acted_on_version_is_counted(db_url: str) -> None:
    from demo.seed import seed_demo

    seed_demo(calls=3000, runs=150, big_run_calls=300, seed=5)
    rows = calibration()
    assert rows
    with get_engine().connect() as conn:
        approved = conn.execute(text(
            "SELECT COUNT(*) FROM humanaction a JOIN draft d ON d.id = a.draft_id "
            "JOIN score s ON s.draft_id = d.id AND s.source = 'safety_guardian' "
            "WHERE a.action LIKE 'approve%' AND a.action NOT LIKE '%override' "
            "AND d.author_kind = 'agent'")).scalar_one()
    assert approved > 0
    assert sum(r.versions for r in rows if r.critic == "safety_guardian"
               and r.outcome == "approved") == approved
    assert all(0 <= r.disagreement <= 1 and 0 <= r.mean_score <= 1 for r in rows)


def test_a_window_counts_only_what_people_did_in_it(db_any: str) -> None:
    from demo.seed import seed_demo

    seed_demo(calls=3000, runs=150, big_run_calls=300, seed=5)
    since = datetime.now(UTC) - timedelta(days=30)
    naive = since.replace(tzinfo=None)

    def approvals(after: datetime) -> int:
        with get_engine().connect() as conn:
            return conn.execute(text(
                "SELECT COUNT(*) FROM humanaction a JOIN draft d ON d.id = a.draft_id "
                "JOIN score s ON s.draft_id = d.id AND s.source = 'safety_guardian' "
                "WHERE a.action LIKE 'approve%' AND a.action NOT LIKE '%override' "
                "AND d.author_kind = 'agent' AND a.at >= :since"), {"since": after}).scalar_one()

    everything, recent = approvals(datetime(1970, 1, 1)), approvals(naive)
    assert 0 < recent < everything  # the demo spreads its acts over 90 days
    counted = [r for r in calibration(since=since)
               if r.critic == "safety_guardian" and r.outcome == "approved"]
    assert sum(r.versions for r in counted) == recent
    assert sum(r.versions for r in calibration()
               if r.critic == "safety_guardian" and r.outcome == "approved") == everything
    # The worst versions come from the window too: each has an act on it since then.
    worst = disagreements(limit=500, since=since)
    with get_engine().connect() as conn:
        acted = {(r, v) for r, v in conn.execute(text(
            "SELECT d.run_id, d.version FROM humanaction a JOIN draft d ON d.id = a.draft_id "
            "WHERE a.at >= :since"), {"since": naive})}
    assert worst and {(w.run_id, w.version) for w in worst} <= acted


def test_the_table_as_markdown_keeps_one_cell_per_value() -> None:
    import pandas as pd

    from ui.calibration_figures import table_markdown

    table = pd.DataFrame([{"critic · score": "odd|critic · safety", "kind": "protocol",
                           "prompt": "v2", "approved": "0.91 (1,797)", "disagreement": 0.71349,
                           "versions": 7818}])
    head, rule, row = table_markdown(table).splitlines()
    assert head == "| critic · score | kind | prompt | approved | disagreement | versions |"
    assert rule == "|---|---|---|---:|---:|---:|"
    assert row.startswith("| odd\\|critic") and row.endswith("| 0.713 | 7,818 |")
    assert table_markdown(table.iloc[0:0]) == ""
