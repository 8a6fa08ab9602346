"""The campaign agents: the offline Evaluator's scores follow the text (whoever wrote it), the
offline drafters answer notes, and the openai backend runs the same AgentSpecs."""

from __future__ import annotations

from typing import Any

import pytest
from openai.lib._pydantic import to_strict_json_schema

from db.session import session_scope
from engine import service, views
from engine.llm.offline.campaign.brief import draft_brief
from engine.llm.offline.campaign.common import sanitize
from engine.llm.offline.campaign.evaluator import review_campaign
from engine.llm.openai_backend import OpenAIBackend
from engine.loop.leases import claim_run
from engine.loop.supervisor import Supervisor
from engine.pipelines.base import DraftTask, NoteOut, ReviewTask
from engine.pipelines.campaign.brands import list_brands
from engine.pipelines.campaign.spec import CAMPAIGN
from testkit.fake_openai import FakeOpenAI


@pytest.fixture
def alma(db_url: str) -> dict[str, Any]:
    b = next(b for b in list_brands() if b.name == "Alma Cafe")
    return {"brand_id": b.id, "brand_name": b.name, "goal": "Bring students in for weekend brunch",
                "audience": "Students in Rehovot", "budget": 3000, "channels": ["email", "sms"],
                "num_creators": 2}


def _context(run_input: dict[str, Any], stage: str) -> dict[str, Any]:
    """What a step of this stage is given from the database when it opens."""
    with session_scope() as s:
        return CAMPAIGN.context_for_review(s, run_input, stage)


def _scores(stage: str, text: str, run_input: dict[str, Any]) -> dict[str, float]:
    r = review_campaign(ReviewTask(kind="campaign", stage=stage, input=run_input, content=text,
                                   context=_context(run_input, stage)))
    return {s.name: s.value for s in r.scores} | {"PASS": r.verdict == "PASS"}  # type: ignore[dict-item]


def test_the_evaluator_scores_follow_the_text(alma: dict[str, Any]) -> None:
    ctx = _context(alma, "brief")
    brief = CAMPAIGN.stage("brief").to_text(draft_brief(DraftTask(
        kind="campaign", stage="brief", input=alma, iteration=1, context=ctx)), ctx)
    good = _scores("brief", brief, alma)
    assert good == {"brand_voice": 1.0, "quality": 1.0, "completion": 1.0, "PASS": True}

    no_metrics = brief.split("## Success metrics")[0]
    assert _scores("brief", no_metrics, alma)["completion"] == 0.75

    gutted = brief.split("## Deliverables")[0]
    low = _scores("brief", gutted, alma)
    assert low["completion"] <= 0.25 and low["PASS"] is False

    shouty = brief.replace("## Objective\n\n", "## Objective\n\nAN AMAZING, INCREDIBLE offer!! ")
    assert _scores("brief", shouty, alma)["brand_voice"] <= 0.5

    over = brief.replace("| **Total** | **3,000** |", "| **Total** | **9,000** |")
    assert _scores("brief", over, alma)["completion"] == 0.75

    holes = brief.replace("## Audience\n\n", "## Audience\n\n[Name] TODO. ")
    assert _scores("brief", holes, alma)["quality"] == 0.5


def test_outreach_rubric_personalisation_and_coverage(alma: dict[str, Any]) -> None:
    from engine.pipelines.campaign.outreach import render_outreach

    personal = ("Hi Maya! We're Alma Cafe. We love your posts about latte art. Would you post "
                "a reel for $250? It's a paid partnership with #ad. Interested?")
    generic = ("Hi Maya! We're Alma Cafe. We're looking for creators. Would you post a reel "
               "for $250? It's a paid partnership with #ad. Interested?")

    def doc(body: str, channels: tuple[str, ...] = ("email", "sms")) -> str:
        return render_outreach(brand_name="Alma Cafe", shortlist=["@maya.brews"], messages=[
            ("@maya.brews", "Maya Levi", c, "Collab" if c == "email" else None, body)
            for c in channels])

    assert _scores("outreach", doc(personal), alma)["PASS"] is True
    gen = _scores("outreach", doc(generic), alma)
    assert gen["quality"] <= 0.5 and gen["PASS"] is False
    missing = _scores("outreach", doc(personal, ("email",)), alma)
    assert missing["completion"] == 0.75


def test_sanitize_rewrites_only_the_banned_phrases(alma: dict[str, Any]) -> None:
    brand = next(b for b in list_brands() if b.name == "Alma Cafe")
    out = sanitize("Guaranteed results. Our healthiest coffee is here. Come by. It's risk-free.",
                   brand)
    assert out == "Expected results. Come by. It's easy to try."


def test_the_drafter_answers_human_feedback(alma: dict[str, Any]) -> None:
    task = DraftTask(kind="campaign", stage="brief", input=alma, iteration=2,
                     feedback=["Mention the student discount", "What about rainy weekends"],
                     notes=[NoteOut(target="drafter", priority="critical", text="x")],
                     context=_context(alma, "brief"))
    d = draft_brief(task)
    assert "The student discount" in d.key_messages
    assert d.open_points == ["What about rainy weekends"]


def test_output_types_are_strict_schema_friendly() -> None:
    types = {st.drafter.output_type for st in CAMPAIGN.stages} | {
        c.output_type for st in CAMPAIGN.stages for c in st.critics}
    def objects(node: Any) -> list[dict[str, Any]]:
        if isinstance(node, dict):
            here = [node] if node.get("type") == "object" and "properties" in node else []
            return here + [o for v in node.values() for o in objects(v)]
        if isinstance(node, list):
            return [o for v in node for o in objects(v)]
        return []

    for t in types:
        for obj in objects(to_strict_json_schema(t)):
            assert set(obj["required"]) == set(obj["properties"]), t
            assert obj.get("additionalProperties") is False, t


def test_a_stage_runs_on_the_openai_backend(alma: dict[str, Any],
                                            fake_openai_server: FakeOpenAI) -> None:
    """The same AgentSpecs through a real HTTP round trip: prompts rendered, structured
    outputs parsed, the loop decides on them."""
    answers = {
        "campaign strategist": {
            "title": "Campaign brief: Alma Cafe", "objective": "Bring students in for brunch.",
            "audience": "Students in Rehovot.",
            "key_messages": ["Brunch at Alma Cafe", "Bring a friend"],
            "deliverables": ["2 creators, one reel each, tagged #ad"],
            "timeline": ["Week 1: outreach", "Week 2: posts"],
            "budget_split": [{"item": "Creator fees", "amount_usd": 2000},
                             {"item": "Contingency", "amount_usd": 1000}],
            "success_metrics": ["Visits: 200"], "open_points": []},
        "Evaluator": {"scores": [{"name": n, "value": 0.9} for n in
                                 ("brand_voice", "quality", "completion")],
                      "notes": [], "verdict": "PASS"},
    }

    def responder(request: dict[str, Any]) -> dict[str, Any] | None:
        system = str(request["messages"][0]["content"])
        return next((a for key, a in answers.items() if key in system), None)

    fake_openai_server.responder = responder
    run_id = service.start_run(kind="campaign", input=alma, actor="mia")
    assert claim_run(run_id, "w")
    backend = OpenAIBackend(base_url=fake_openai_server.url, api_key="sk-test",
                            model="gpt-4.1-mini")
    assert Supervisor(backend, "w").run_until_idle(run_id) == "awaiting_review"
    d = views.get_run(run_id)
    assert d.halt_reason == "thresholds_met", d.error
    assert "| Creator fees | 2,000 | 67% |" in d.current.content  # type: ignore[union-attr]
    user = fake_openai_server.chat_requests[0].messages[1]["content"]
    assert "Brand profile:" in user and "healthiest coffee" in user  # the claims to avoid
    assert d.cost_usd > 0
