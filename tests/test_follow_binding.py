"""Request coverage and campaign consistency bind (issue 14 item 3): their findings cap the
relevant score for every backend, so a draft that ignores the request never reports
"thresholds met"; the offline drafters answer the fresh requests they were measured on
(tests/data/coverage_fresh.json, tools/evaluate_fresh.py), a comment reported as not applied
stays "not addressed", and the reader's exports leave the team's "Open points" out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine import service, views
from engine.exports.markdown import protocol_markdown
from engine.exports.pdf import parse_handout
from engine.llm.factory import backend_from_env
from engine.loop.leases import claim_run
from engine.loop.supervisor import Supervisor
from engine.pipelines.protocol.text import for_reader
from testkit.fake_openai import running
from testkit.protocol_team import ProtocolTeam
from tools import evaluate_fresh as fresh

FRESH = json.loads((Path(__file__).parent / "data" / "coverage_fresh.json").read_text())


def _ids(cases: list[dict[str, Any]], key: str) -> list[Any]:
    return [pytest.param(c, id=c[key][:60]) for c in cases]


@pytest.mark.parametrize("case", _ids(FRESH["protocol"], "intent"))
def test_offline_protocol_answers_the_fresh_request(db_url: str, case: dict[str, Any]) -> None:
    got = fresh.protocol_case(case)
    assert got["right"], got["why"]
    # The request binds the clinical score: nothing flags a draft that works with it (but one
    # request's trigger, drinking, which the drafter does not echo to the reader).
    assert not got["flagged"] or "drinking" in case["intent"], got["flagged"]


@pytest.mark.parametrize("case", _ids(FRESH["campaign"], "goal"))
def test_offline_campaign_keeps_to_the_fresh_goal(db_url: str, case: dict[str, Any]) -> None:
    got = fresh.campaign_case(case)
    assert got["right"], got["why"]
    assert not got["flagged"], got["flagged"]


def test_a_goal_counting_a_thing_with_a_number_in_it_reaches_the_metrics(db_url: str) -> None:
    """"80 new 10-class passes": the brief wrote no goal line (the count's noun starts with a
    digit), its own check asked for one, the drafter could not, and the run stalled."""
    got = fresh.campaign_case({"brand": "Alma Cafe", "budget": 4000, "num_creators": 3,
                               "goal": "Sell 80 new 10-class passes for our oat-milk latte club "
                                       "by March 31", "channels": ["email", "instagram_dm"],
                               "product": "10-class passes", "numbers": ["80"],
                               "dates": ["March 31"]})
    assert got["right"], got["why"]
    assert not got["flagged"], got["flagged"]


def test_a_comment_reported_as_not_applied_stays_not_addressed(db_url: str) -> None:
    case = {"intent": "Step by step, help my client drive through tunnels again",
            "comment": "Put it in German", "expect": "NOTE"}
    got = fresh.protocol_feedback_case(case)
    assert got["right"]  # said under Open points, not dropped ...
    assert got["flagged"] == ["not addressed: Put it in German"]  # ... but not answered
    assert got["halt"] != "thresholds_met"


def test_a_fee_comment_reaches_the_outreach_and_the_plan(db_url: str) -> None:
    case = dict(FRESH["campaign_feedback"][0])
    got = fresh.campaign_feedback_case(case)
    assert got["right"], got["why"]
    assert not got["flagged"]


class _Sertraline(ProtocolTeam):
    """A model that drafts what was asked but tells the reader to stop their medicine."""

    def __call__(self, request: dict[str, Any]) -> dict[str, Any] | None:
        out = super().__call__(request)
        if out and "steps" in out:
            out = out | {"title": "Riding elevators, one floor at a time",
                         "steps": ["Stand in the lobby and watch the elevator doors open.",
                                   "Step into the elevator and step out again.",
                                   "Ride one floor in the elevator with a friend.",
                                   "Stop taking your sertraline before the ride so you feel "
                                   "everything."]}
        return out


def _use(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-binding-000000")
    monkeypatch.setenv("DRAFTROOM_BACKEND", "openai")


def _drive(run_id: int, configured: bool = False) -> views.RunDetail:
    """Drive the run on the offline backend, or on the one the environment configures."""
    if configured:
        assert claim_run(run_id, "w")
        Supervisor(backend_from_env(), "w").run_until_idle(run_id)
    else:
        fresh._drive(run_id)
    return views.get_run(run_id)


def test_scripted_protocol_model_stopping_medication_is_capped_clinically(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with running(responder=_Sertraline([0.95])) as server:
        _use(monkeypatch, server.url)
        run_id = service.start_run(kind="protocol", actor="dr. lee", input={
            "intent": "Exposure hierarchy for a man afraid of elevators", "audience": "adults"})
        d = _drive(run_id, configured=True)
    assert d.halt_reason != "thresholds_met"
    assert d.current.scores["clinical"] <= 0.2  # type: ignore[union-attr]
    assert not [f for f in d.current.flags if f.check == "request_coverage"]  # type: ignore[union-attr]


def test_scripted_campaign_model_off_the_goal_is_capped(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    case = FRESH["campaign"][2]  # 300 sign-ups for the trail night series by 15 March
    with running() as server:  # every answer built from the schema, whatever the goal
        _use(monkeypatch, server.url)
        run_id = service.start_run(kind="campaign", actor="mia",
                                   input=fresh._campaign_input(case))
        d = _drive(run_id, configured=True)
    cats = {f.category for f in d.current.flags if f.check == "campaign_consistency"}  # type: ignore[union-attr]
    assert {"off_product", "metric_mismatch"} <= cats
    assert d.current.scores["completion"] <= 0.5  # type: ignore[union-attr]
    assert d.halt_reason != "thresholds_met"


def test_the_readers_exports_leave_the_open_points_out(db_url: str) -> None:
    text = ("# Riding elevators\n\n## Purpose\n\nFace it gently.\n\n## Steps\n\n1. Ride one "
            "floor.\n2. Ride two.\n\n## Safety note\n\nCall 988 if you feel unsafe.\n\n"
            '## Open points\n\n- Not applied: "Put it in German"\n')
    assert "Open points" not in for_reader(text) and "Safety note" in for_reader(text)
    run_id = service.start_run(kind="protocol", actor="dr. lee", input={
        "intent": "Exposure hierarchy for a man afraid of elevators", "audience": "adults"})
    d = _drive(run_id)
    service.request_revision(run_id=run_id, actor="dr. lee", comment="Put it in German",
                             expected_version=d.version)
    d = _drive(run_id)
    assert "## Open points" in d.current.content  # type: ignore[union-attr]  # the team sees it
    out = protocol_markdown(d)
    assert "Open points" not in out and "Put it in German" not in out
    handout = parse_handout(for_reader(d.current.content), d.title)  # type: ignore[union-attr]
    assert all("open point" not in s.heading.lower() for s in handout.sections)


def test_a_fee_over_the_budget_a_person_asks_for_is_kept_and_explained_in_the_plan(
        db_url: str) -> None:
    case = {"brand": "Lumen Skin", "goal": "Get people to try our barrier repair cream",
            "channels": ["email", "instagram_dm"], "budget": 3000, "num_creators": 2}
    run_id = service.start_run(kind="campaign", actor="mia", input=fresh._campaign_input(case))
    _drive(run_id)
    d = fresh._approve(run_id)  # creators
    service.request_revision(run_id=run_id, actor="mia", comment="Add @derm.notes.de",
                             expected_version=d.version)
    d = _drive(run_id)
    d = fresh._approve(run_id)  # outreach
    service.request_revision(run_id=run_id, actor="mia", expected_version=d.version,
                             comment="Offer Dr. Vogel her usual fee of 1800 dollars")
    d = _drive(run_id)
    vogel = d.current.content.split("## @derm.notes.de")[1]  # type: ignore[union-attr]
    assert "$1,800" in vogel and not d.current.flags  # type: ignore[union-attr]  # her decision
    plan = fresh._approve(run_id)
    text = plan.current.content  # type: ignore[union-attr]
    assert "| 1,800 |" in text and "@derm.notes.de $1,800" in text.split("## Schedule")[0]
    assert plan.halt_reason == "thresholds_met" and not plan.current.flags  # type: ignore[union-attr]
