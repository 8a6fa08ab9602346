"""Campaigns end to end on the offline backend: stages enforced (no skipping, no moving without
a person's approval), the shortlist a person chose reaches OUTREACH, revisions answer notes,
the Evaluator's verdict binds, at most three iterations per stage."""

from __future__ import annotations

from typing import Any

import pytest

from engine import service, views
from engine.checks.follow import FOLLOW_CHECKS
from engine.errors import ApprovalBlocked, InvalidInput, InvalidState
from engine.llm.base import AgentCall, LLMResponse
from engine.llm.offline.backend import OfflineBackend
from engine.loop.leases import claim_run
from engine.loop.supervisor import Supervisor
from engine.pipelines.campaign.brands import list_brands
from engine.pipelines.campaign.creators import parse_shortlist
from engine.pipelines.campaign.models import CampaignInput
from engine.pipelines.campaign.outreach import parse_outreach
from engine.shortlist import edit_shortlist
from tests.factories import review
from tests.utils.scripted import ScriptedModel

ACTOR = "mia (marketing)"


class RecordingOffline(OfflineBackend):
    """The offline backend, keeping every call so a test can read what agents were given."""

    def __init__(self) -> None:
        self.calls: list[AgentCall[Any]] = []

    def generate(self, call: AgentCall[Any]) -> LLMResponse[Any]:
        self.calls.append(call)
        return super().generate(call)


def drive(run_id: int, backend: Any = None) -> str:
    assert claim_run(run_id, "w"), "the run should be queued for a worker"
    return Supervisor(backend or OfflineBackend(), "w").run_until_idle(run_id)


def campaign_input(brand_name: str = "Alma Cafe", **over: Any) -> dict[str, Any]:
    brand = next(b for b in list_brands() if b.name == brand_name)
    data = {"brand_id": brand.id, "brand_name": brand.name,
                "goal": "Bring 300 more students in for weekend brunch this spring",
                "audience": "Students in Rehovot and nearby", "budget": 3000,
                "channels": ["email", "sms", "whatsapp"], "num_creators": 3}
    return data | over


def start(**over: Any) -> int:
    return service.start_run(kind="campaign", input=campaign_input(**over), actor=ACTOR)


def approve_and_advance(run_id: int, backend: Any = None) -> views.RunDetail:
    d = views.get_run(run_id)
    service.approve(run_id=run_id, actor=ACTOR, expected_version=d.version)
    assert drive(run_id, backend) == "awaiting_review"
    return views.get_run(run_id)


def test_a_campaign_goes_through_every_stage_only_on_approval(db_any: str) -> None:
    run_id = start()
    assert drive(run_id) == "awaiting_review"
    d = views.get_run(run_id)
    assert d.stages == ["brief", "creators", "outreach", "plan"]
    assert (d.stage, d.halt_reason) == ("brief", "thresholds_met")
    assert set(d.current.scores) == {"brand_voice", "quality", "completion", "compliance"}  # type: ignore[union-attr]
    for stage in ("creators", "outreach", "plan"):
        d = approve_and_advance(run_id)
        assert d.stage == stage and d.status == "awaiting_review", (stage, d.halt_reason)
        assert d.current is not None and d.current.stage == stage
        assert all(v >= 0.75 for v in d.current.scores.values()), d.current.scores
        assert not [f for f in d.current.flags if f.check not in FOLLOW_CHECKS]
    service.approve(run_id=run_id, actor=ACTOR)
    d = views.get_run(run_id)
    assert d.status == "approved" and d.stage == "plan"
    approvals = [a for a in d.actions if a.action == "approve"]
    assert [d.draft(a.draft_id).stage for a in approvals] == ["brief", "creators", "outreach",  # type: ignore[union-attr]
                                                              "plan"]


def test_the_stage_moves_only_through_the_supervisor(db_url: str) -> None:
    run_id = start()
    # Nothing to approve while the loop has not halted for a person.
    with pytest.raises(InvalidState):
        service.approve(run_id=run_id, actor=ACTOR)
    drive(run_id)
    brief = views.get_run(run_id).current
    service.approve(run_id=run_id, actor=ACTOR)
    d = views.get_run(run_id)
    # Approved, but still in BRIEF until the supervisor's advance step runs.
    assert (d.status, d.stage, d.next_node) == ("queued", "brief", "advance")
    with pytest.raises(InvalidState):
        service.approve(run_id=run_id, actor=ACTOR)
    drive(run_id)
    d = views.get_run(run_id)
    assert d.stage == "creators" and d.iteration == 1
    # An earlier stage's version cannot be approved into this one (no skipping).
    with pytest.raises(InvalidState, match="belongs to stage brief"):
        service.approve(run_id=run_id, actor=ACTOR, draft_id=brief.id)  # type: ignore[union-attr]
    assert views.get_run(run_id).stage == "creators"


def test_revision_and_edit_stay_in_the_stage(db_url: str) -> None:
    run_id = start()
    drive(run_id)
    service.request_revision(run_id=run_id, actor=ACTOR,
                             comment="Mention the student discount on weekdays.")
    drive(run_id)
    d = views.get_run(run_id)
    assert d.stage == "brief" and d.status == "awaiting_review"
    assert "The student discount on weekdays" in d.current.content  # type: ignore[union-attr]
    edited = d.current.content.replace("## Timeline", "## Timeline\n\n- Week 0: kick-off call")  # type: ignore[union-attr]
    service.edit(run_id=run_id, actor=ACTOR, content=edited)
    drive(run_id)
    d = views.get_run(run_id)
    assert d.stage == "brief" and d.halt_reason == "rescored"
    assert d.current.author == ACTOR and "kick-off" in d.current.content  # type: ignore[union-attr]
    service.reject(run_id=run_id, actor=ACTOR, comment="Wrong season")
    assert views.get_run(run_id).stage == "brief"


def test_later_stages_get_the_approved_outputs_of_earlier_ones(db_url: str) -> None:
    backend = RecordingOffline()
    run_id = start()
    drive(run_id, backend)
    brief = views.get_run(run_id).current.content  # type: ignore[union-attr]
    approve_and_advance(run_id, backend)
    creators_call = next(c for c in backend.calls if c.agent == "creator_finder")
    assert creators_call.task.context["brief"] == brief
    assert len(creators_call.task.context["candidates"]) == 15
    assert creators_call.task.context["candidates"][0]["reasons"]
    # The prompt a real model would get carries the same context.
    assert "Approved brief:" in creators_call.messages[1]["content"]
    approve_and_advance(run_id, backend)
    approve_and_advance(run_id, backend)
    plan_call = next(c for c in backend.calls if c.agent == "plan_builder")
    assert plan_call.task.context["brief"] == brief
    assert [e["handle"] for e in plan_call.task.context["shortlist"]]
    assert "## @" in plan_call.task.context["outreach"]


def test_the_persons_shortlist_survives_into_outreach_and_plan(db_url: str) -> None:
    run_id = start()
    drive(run_id)
    d = approve_and_advance(run_id)
    first = [h for h, _ in parse_shortlist(d.current.content)]  # type: ignore[union-attr]
    assert len(first) == 3
    dropped, added = first[0], "@photo.walks.rehovot"
    assert added not in first
    edit_shortlist(run_id=run_id, actor=ACTOR, add=[added], remove=[dropped],
                   expected_version=d.version)
    drive(run_id)
    d = views.get_run(run_id)
    assert d.current.author == ACTOR  # type: ignore[union-attr]
    chosen = [h for h, _ in parse_shortlist(d.current.content)]  # type: ignore[union-attr]
    assert chosen == first[1:] + [added]
    # A plain edit of the Markdown works too: delete a row, add a bare @handle line.
    text = "\n".join(line for line in d.current.content.splitlines()  # type: ignore[union-attr]
                     if f"| {first[1]} |" not in line)
    extra = next(h for h in ("@pastry.notes", "@jerusalem.eats", "@tlv.foodwalks")
                 if h not in chosen)
    text = text.replace("## Also considered", f"- {extra}\n\n## Also considered")
    service.edit(run_id=run_id, actor=ACTOR, content=text)
    drive(run_id)
    chosen = [h for h, _ in parse_shortlist(views.get_run(run_id).current.content)]  # type: ignore[union-attr]
    assert chosen == [first[2], added, extra]

    d = approve_and_advance(run_id)
    doc = parse_outreach(d.current.content)  # type: ignore[union-attr]
    assert doc.shortlist == chosen
    assert {(m.handle, m.channel) for m in doc.messages} == {
        (h, c) for h in chosen for c in ("email", "sms", "whatsapp")}
    d = approve_and_advance(run_id)
    for h in chosen:
        assert f"| {h} (" in d.current.content  # type: ignore[union-attr]
    assert dropped not in d.current.content  # type: ignore[union-attr]


def test_outreach_revision_personalises_the_generic_first_draft(db_url: str) -> None:
    run_id = start()
    drive(run_id)
    approve_and_advance(run_id)
    d = approve_and_advance(run_id)
    outreach = [x for x in d.drafts if x.stage == "outreach"]
    assert len(outreach) == 2
    v1, v2 = outreach
    assert v1.scores["quality"] < 0.75
    notes = [n.text for n in d.notes if n.draft_id == v1.id]
    assert any("Personalise each message" in t for t in notes)
    assert v2.scores["quality"] == 1.0 and d.current_draft_id == v2.id
    assert "posts about" in v2.content and "posts about" not in v1.content


def test_a_banned_claim_in_the_goal_is_flagged_then_rewritten(db_url: str) -> None:
    run_id = start(goal="Guaranteed 500 new brunch customers, risk-free for students")
    drive(run_id)
    d = views.get_run(run_id)
    v1, v2 = [x for x in d.drafts if x.stage == "brief"]
    assert {f.category for f in v1.flags if f.check not in FOLLOW_CHECKS} == {"banned_claim"}
    assert v1.scores["compliance"] < 0.75
    assert any("banned claim" in n.text for n in d.notes if n.draft_id == v1.id)
    assert not [f for f in v2.flags if f.check not in FOLLOW_CHECKS]
    assert d.halt_reason == "thresholds_met"
    assert "uaranteed" not in v2.content and "risk-free" not in v2.content


def test_the_evaluator_verdict_binds_and_three_iterations_is_the_limit(db_url: str) -> None:
    from engine.llm.offline.campaign import evaluator as campaign_evaluator

    def offline(call: AgentCall[Any]) -> Any:
        return call.offline(call.task)  # type: ignore[misc]

    revise = review({"brand_voice": 0.9, "quality": 0.9, "completion": 0.9},
                    [("drafter", "warning", "Sharper objective, please.")], verdict="REVISE")
    def sharper(n: int) -> Any:  # a real revision each time (a repeat would stop as a stall)
        def write(call: AgentCall[Any]) -> Any:
            brief = offline(call)
            return brief.model_copy(update={"objective": brief.objective + " " + " ".join(
                f"Measure {k}: brunch covers on weekend {k} of the spring term, counted at the "
                f"till by the code printed in message {k}, against the same weekend last year, "
                f"and reported to the cafe's manager every Monday morning." for k in
                range(1, 2 * n + 1))})
        return write

    model = ScriptedModel({"brief_writer": [sharper(n) for n in range(3)],
                           "evaluator": [revise] * 3})
    run_id = start()
    drive(run_id, model)
    model.assert_consumed()
    d = views.get_run(run_id)
    assert (d.stage, d.halt_reason, d.iteration) == ("brief", "max_iterations", 3)
    assert len(d.drafts) == 3
    assert d.max_iterations == 3
    # The same scores with a PASS verdict halt at once.
    passing = review({"brand_voice": 0.9, "quality": 0.9, "completion": 0.9}, verdict="PASS")
    model = ScriptedModel({"brief_writer": [offline], "evaluator": [passing]})
    run_id = start()
    drive(run_id, model)
    assert views.get_run(run_id).halt_reason == "thresholds_met"
    assert campaign_evaluator.review_campaign  # the offline Evaluator is the default


def test_campaign_input_is_validated_field_by_field(db_url: str) -> None:
    with pytest.raises(InvalidInput) as exc:
        start(channels=[], budget=0, goal="")
    assert set(exc.value.fields) == {"channels", "budget", "goal"}
    with pytest.raises(InvalidInput) as exc:
        start(channels=["email", "fax"])
    assert "channels.1" in exc.value.fields
    parsed = CampaignInput.model_validate(campaign_input(channels="email, sms, email"))
    assert parsed.channels == ["email", "sms"]


def test_the_run_title_names_the_brand(db_url: str) -> None:
    run_id = start()
    assert views.get_run(run_id).title.startswith("Alma Cafe: Bring 300 more students")


def test_feedback_on_one_stage_does_not_leak_into_the_next(db_url: str) -> None:
    run_id = start()
    drive(run_id)
    service.request_revision(run_id=run_id, actor=ACTOR, comment="Mention the rooftop terrace")
    drive(run_id)
    assert "The rooftop terrace" in views.get_run(run_id).current.content  # type: ignore[union-attr]
    approve_and_advance(run_id)
    d = approve_and_advance(run_id)
    assert d.stage == "outreach"
    assert "rooftop" not in d.current.content.lower()  # type: ignore[union-attr]
    service.request_revision(run_id=run_id, actor=ACTOR, comment="Mention the oat-milk latte")
    drive(run_id)
    body = views.get_run(run_id).current.content  # type: ignore[union-attr]
    assert "also the oat-milk latte." in body and "rooftop" not in body.lower()


def test_approving_a_flagged_campaign_version_names_its_compliance_flags(db_url: str) -> None:
    run_id = start(goal="Guaranteed 500 new brunch customers, risk-free for students")
    drive(run_id)
    v1 = next(x for x in views.get_run(run_id).drafts if x.stage == "brief")
    with pytest.raises(ApprovalBlocked, match=r"1 open compliance flag\(s\) \(banned_claim\)"):
        service.approve(run_id=run_id, actor=ACTOR, draft_id=v1.id)
