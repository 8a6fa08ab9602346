"""Memory with scopes (issue 18): namespaces per person and per run (get / write / merge /
delete / list, stored in the database, each key with its source); every agent of a campaign
reads the run's shared memory and only its own private memory, and what it was given is
recorded with each of its calls. Private memory never reaches another agent's prompt."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlmodel import select

from db.models import LLMCall
from db.session import session_scope
from engine import service
from engine.errors import InvalidInput, NotFound
from engine.interfaces.cli import main as cli
from engine.llm.openai_backend import OpenAIBackend
from engine.loop.leases import claim_run
from engine.loop.supervisor import Supervisor
from engine.memory import service as memory
from engine.memory import store
from engine.memory.read import load_memory
from engine.memory.store import Scope
from engine.pipelines.campaign.critics import EVALUATOR_PROMPT
from engine.pipelines.campaign.spec import CAMPAIGN, TEAM
from testkit.fake_openai import FakeOpenAI
from tests.test_campaign_pipeline import ACTOR, drive, start


def test_namespaces_per_person_and_per_run(db_url: str) -> None:
    run_id = start()
    mia, run = Scope.user("  Mia "), Scope.run(run_id)
    assert mia.key == "user:mia" and run.key == f"run:{run_id}"
    memory.put(mia, "profile", {"name": "Mia", "tone": "short"}, actor="mia", replace=True)
    memory.put(mia, "profile", {"tone": "warm"}, actor="lee", replace=False)  # merge
    ns = memory.get(Scope.user("MIA"), "profile")
    assert ns is not None and ns.data == {"name": "Mia", "tone": "warm"}
    assert ns.sources["name"]["source"] == "mia, by hand"
    assert ns.sources["tone"]["source"] == "lee, by hand"  # the merge's key, its source
    memory.put(mia, "profile", {"name": "Mia K."}, actor="mia", replace=True)  # write replaces
    assert memory.get(mia, "profile").data == {"name": "Mia K."}  # type: ignore[union-attr]
    memory.put(run, "notes", {"a": 1}, actor="mia", replace=True)
    assert memory.list_namespaces(mia) == ["profile"]
    assert memory.list_namespaces(run) == ["notes"]  # the scopes do not mix
    assert memory.delete(run, "notes") and not memory.delete(run, "notes")
    assert memory.get(run, "notes") is None and memory.list_namespaces(run) == []


def test_bad_memory_input_is_refused_and_stores_nothing(db_url: str) -> None:
    with pytest.raises(InvalidInput, match="a person or a run"):
        memory.scope_of(run_id=1, person="mia")
    with pytest.raises(InvalidInput, match="a person or a run"):
        memory.scope_of()
    with pytest.raises(NotFound, match="Run 999"):
        memory.put(Scope.run(999), "shared", {"x": 1}, actor="mia", replace=True)
    mia = Scope.user("mia")
    with pytest.raises(InvalidInput, match="JSON object"):
        memory.put(mia, "profile", ["not", "an", "object"], actor="mia", replace=True)
    with pytest.raises(InvalidInput, match="namespace"):
        memory.put(mia, " ", {"x": 1}, actor="mia", replace=True)
    with session_scope() as s, pytest.raises(InvalidInput, match="source"):
        store.merge(s.connection(), mia, "profile", {"x": 1}, source=" ")
    assert memory.list_namespaces(mia) == []


def test_memory_on_the_command_line(db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["memory", "merge", "profile", '{"name": "Mia"}', "--user", "mia",
                "--actor", "mia"]) == 0
    assert cli(["memory", "get", "profile", "--user", "mia"]) == 0
    out = capsys.readouterr().out
    got = json.loads(out[out.index("{"):])
    assert got["data"] == {"name": "Mia"} and got["sources"]["name"]["source"] == "mia, by hand"
    assert cli(["memory", "merge", "profile", "lots", "--user", "mia"]) == 2
    assert "not valid JSON" in capsys.readouterr().out
    assert cli(["memory", "list", "--run", "999"]) == 2


def test_the_shared_memory_holds_the_card_the_stage_and_the_people(db_url: str) -> None:
    memory.put(Scope.user(ACTOR), "profile", {"prefers": "first names"}, actor=ACTOR,
               replace=True)
    run_id = start()
    drive(run_id)
    panel = load_memory(run_id)
    assert panel.shared is not None
    shared = {e.key: e for e in panel.shared.entries}
    assert shared["business_card"].value["name"] == "Alma Cafe"
    assert shared["business_card"].source.startswith("brand profile #")
    assert shared["campaign"].value["budget"] == 3000
    assert shared["stage"].value == "brief"
    assert shared["user_profile"].value == {"prefers": "first names"}
    assert "own memory" in shared["user_profile"].source
    assert "decisions" in shared and "thresholds met" in shared["decisions"].value[-1]
    assert set(panel.agents) == {"brief_writer", "marketing_lead"}
    assert panel.user["profile"].data == {"prefers": "first names"}
    # What each call was given, with where it came from: "why did it say that?"
    first = panel.given[0]
    assert first.agent == first.reader == "brief_writer"
    assert first.namespaces == ["shared", "agent:brief_writer"]
    assert first.sources["shared.business_card"].startswith("brand profile #")


SENTINELS = {"creator_finder": "SCOUT-ONLY-7731", "outreach_writer": "WRITER-ONLY-4410",
             "marketing_lead": "LEAD-ONLY-9902"}


def _agent_of(system: str) -> str:
    if system == EVALUATOR_PROMPT:
        return "evaluator"
    return next(s.drafter.name for s in CAMPAIGN.stages if s.drafter.system_prompt == system)


def test_private_memory_never_reaches_another_agents_prompt(
        db_url: str, fake_openai_server: FakeOpenAI) -> None:
    """A whole campaign over HTTP, each agent with a private note only it may see: every
    request the server received, and every call's recorded context, is checked."""
    revised: list[str] = []

    def responder(request: dict[str, Any]) -> dict[str, Any] | None:
        if str(request["messages"][0]["content"]) != EVALUATOR_PROMPT:
            return None  # a drafter: an example from its schema
        # The scout's first shortlist goes back once, so its second attempt reads its notes.
        again = "Stage: creators" in str(request["messages"][1]["content"]) and not revised
        if again:
            revised.append("creators")
        return {"scores": [{"name": n, "value": 0.5 if again else 1.0} for n in
                           ("brand_voice", "quality", "completion")],
                "notes": [], "verdict": "REVISE" if again else "PASS"}

    fake_openai_server.responder = responder
    backend = OpenAIBackend(base_url=fake_openai_server.url, api_key="sk-test",
                            model="gpt-4.1-mini")
    run_id = start(num_creators=2)
    run = Scope.run(run_id)
    for agent, secret in SENTINELS.items():
        memory.put(run, f"agent:{agent}", {"note_to_self": secret}, actor="test",
                   replace=True)
    memory.put(run, "shared", {"house_rule": "SHARED-5150"}, actor="test", replace=True)
    for _ in CAMPAIGN.stages:
        assert claim_run(run_id, "w")
        assert Supervisor(backend, "w").run_until_idle(run_id) == "awaiting_review"
        service.approve(run_id=run_id, actor=ACTOR, override_reason="test: schema examples")
    requests = fake_openai_server.chat_requests
    assert {_agent_of(str(r.messages[0]["content"])) for r in requests} == {
        "brief_writer", "creator_finder", "outreach_writer", "plan_builder", "evaluator"}
    for r in requests:
        me = TEAM.caller(_agent_of(str(r.messages[0]["content"])))
        sent = json.dumps(r.messages)
        assert "SHARED-5150" in sent  # every agent reads the shared memory
        for owner, secret in SENTINELS.items():
            assert (secret in sent) == (owner == me), (me, owner)
    with session_scope() as s:
        calls = list(s.exec(select(LLMCall).where(LLMCall.run_id == run_id)).all())
    assert len(calls) == len(requests)
    private_keys: dict[str, set[str]] = {}
    for c in calls:
        me = TEAM.caller(c.agent)
        given = c.request["context"]["memory"]
        assert given["agent"] == me
        assert given["namespaces"] == ["shared", f"agent:{me}"]
        assert given["shared"]["house_rule"] == "SHARED-5150"
        private_keys.setdefault(me, set()).update(given["private"])
        assert all(k.startswith(("shared.", "private.")) for k in given["sources"])
        for owner, secret in SENTINELS.items():
            assert (secret in json.dumps(c.request)) == (owner == me)
    # The agents' own memory as the loop wrote it: the scout's searches and rejections, each
    # worker's attempts, the lead's evaluations; each seen by its owner only.
    assert {"search_history", "rejected", "attempts"} <= private_keys["creator_finder"]
    assert "evaluations" in private_keys["marketing_lead"]
    for other in ("brief_writer", "outreach_writer", "plan_builder", "marketing_lead"):
        assert not {"search_history", "rejected"} & private_keys[other]


def test_a_campaign_from_the_intake_chat_shares_its_confirmed_card_and_conversation(
        db_url: str) -> None:
    from engine.intake import service as intake
    from tests.test_intake import CONVERSATIONS

    conv = CONVERSATIONS[0]
    view = intake.start_intake(actor="maya")
    for text in conv["messages"]:
        view = intake.send_message(intake_id=view.id, text=text, actor="maya")
    assert view.run_id is not None, view.messages[-1]
    drive(view.run_id)
    panel = load_memory(view.run_id)
    shared = {e.key: e for e in panel.shared.entries}  # type: ignore[union-attr]
    card = intake.confirmed_card(view.run_id)
    assert card is not None
    assert shared["business_card"].value == card.business.model_dump(mode="json")
    assert shared["business_card"].source.startswith(f"intake chat #{view.id}, confirmed by")
    assert shared["confirmed_goal"].value["channels"] == card.campaign.channels
    said = shared["conversation"].value
    assert said[0] == {"who": "onboarding agent", "act": "intake",
                       "said": view.messages[0].text[:500]}
    assert {"who": "maya", "act": "intake", "said": conv["messages"][0][:500]} in said
    # The brief writer was given it: its first call's recorded memory holds the card.
    first = panel.given[0]
    assert first.agent == "brief_writer"
    assert first.sources["shared.business_card"] == shared["business_card"].source
