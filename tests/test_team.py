"""A campaign is carried by a team (issue 18): the orchestrator hands each stage to the
marketing lead, who delegates to the stage's worker and evaluates its result before anything
reaches a person; a REVISE evaluation sends the work back with the lead's feedback; each
attempt is an artifact to open and diff; a process killed mid-step doubles no message. The
protocol pipeline keeps its own shape (no team)."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from sqlmodel import func, select

from db.models import utcnow
from db.session import session_scope
from db.team_tables import TeamMessage
from engine import service, views
from engine.interfaces.cli import main as cli
from engine.llm.base import AgentCall, LLMResponse
from engine.llm.offline.backend import OfflineBackend
from engine.llm.openai_backend import OpenAIBackend
from engine.loop.leases import claim_run
from engine.loop.supervisor import Supervisor
from engine.loop.worker import Worker
from engine.team.models import EvaluationPayload, FeedbackPayload
from engine.team.read import artifact_diff, load_team
from testkit.fake_openai import FakeOpenAI
from tests.factories import INTENT
from tests.test_campaign_pipeline import ACTOR, approve_and_advance, drive, start
from tests.utils.clock import ManualClock

WORKERS = ["brief_writer", "creator_finder", "outreach_writer", "plan_builder"]


BRIEF: dict[str, Any] = {
    "title": "Campaign brief: Alma Cafe", "objective": "Bring 300 more students in for brunch.",
    "audience": "Students in Rehovot.", "key_messages": ["Brunch at Alma Cafe"],
    "deliverables": ["3 creators, one reel each, tagged #ad"],
    "timeline": ["Week 1: outreach", "Week 2: posts"],
    "budget_split": [{"item": "Creator fees", "amount_usd": 2000},
                     {"item": "Contingency", "amount_usd": 1000}],
    "success_metrics": ["Students: 300"], "open_points": []}


def _thread(run_id: int, stage: str) -> list[tuple[str, str, str]]:
    team = load_team(run_id)
    assert team is not None
    return [(m.kind, m.sender, m.recipient) for m in team.thread(stage)]


def test_a_campaign_is_carried_by_the_team_stage_by_stage(db_url: str) -> None:
    run_id = start()
    assert drive(run_id) == "awaiting_review"
    for _ in range(3):
        approve_and_advance(run_id)
    team = load_team(run_id)
    assert team is not None
    # Who delegated to whom, from the messages themselves.
    assert team.tree("orchestrator") == {"orchestrator": {"marketing_lead": {
        w: {} for w in WORKERS}}}
    assert team.stages == ["brief", "creators", "outreach", "plan"]
    # A stage the lead passed at once: handed down, drafted, evaluated, handed up to people.
    assert _thread(run_id, "brief") == [
        ("task", "orchestrator", "marketing_lead"),
        ("task", "marketing_lead", "brief_writer"),
        ("result", "brief_writer", "marketing_lead"),
        ("evaluation", "marketing_lead", "brief_writer"),
        ("result", "marketing_lead", "orchestrator"),
        ("result", "orchestrator", "person"),
    ]
    # Every call sits under the member that made it: the Evaluator's under the lead.
    lead = team.member("marketing_lead")
    assert lead is not None and lead.calls and {c.agent for c in lead.calls} == {"evaluator"}
    for w in WORKERS:
        m = team.member(w)
        assert m is not None and m.calls and {c.agent for c in m.calls} == {w}
    orch = team.member("orchestrator")
    assert orch is not None and orch.calls == []  # it decides; it calls no model


def test_a_revise_evaluation_returns_the_work_to_the_worker(db_url: str) -> None:
    """Offline, the outreach writer's first attempt is generic; the lead sends it back."""
    run_id = start()
    drive(run_id)
    approve_and_advance(run_id)
    approve_and_advance(run_id)
    team = load_team(run_id)
    assert team is not None
    thread = team.thread("outreach")
    kinds = [(m.kind, m.sender, m.recipient, m.artifact) for m in thread]
    assert kinds[2:7] == [
        ("result", "outreach_writer", "marketing_lead", "outreach_writer v1"),
        ("evaluation", "marketing_lead", "outreach_writer", "outreach_writer v1"),
        ("feedback", "marketing_lead", "outreach_writer", "outreach_writer v1"),
        ("result", "outreach_writer", "marketing_lead", "outreach_writer v2"),
        ("evaluation", "marketing_lead", "outreach_writer", "outreach_writer v2"),
    ]
    first, feedback = thread[3].payload, thread[4].payload
    assert isinstance(first, EvaluationPayload) and first.verdict == "REVISE"
    assert isinstance(feedback, FeedbackPayload)
    assert feedback.attempt == 2 and feedback.max_attempts == 3
    assert feedback.notes and feedback.notes == first.notes  # the lead's notes, passed on
    assert "Generic messages" in " ".join(feedback.notes)
    second = thread[6].payload
    assert isinstance(second, EvaluationPayload) and second.verdict == "PASS"
    # Each attempt is an artifact that opens as its version, and two of them diff.
    arts = {a.key: a for a in team.artifacts}
    assert arts["outreach_writer v1"].verdict == "REVISE"
    assert arts["outreach_writer v2"].verdict == "PASS"
    d = views.get_run(run_id)
    assert arts["outreach_writer v2"].draft_id == d.current_draft_id
    diff = artifact_diff(team, "outreach_writer v1", "outreach_writer v2")
    assert diff.startswith("--- outreach_writer v1\n+++ outreach_writer v2")
    assert any(line.startswith("+") and not line.startswith("+++") for line in diff.split("\n"))


def test_a_persons_comment_goes_down_the_hierarchy(db_url: str) -> None:
    run_id = start()
    drive(run_id)
    d = views.get_run(run_id)
    service.request_revision(run_id=run_id, comment="Mention the rooftop terrace", actor=ACTOR,
                   expected_version=d.version)
    drive(run_id)
    msgs = load_team(run_id).thread("brief")  # type: ignore[union-attr]
    at = next(i for i, m in enumerate(msgs) if m.kind == "feedback")
    assert [(m.kind, m.sender, m.recipient) for m in msgs[at:at + 3]] == [
        ("feedback", "orchestrator", "marketing_lead"),
        ("feedback", "marketing_lead", "brief_writer"),
        ("result", "brief_writer", "marketing_lead")]
    for m in msgs[at:at + 2]:
        assert isinstance(m.payload, FeedbackPayload)
        assert m.payload.from_people == ["Mention the rooftop terrace"]
        assert (m.payload.attempt, m.payload.max_attempts) == (1, 3)
    assert msgs[at + 2].artifact == "brief_writer v2"
    # The comment is relayed once, however many attempts the stage then takes.
    assert sum(m.kind == "feedback" and m.sender == "orchestrator" for m in msgs) == 1


class _Crash(BaseException):
    """Stands for a process killed mid-step: nothing in the loop catches it."""


class _CrashOnce(OfflineBackend):
    def __init__(self, agent: str, stage: str) -> None:
        self.at, self.crashed = (agent, stage), False

    def generate(self, call: AgentCall[Any]) -> LLMResponse[Any]:
        if not self.crashed and (call.agent, call.task.stage) == self.at:
            self.crashed = True
            raise _Crash()
        return super().generate(call)


def test_a_kill_mid_step_loses_and_doubles_no_message(db_url: str) -> None:
    run_id = start()
    drive(run_id)
    approve_and_advance(run_id)
    d = views.get_run(run_id)
    service.approve(run_id=run_id, actor=ACTOR, expected_version=d.version)
    assert claim_run(run_id, "doomed")
    with pytest.raises(_Crash):  # the outreach stage's first evaluation never commits
        Supervisor(_CrashOnce("evaluator", "outreach"), "doomed").run_until_idle(run_id)
    assert [m[0] for m in _thread(run_id, "outreach")] == ["task", "task", "result"]
    later = ManualClock(utcnow() + timedelta(minutes=5))  # past the dead worker's lease
    assert Worker(backend=OfflineBackend(), worker_id="w2",
                  clock=later).run_given(run_id) == "awaiting_review"
    thread = load_team(run_id).thread("outreach")  # type: ignore[union-attr]
    evaluated = [m.artifact for m in thread if m.kind == "evaluation"]
    assert evaluated == ["outreach_writer v1", "outreach_writer v2"]
    results = [m.artifact for m in thread if m.kind == "result" and m.sender != "marketing_lead"
               and m.sender != "orchestrator"]
    assert results == ["outreach_writer v1", "outreach_writer v2"]


def test_the_protocol_pipeline_keeps_its_own_shape(db_url: str) -> None:
    run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
    assert claim_run(run_id, "w")
    Supervisor(OfflineBackend(), "w").run_until_idle(run_id)
    assert load_team(run_id) is None
    with session_scope() as s:
        assert s.exec(select(func.count()).select_from(TeamMessage)).one() == 0


def test_show_json_has_the_team_and_its_artifacts(db_url: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    run_id = start()
    drive(run_id)
    assert cli(["show", str(run_id), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["id"] == run_id and data["drafts"]  # the run itself, as before
    kinds = [(m["kind"], m["sender"], m["recipient"]) for m in data["team"]["messages"]]
    assert kinds[:3] == [("task", "orchestrator", "marketing_lead"),
                         ("task", "marketing_lead", "brief_writer"),
                         ("result", "brief_writer", "marketing_lead")]
    assert data["team"]["messages"][3]["payload"]["verdict"] == "PASS"
    assert [a["key"] for a in data["team"]["artifacts"]] == ["brief_writer v1"]
    assert data["memory"]["shared"]["data"]["business_card"]["name"] == "Alma Cafe"


def test_a_scripted_revise_on_a_real_model_goes_back_with_its_note(
        db_url: str, fake_openai_server: FakeOpenAI) -> None:
    """Over HTTP: the Evaluator says REVISE with a note once; the lead's feedback carries it
    to the brief writer, whose next request has it, and its second attempt passes."""
    verdicts = iter(["REVISE", "PASS"])
    note = "Name the rooftop terrace in the key messages."

    def responder(request: dict[str, Any]) -> dict[str, Any] | None:
        system = str(request["messages"][0]["content"])
        if "Evaluator" not in system:  # the brief writer, applying the note when it has it
            told = note in str(request["messages"][1]["content"])
            return BRIEF | {"key_messages": BRIEF["key_messages"] + (
                ["Brunch on the rooftop terrace"] if told else [])}
        v = next(verdicts, "PASS")
        return {"scores": [{"name": n, "value": 0.9 if v == "PASS" else 0.5}
                           for n in ("brand_voice", "quality", "completion")],
                "notes": [] if v == "PASS" else [
                    {"target": "drafter", "priority": "critical", "text": note}],
                "verdict": v}

    fake_openai_server.responder = responder
    run_id = start()
    assert claim_run(run_id, "w")
    backend = OpenAIBackend(base_url=fake_openai_server.url, api_key="sk-test",
                            model="gpt-4.1-mini")
    Supervisor(backend, "w").run_until_idle(run_id)
    msgs = load_team(run_id).thread("brief")  # type: ignore[union-attr]
    evals = [m.payload for m in msgs if m.kind == "evaluation"]
    assert [e.verdict for e in evals] == ["REVISE", "PASS"]  # type: ignore[union-attr]
    fb = next(m.payload for m in msgs if m.kind == "feedback")
    assert isinstance(fb, FeedbackPayload) and note in fb.notes
    drafter = [r for r in fake_openai_server.chat_requests
               if "Evaluator" not in str(r.messages[0]["content"])]
    assert note not in drafter[0].messages[1]["content"]
    assert note in drafter[1].messages[1]["content"]
