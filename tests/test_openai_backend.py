"""The openai backend against a fake OpenAI-compatible server over real HTTP: no network, no key."""

from __future__ import annotations

import socket
import threading
import time
from typing import Literal

import openai
import pytest
from pydantic import BaseModel, Field

from engine.llm.base import AgentCall, LLMError
from engine.llm.factory import backend_from_env
from engine.llm.openai_backend import OpenAIBackend
from engine.pipelines.base import NoteOut, Review, ScoreOut
from testkit.fake_openai import FakeOpenAI, Reply, example_from_schema

KEY = "sk-test-4f9b2c1d8e7a6b5c"


class Verdict(BaseModel):
    """A small local output type with constraints the fake server must respect."""

    label: Literal["approve", "revise"]
    confidence: float = Field(ge=1, le=5)
    reasons: list[str]
    comment: str | None


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "OPENAI_MODEL",
        "DRAFTROOM_BACKEND",
        "DRAFTROOM_LLM_TIMEOUT",
        "DRAFTROOM_LLM_RETRIES",
        "OPENAI_ORG_ID",
        "OPENAI_PROJECT_ID",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server(fake_openai_server: FakeOpenAI) -> FakeOpenAI:
    return fake_openai_server


def backend(server: FakeOpenAI, **kw: object) -> OpenAIBackend:
    kw.setdefault("api_key", KEY)
    kw.setdefault("max_retries", 1)
    kw.setdefault("timeout", 5.0)
    return OpenAIBackend(base_url=server.url, **kw)  # type: ignore[arg-type]


def review_call(text: str = "Draft: breathe in for four, out for six.") -> AgentCall[Review]:
    return AgentCall(
        agent="safety_guardian",
        messages=[
            {"role": "system", "content": "You are the Safety Guardian. Score the draft."},
            {"role": "user", "content": text},
        ],
        output_type=Review,
        task=Review(scores=[], notes=[], verdict=None),
    )


def verdict_call() -> AgentCall[Verdict]:
    return AgentCall(
        agent="evaluator",
        messages=[{"role": "user", "content": "Judge this."}],
        output_type=Verdict,
        task=Verdict(label="approve", confidence=3, reasons=[], comment=None),
    )


GOOD = Review(
    scores=[ScoreOut(name="safety", value=0.95)],
    notes=[NoteOut(target="drafter", priority="info", text="Clear and safe.")],
    verdict=None,
)


# ------------------------------------------------------------------ happy path


def test_structured_output_is_parsed_into_the_agents_model(server: FakeOpenAI) -> None:
    server.script([Reply.ok(GOOD, cached_tokens=0)])
    result = backend(server, model="gpt-4.1-mini").generate(review_call())

    assert result.output == GOOD
    assert result.model == "gpt-4.1-mini"
    assert result.attempts == 1
    assert result.raw_text == GOOD.model_dump_json()
    assert result.usage.prompt_tokens > 0 and result.usage.completion_tokens > 0

    (req,) = server.chat_requests
    assert req.model == "gpt-4.1-mini"
    assert req.body["max_completion_tokens"] == 2000
    fmt = req.body["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
    assert req.headers["authorization"] == f"Bearer {KEY}"


def test_default_answer_is_generated_from_the_requested_schema(server: FakeOpenAI) -> None:
    out = backend(server).generate(verdict_call()).output
    assert out.label == "approve"
    assert 1 <= out.confidence <= 5
    assert 1 <= len(out.reasons) <= 3
    assert out.comment  # anyOf [string, null] -> the non-null branch

    review = backend(server).generate(review_call()).output
    assert review.scores and all(0 <= s.value <= 1 for s in review.scores)


def test_responder_answers_from_the_request(server: FakeOpenAI) -> None:
    def responder(request: dict) -> Review:
        draft = request["messages"][-1]["content"]
        value = 0.3 if "stop your medication" in draft else 0.9
        return Review(scores=[ScoreOut(name="safety", value=value)], notes=[], verdict=None)

    server.responder = responder
    b = backend(server)
    assert b.generate(review_call("stop your medication today")).output.scores[0].value == 0.3
    assert b.generate(review_call("take a short walk")).output.scores[0].value == 0.9


def test_usage_reports_cached_tokens_and_tolerates_missing_usage(server: FakeOpenAI) -> None:
    server.script([Reply.ok(GOOD, cached_tokens=128), Reply.ok(GOOD, usage=False)])
    b = backend(server)
    first = b.generate(review_call())
    assert first.usage.cached_tokens == 128
    assert first.usage.prompt_tokens >= 128
    second = b.generate(review_call())
    assert (
        second.usage.prompt_tokens,
        second.usage.cached_tokens,
        second.usage.completion_tokens,
    ) == (0, 0, 0)


def test_repeated_prompt_prefix_shows_up_as_cached_tokens(server: FakeOpenAI) -> None:
    b = backend(server)
    assert b.generate(review_call("first draft")).usage.cached_tokens == 0
    # Same system prompt (and response_format), new user message: the prefix is cached.
    again = b.generate(review_call("second draft"))
    assert 0 < again.usage.cached_tokens < again.usage.prompt_tokens


# ------------------------------------------------------------------ retries (the SDK's)


def test_rate_limit_is_retried_after_the_servers_retry_after(server: FakeOpenAI) -> None:
    server.script([Reply.rate_limit(retry_after=1), Reply.ok(GOOD)])
    started = time.monotonic()
    result = backend(server).generate(review_call())
    assert result.output == GOOD
    assert result.attempts == 2
    # The SDK's own backoff for a first retry is under 0.5 s; waiting >= 1 s means it
    # honoured Retry-After.
    assert time.monotonic() - started >= 1.0


def test_rate_limit_that_persists_is_a_rate_limit_error(server: FakeOpenAI) -> None:
    server.script([Reply.rate_limit(retry_after=0.01)] * 2)
    with pytest.raises(LLMError) as e:
        backend(server, max_retries=1).generate(review_call())
    assert e.value.kind == "rate_limit"
    assert e.value.attempts == 2
    assert server.url in e.value.message


def test_server_error_then_ok_is_retried(server: FakeOpenAI) -> None:
    server.script([Reply.server_error(), Reply.ok(GOOD)])
    result = backend(server).generate(review_call())
    assert result.output == GOOD
    assert result.attempts == 2


def test_server_error_that_persists_names_server_and_model(server: FakeOpenAI) -> None:
    server.script([Reply.server_error(502, "upstream exploded")] * 2)
    with pytest.raises(LLMError) as e:
        backend(server, model="llama3.1:8b", max_retries=1).generate(review_call())
    assert e.value.kind == "server"
    assert e.value.attempts == 2
    assert "502" in e.value.message and "llama3.1:8b" in e.value.message
    assert server.url in e.value.message


def test_hang_times_out_with_a_clear_message(
    server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DRAFTROOM_LLM_TIMEOUT", "0.5")
    monkeypatch.setenv("DRAFTROOM_LLM_RETRIES", "1")
    server.script([Reply.hang(), Reply.hang()])
    b = OpenAIBackend(base_url=server.url, api_key=KEY)
    assert (b.timeout, b.max_retries) == (0.5, 1)
    started = time.monotonic()
    with pytest.raises(LLMError) as e:
        b.generate(review_call())
    assert time.monotonic() - started < 10
    assert e.value.kind == "timeout"
    assert e.value.attempts == 2
    assert server.url in e.value.message and "0.5 s" in e.value.message


def test_slow_answer_within_the_timeout_succeeds(server: FakeOpenAI) -> None:
    server.script([Reply.delay(0.2, Reply.ok(GOOD))])
    assert backend(server, timeout=2.0).generate(review_call()).output == GOOD


def test_connection_reset_is_retried(server: FakeOpenAI) -> None:
    server.script([Reply.reset(), Reply.ok(GOOD)])
    result = backend(server).generate(review_call())
    assert result.output == GOOD
    assert result.attempts == 2


def test_connection_reset_every_time_is_a_connection_error(server: FakeOpenAI) -> None:
    server.script([Reply.reset(), Reply.reset()])
    with pytest.raises(LLMError) as e:
        backend(server, max_retries=1).generate(review_call())
    assert e.value.kind == "connection"
    assert e.value.message.startswith(f"Could not reach {server.url}")


def test_nothing_listening_is_a_connection_error() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    b = OpenAIBackend(base_url=f"http://127.0.0.1:{port}/v1", api_key=KEY, max_retries=0)
    with pytest.raises(LLMError) as e:
        b.generate(review_call())
    assert e.value.kind == "connection"
    assert f"127.0.0.1:{port}" in e.value.message


# ------------------------------------------------------------------ JSON-mode fallback


def test_json_schema_rejected_falls_back_to_json_mode_and_remembers(server: FakeOpenAI) -> None:
    server.script([Reply.reject_json_schema(), Reply.ok(GOOD)])
    b = backend(server)
    result = b.generate(review_call())
    assert result.output == GOOD
    assert result.attempts == 2

    first, second = server.chat_requests
    assert first.response_format_type == "json_schema"
    assert second.response_format_type == "json_object"
    system = second.messages[0]
    assert system["role"] == "system"
    assert system["content"].startswith("You are the Safety Guardian.")
    assert '"scores"' in system["content"]  # the schema travels in the prompt

    server.clear()
    assert b.generate(review_call()).attempts == 1
    assert [r.response_format_type for r in server.chat_requests] == ["json_object"]


def test_server_without_structured_outputs_gets_schema_valid_answers() -> None:
    with FakeOpenAI(json_schema_supported=False) as server:
        b = backend(server)
        out = b.generate(verdict_call()).output
        assert out.label == "approve" and 1 <= out.confidence <= 5
        assert b.mode == "json_object"


def test_server_error_about_response_format_falls_back_at_once_and_is_never_retried(
    server: FakeOpenAI,
) -> None:
    """A 500 that names the response format is a refusal, not a hiccup: retrying it (as the
    SDK's own retries did, three times with backoff) only pays for it again."""
    msg = "Internal error: unsupported response_format json_schema"
    server.script([Reply.server_error(500, msg), Reply.ok(GOOD)])
    b = backend(server, max_retries=3)
    result = b.generate(review_call())
    assert result.output == GOOD
    assert [r.response_format_type for r in server.chat_requests] == [
        "json_schema",
        "json_object",
    ]
    assert [(a.kind, a.outcome, a.http_status) for a in result.attempt_log] == [
        ("first", "unsupported", 500),
        ("fallback", "ok", 200),
    ]
    assert b.mode == "json_object"


def test_server_without_json_mode_either_gets_the_schema_in_the_prompt() -> None:
    with FakeOpenAI(json_schema_supported=False, json_object_supported=False) as server:
        b = backend(server)
        assert b.generate(review_call()).output.scores
        assert b.mode == "prompt"
        assert server.chat_requests[-1].response_format_type is None


def test_context_too_long_is_a_clear_error_and_not_remembered(server: FakeOpenAI) -> None:
    too_long = "This model's maximum context length is 8192 tokens."
    server.script([Reply.status(400, too_long)])
    b = backend(server)
    with pytest.raises(LLMError) as e:
        b.generate(review_call())
    assert e.value.kind == "context_length"
    assert "maximum context length" in e.value.message and "context window" in e.value.message
    assert len(server.chat_requests) == 1  # never retried, never a fallback
    assert b.mode == "schema"


def test_bad_request_unrelated_to_format_is_reported_and_not_remembered(
    server: FakeOpenAI,
) -> None:
    server.script([Reply.status(400, "messages[1].role: unknown role 'critic'")])
    b = backend(server)
    with pytest.raises(LLMError) as e:
        b.generate(review_call())
    assert e.value.kind == "bad_request" and "unknown role" in e.value.message
    assert len(server.chat_requests) == 1
    assert b.mode == "schema"


def test_code_fences_around_json_mode_answers_are_tolerated(server: FakeOpenAI) -> None:
    server.script(
        [
            Reply.reject_json_schema(),
            Reply.content(f"```json\n{GOOD.model_dump_json(indent=2)}\n```"),
        ]
    )
    assert backend(server).generate(review_call()).output == GOOD


# ------------------------------------------------------------------ malformed output


def test_malformed_output_is_repaired_once(server: FakeOpenAI) -> None:
    server.script([Reply.malformed(), Reply.ok(GOOD)])
    result = backend(server).generate(review_call())
    assert result.output == GOOD
    assert result.attempts == 2
    assert result.raw_text == GOOD.model_dump_json()

    repair = server.chat_requests[1]
    assert repair.response_format_type == "json_schema"
    assert repair.messages[-2]["role"] == "assistant"
    assert repair.messages[-2]["content"].startswith('{"scores": [')
    assert "not valid JSON" in repair.messages[-1]["content"]


def test_malformed_twice_is_a_clear_error(server: FakeOpenAI) -> None:
    server.script([Reply.malformed(), Reply.schema_violation()])
    with pytest.raises(LLMError) as e:
        backend(server, model="qwen2.5:3b").generate(review_call())
    assert e.value.kind == "malformed"
    assert e.value.attempts == 2
    msg = e.value.message
    assert "qwen2.5:3b" in msg and "safety_guardian" in msg and "Review" in msg
    assert "scores" in msg  # says which field was wrong
    assert len(server.chat_requests) == 2  # exactly one repair


@pytest.mark.parametrize("bad", [Reply.empty(), Reply.not_json(), Reply.schema_violation()])
def test_other_bad_outputs_are_repaired(server: FakeOpenAI, bad) -> None:
    server.script([bad, Reply.ok(GOOD)])
    assert backend(server).generate(review_call()).output == GOOD


def test_malformed_in_json_mode_is_repaired_in_json_mode(server: FakeOpenAI) -> None:
    server.script([Reply.reject_json_schema(), Reply.schema_violation(), Reply.ok(GOOD)])
    assert backend(server).generate(review_call()).output == GOOD
    assert [r.response_format_type for r in server.chat_requests] == [
        "json_schema",
        "json_object",
        "json_object",
    ]
    assert "does not match the schema" in server.chat_requests[-1].messages[-1]["content"]


def test_raw_control_characters_in_strings_are_tolerated_without_a_repair(
    server: FakeOpenAI,
) -> None:
    server.script([Reply.control_chars(GOOD.model_dump())])
    result = backend(server).generate(review_call())
    assert len(server.chat_requests) == 1
    assert result.output.scores[0].name == "safety\nsecond line\tafter a tab"  # BEL dropped


def test_cut_off_at_the_token_limit_is_a_length_error(server: FakeOpenAI) -> None:
    server.script([Reply.length()])
    with pytest.raises(LLMError) as e:
        backend(server).generate(review_call())
    assert e.value.kind == "length"
    assert "2000" in e.value.message


# ------------------------------------------------------------------ refusals and auth


def test_refusal_is_reported_with_the_models_words(server: FakeOpenAI) -> None:
    server.script([Reply.refusal("I can't assist with that request.")])
    with pytest.raises(LLMError) as e:
        backend(server).generate(review_call())
    assert e.value.kind == "refusal"
    assert "I can't assist with that request." in e.value.message


def test_content_filter_is_a_refusal(server: FakeOpenAI) -> None:
    server.script([Reply.content_filter()])
    with pytest.raises(LLMError) as e:
        backend(server).generate(review_call())
    assert e.value.kind == "refusal"


def test_rejected_key_names_the_server_but_never_the_key() -> None:
    with FakeOpenAI(api_key="sk-the-right-one") as server:
        with pytest.raises(LLMError) as e:
            backend(server).generate(review_call())
        assert e.value.kind == "auth"
        assert e.value.message == f"The API key was rejected by {server.url}."
        assert KEY not in str(e.value) and KEY not in repr(e.value)
        # The key travelled in the Authorization header, and the server log never shows it.
        assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"
        assert server.log and all(KEY not in line for line in server.log)


def test_unknown_model_is_not_found() -> None:
    with FakeOpenAI(models=["gpt-4.1-mini"]) as server:
        with pytest.raises(LLMError) as e:
            backend(server, model="gpt-9-ultra").generate(review_call())
        assert e.value.kind == "not_found"
        assert e.value.message == f"Model 'gpt-9-ultra' was not found on {server.url}."
        assert len(server.chat_requests) == 1  # a 404 is not retried


def test_wrong_base_url_path_hints_at_v1(server: FakeOpenAI) -> None:
    b = OpenAIBackend(base_url=server.url + "/api", api_key=KEY, max_retries=0)
    with pytest.raises(LLMError) as e:
        b.generate(review_call())
    assert e.value.kind == "not_found"
    assert "/v1" in e.value.message and "Unknown path" in e.value.message


# ------------------------------------------------------------------ configuration


def test_settings_come_from_the_environment(
    server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    monkeypatch.setenv("OPENAI_MODEL", "llama3.1:8b")
    b = OpenAIBackend()
    assert (b.name, b.model, b.base_url) == ("openai", "llama3.1:8b", server.url)
    assert (b.timeout, b.max_retries) == (60.0, 3)
    b.generate(review_call())
    # A local server needs no key; the SDK still sends one.
    assert server.requests[0].headers["authorization"] == "Bearer not-needed"


def test_bad_timeout_setting_is_explained(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DRAFTROOM_LLM_TIMEOUT", "soon")
    with pytest.raises(ValueError, match="DRAFTROOM_LLM_TIMEOUT"):
        OpenAIBackend(api_key=KEY)


def test_no_key_and_no_server_is_an_auth_error() -> None:
    with pytest.raises(LLMError) as e:
        OpenAIBackend()
    assert e.value.kind == "auth" and "OPENAI_API_KEY" in e.value.message


def test_factory_picks_openai_when_configured_unless_forced_offline(
    server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert backend_from_env().name == "offline"
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    assert isinstance(backend_from_env(), OpenAIBackend)
    monkeypatch.delenv("OPENAI_BASE_URL")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    assert backend_from_env().name == "openai"
    monkeypatch.setenv("DRAFTROOM_BACKEND", "offline")
    assert backend_from_env().name == "offline"


def test_concurrent_calls_count_their_own_attempts() -> None:
    with FakeOpenAI(latency=0.2) as server:
        b = backend(server)
        results: list[int] = []
        threads = [
            threading.Thread(target=lambda: results.append(b.generate(review_call()).attempts))
            for _ in range(4)
        ]
        started = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert results == [1, 1, 1, 1]
        assert time.monotonic() - started < 0.2 * 4  # served in parallel, not one by one


# ------------------------------------------------------------------ the fake server itself


def test_fake_server_lists_models_for_the_sdk() -> None:
    with FakeOpenAI(models=["a-model", "b-model"]) as server:
        client = openai.OpenAI(base_url=server.url, api_key=KEY, max_retries=0)
        assert [m.id for m in client.models.list()] == ["a-model", "b-model"]


def test_example_from_schema_respects_ranges_enums_and_nullables() -> None:
    example = example_from_schema(Verdict.model_json_schema())
    assert Verdict.model_validate(example).label == "approve"
    assert example["confidence"] == pytest.approx(4.6)
    assert example["comment"] is not None
    assert Review.model_validate(example_from_schema(Review.model_json_schema()))
