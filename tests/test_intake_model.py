"""The intake's extractor on a real model's path: structured output from the fake
OpenAI-compatible server (testkit/fake_openai) through the LLM layer, each call recorded, and
the model's values read by the same readers as the offline rules (a budget of "lots" is a
question back, not a stored value)."""

from __future__ import annotations

import json

from sqlmodel import select

from db.models import LLMCall
from db.session import session_scope
from engine.intake import service
from engine.llm.openai_backend import OpenAIBackend
from testkit.fake_openai import FakeOpenAI, Reply

ACTOR = "Maya"


def _backend(server: FakeOpenAI) -> OpenAIBackend:
    return OpenAIBackend(base_url=server.url, api_key="sk-test-intake-1234", max_retries=0,
                         timeout=5.0)


def test_a_models_structured_output_becomes_records_and_questions(
        db_url: str, fake_openai_server: FakeOpenAI) -> None:
    server = fake_openai_server
    server.script([Reply.ok({"values": [
        {"field": "business_name", "value": "Quill & Ink", "source": "user_input"},
        {"field": "sells", "value": "fountain pens and notebooks", "source": "user_input"},
        {"field": "budget", "value": "lots", "source": "user_input"}],
        "confirms": False, "brand": None})])
    view = service.start_intake(actor=ACTOR)
    view = service.send_message(intake_id=view.id, actor=ACTOR, backend=_backend(server),
                                text="Quill & Ink here, pens and notebooks, budget is lots")
    assert view.values == {"business_name": "Quill & Ink", "sells": "Fountain pens and notebooks"}
    assert {r.source for r in view.records} == {"user_input"}
    assert {r.message_index for r in view.records} == {1}
    assert "amount in US dollars" in view.messages[-1].text and view.messages[-1].asks == ["budget"]
    sent = server.chat_requests[-1].body
    schema = json.dumps(sent.get("response_format") or sent)
    assert "business_name" in schema and "confirms" in schema  # the fields spec, as a schema
    user = json.loads(sent["messages"][-1]["content"])
    assert user["message"].startswith("Quill & Ink") and user["asked"] == ["business_name"]
    with session_scope() as s:
        call = s.exec(select(LLMCall).where(LLMCall.agent == "intake_extractor")).one()
    assert (call.kind, call.backend, call.status, call.run_id) == ("intake", "openai", "ok", None)


def test_a_confirmation_from_the_model_only_counts_when_the_card_was_shown(
        db_url: str, fake_openai_server: FakeOpenAI) -> None:
    server = fake_openai_server
    server.script([Reply.ok({"values": [], "confirms": True, "brand": None})])
    view = service.start_intake(actor=ACTOR)
    view = service.send_message(intake_id=view.id, actor=ACTOR, backend=_backend(server),
                                text="yes")
    assert view.status == "open" and not any(m.signal for m in view.messages)
    assert all(r.source != "user_confirmation" for r in view.records)


def test_a_models_business_kind_is_not_what_it_sells(
        db_url: str, fake_openai_server: FakeOpenAI) -> None:
    """The card once read "What it sells: Small yoga studio"; a model that returns the kind as
    what it sells gets its trade kept instead, recorded as an inference."""
    server = fake_openai_server
    server.script([Reply.ok({"values": [
        {"field": "business_name", "value": "Juniper Yoga", "source": "user_input"},
        {"field": "sells", "value": "Small yoga studio", "source": "user_input"}],
        "confirms": False, "brand": None})])
    view = service.start_intake(actor=ACTOR)
    view = service.send_message(intake_id=view.id, actor=ACTOR, backend=_backend(server),
                                text="Juniper Yoga, a small yoga studio")
    assert view.values["sells"] == "Yoga"
    assert {(r.field, r.source) for r in view.records} == {("business_name", "user_input"),
                                                           ("sells", "inference")}
