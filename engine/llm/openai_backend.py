"""The openai backend: any OpenAI-compatible server, answers parsed into the agent's pydantic model.

Order of attempts for one call, skipping what the server is known to refuse (Capabilities,
shared by every worker through the database):
1. structured outputs (a strict json_schema);
2. JSON mode with the schema in the system message;
3. the schema in the prompt and no response_format.
A refusal of a response format or a parameter is learned from its first answer and never
retried. Malformed output (bad JSON, schema violation) gets exactly one repair request.
Transient failures (connection, timeout, 408, 409, 429, 5xx) are retried here, with the
SDK's backoff and Retry-After rules, so that every HTTP request is seen and costed: the
call's Attempt log holds each one's status, tokens and latency.
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from functools import partial
from typing import Any

import openai
from openai.lib._parsing import type_to_response_format_param

from engine.config import settings
from engine.llm import openai_errors as oe
from engine.llm.base import (
    AgentCall,
    Attempt,
    AttemptKind,
    LLMError,
    LLMResponse,
    T,
    Usage,
    now,
    total_usage,
)
from engine.llm.capabilities import Capabilities
from engine.llm.json_output import (
    Malformed,
    content_of,
    repair_messages,
    validate,
    with_schema_in_system,
)
from engine.llm.openai_env import DEFAULT_MODEL
from engine.llm.openai_errors import Unsupported

POLL_S = 0.2
"""How often a request that can be cancelled (a person may halt the run) looks up."""

MODES = (("schema", "json_schema"), ("json_object", "json_object"), ("prompt", None))
LEARNED_PARAMS = ("max_completion_tokens", "max_tokens", "temperature", "stream", "stream_options")
"""Parameters a server may refuse for good: the request goes again without them, learned."""


class _Cancelled(Exception):
    pass


class _Mark:
    """Started when a request goes out; called once with how it ended, it logs the Attempt."""

    def __init__(self, log: list[Attempt], kind: AttemptKind, mode: str) -> None:
        self.log, self.kind, self.mode = log, kind, mode
        self.started, self.t0 = now(), time.perf_counter()

    def __call__(self, outcome: str, status: int | None, usage: Usage | None = None,
                 error: str | None = None) -> None:
        ms = (time.perf_counter() - self.t0) * 1000
        self.log.append(Attempt(self.kind, outcome, self.mode, status, usage or Usage(), ms,
                                self.started, error))


def usage_of(body: Any) -> Usage:
    """Usage of a chat completion's JSON body; servers leave any part of it out."""
    usage = body.get("usage") if isinstance(body, dict) else None
    if not isinstance(usage, dict):
        return Usage()
    prompt = usage.get("prompt_tokens_details") or {}
    completion = usage.get("completion_tokens_details") or {}
    return Usage(
        prompt_tokens=usage.get("prompt_tokens") or 0,
        cached_tokens=prompt.get("cached_tokens") or 0,
        completion_tokens=usage.get("completion_tokens") or 0,
        reasoning_tokens=completion.get("reasoning_tokens") or 0,
    )


class OpenAIBackend:
    """An LLMBackend over the openai SDK; works with any OpenAI-compatible base_url."""

    name = "openai"

    def __init__(
        self,
        *,
        model: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float | None = None,
        max_retries: int | None = None,
        capabilities: Capabilities | None = None,
    ) -> None:
        config = settings()
        self.model = model or config.openai_model or DEFAULT_MODEL
        base_url = base_url or config.openai_base_url
        api_key = api_key or config.openai_api_key
        if api_key is None:
            if base_url is None:
                raise LLMError(
                    "auth",
                    "No OpenAI API key: set OPENAI_API_KEY, or OPENAI_BASE_URL for a local server.",
                )
            api_key = "not-needed"  # local servers (Ollama, vLLM, llama.cpp) ignore the key
        self.timeout = timeout if timeout is not None else config.llm_timeout
        self.max_retries = max_retries if max_retries is not None else config.llm_retries
        self._key = api_key
        # The SDK's own retries are off: a refused response_format must never be retried,
        # and every request must be counted (see openai_errors.retry_delay).
        self.client = openai.OpenAI(
            api_key=api_key, base_url=base_url, timeout=self.timeout, max_retries=0
        )
        self.base_url = str(self.client.base_url).rstrip("/")
        self.caps = capabilities or Capabilities(self.base_url, self.model, db=False)

    def __repr__(self) -> str:
        return (
            f"OpenAIBackend(model={self.model!r}, base_url={self.base_url!r}, mode={self.mode!r})"
        )

    @property
    def mode(self) -> str:
        """The response format calls start with: the best one not known to be refused."""
        return next(m for m, f in MODES if f is None or self.caps.allows(f))

    # -- the protocol --

    def generate(self, call: AgentCall[T]) -> LLMResponse[T]:
        log: list[Attempt] = []
        try:
            for mode, feature in MODES:
                if feature is None:
                    return self._answer(call, mode, log)
                known = self.caps.get(feature)
                if known is None:
                    # The first call to try it goes alone; the others (the critics) wait for
                    # its answer rather than each be refused.
                    with self.caps.probing(feature) as known:
                        if known is None:
                            out = self._try(call, mode, feature, log)
                            if out is not None:
                                return out
                            continue
                if known:
                    out = self._try(call, mode, feature, log)
                    if out is not None:
                        return out
            raise AssertionError("unreachable")  # the prompt mode always returns or raises
        except LLMError as e:
            if not e.attempt_log:  # raised by call.before_attempt (the budget)
                e.attempt_log = log
                e.attempts = len(log)
            raise
        except Malformed as e:
            raise self._error("malformed", log,
                f"Model '{self.model}' on {self.base_url} returned output for {call.agent} that "
                f"does not fit {call.output_type.__name__}, even after a repair request: "
                f"{self._scrub(e.problem)}") from None
        except _Cancelled:
            raise self._error("cancelled", log,
                f"Stopped waiting for model '{self.model}' on {self.base_url}: the run was "
                "halted.") from None
        except openai.APIStatusError as e:
            raise oe.status_error(e, base_url=self.base_url, model=self.model, log=log,
                                  scrub=self._scrub) from None
        except openai.APITimeoutError:
            raise self._error("timeout", log,
                f"Model '{self.model}' on {self.base_url} did not answer within "
                f"{self.timeout:g} s (tried {len(log)} time(s)).") from None
        except openai.APIConnectionError as e:
            cause = e.__cause__
            why = f": {type(cause).__name__}" if cause is not None else ""
            raise self._error("connection", log,
                f"Could not reach {self.base_url} (tried {len(log)} time(s){why}).") from None
        except (openai.OpenAIError, ValueError) as e:
            raise self._not_a_completion(e, log) from None

    def _try(self, call: AgentCall[T], mode: str, feature: str,
             log: list[Attempt]) -> LLMResponse[T] | None:
        """The answer in this mode, or None when the server refused the mode (learned)."""
        try:
            out = self._answer(call, mode, log)
        except Unsupported as u:
            if u.feature != feature:
                raise
            self.caps.learn(feature, False, self._scrub(u.detail)[:300])
            return None
        self.caps.learn(feature, True)
        return out

    # -- one mode: the request, and one repair --

    def _answer(self, call: AgentCall[T], mode: str, log: list[Attempt]) -> LLMResponse[T]:
        base = list(call.messages) if mode == "schema" else with_schema_in_system(call)
        messages = base
        kind: AttemptKind = "first" if not log else "fallback"
        for repair in (False, True):
            body = self._send(call, mode, messages, "repair" if repair else kind, log)
            content, refusal, finish = content_of(body)
            if finish == "length":
                raise self._error("length", log,
                    f"Model '{self.model}' on {self.base_url} ran out of tokens "
                    f"(max {call.max_tokens}) before finishing the answer for {call.agent}.")
            if finish == "content_filter" or refusal:
                why = refusal or "the server's content filter stopped the answer"
                raise self._error("refusal", log,
                    f"Model '{self.model}' on {self.base_url} refused to answer for "
                    f"{call.agent}: {self._scrub(why)[:300]}")
            try:
                output = validate(call.output_type, content)
            except Malformed as e:
                log[-1] = replace(log[-1], outcome="malformed", error=e.problem[:300])
                if repair:
                    raise
                messages = repair_messages(base, e.content, e.problem)
                continue
            return LLMResponse(output=output, model=self.model, usage=total_usage(log),
                               raw_text=content or "", attempts=len(log), attempt_log=log)
        raise AssertionError("unreachable")

    def _params(self, call: AgentCall[Any], mode: str) -> dict[str, Any]:
        params: dict[str, Any] = {}
        if mode == "schema":
            params["response_format"] = type_to_response_format_param(call.output_type)
        elif mode == "json_object":
            params["response_format"] = {"type": "json_object"}
        # Reasoning models refuse max_tokens, some older servers max_completion_tokens.
        if self.caps.allows("max_completion_tokens"):
            params["max_completion_tokens"] = call.max_tokens
        elif self.caps.allows("max_tokens"):
            params["max_tokens"] = call.max_tokens
        temperature = getattr(call, "temperature", None)
        if temperature is not None and self.caps.allows("temperature"):
            params["temperature"] = temperature
        return params

    def _send(self, call: AgentCall[Any], mode: str, messages: list[dict[str, str]],
              kind: AttemptKind, log: list[Attempt]) -> Any:
        """One request (and its retries); every answer or failure is appended to `log`."""
        n = 0
        while True:
            if log and call.before_attempt is not None:
                call.before_attempt(log)
            params = self._params(call, mode)
            mark = _Mark(log, kind if n == 0 else "retry", mode)
            try:
                if call.on_text is not None and self.caps.allows("stream"):
                    params = self._stream_params(params)
                    body = self._request(call, partial(self._stream, call, messages, params))
                    mark("ok", 200, usage_of(body))
                    return body
                raw = self._request(call, partial(
                    self.client.chat.completions.with_raw_response.create,
                    model=self.model, messages=messages, **params))
            except openai.APIStatusError as e:
                feature = oe.refused_feature(e, mode, params)
                detail = self._scrub(oe.error_detail(e))[:300]
                mark("unsupported" if feature else "error", e.status_code, error=detail)
                if feature in LEARNED_PARAMS:
                    self.caps.learn(feature, False, detail)
                    kind = "fallback"  # the same request without it: learned, not retried
                    continue
                if feature is not None:
                    raise Unsupported(feature, detail) from None
                if n < self.max_retries and oe.retryable(e) and not oe.is_context_length(e):
                    time.sleep(oe.retry_delay(n, e))
                    n += 1
                    continue
                raise
            except _Cancelled:
                mark("cancelled", None)
                raise
            except openai.APIConnectionError as e:
                timeout = isinstance(e, openai.APITimeoutError)
                mark("timeout" if timeout else "connection", None, error=type(e).__name__)
                if n < self.max_retries:
                    time.sleep(oe.retry_delay(n, e))
                    n += 1
                    continue
                raise
            body = raw.http_response.json()
            mark("ok", raw.http_response.status_code, usage_of(body))
            if not isinstance(body, dict) or not isinstance(body.get("choices"), list):
                raise self._not_a_completion(TypeError(type(body).__name__), log)
            return body

    def _stream_params(self, params: dict[str, Any]) -> dict[str, Any]:
        out = {**params, "stream": True}
        if self.caps.allows("stream_options"):  # usage in the last chunk
            out["stream_options"] = {"include_usage": True}
        return out

    def _stream(self, call: AgentCall[Any], messages: list[dict[str, str]],
                params: dict[str, Any]) -> dict[str, Any]:
        """One streamed request, assembled into a chat completion's JSON body; the answer so
        far goes to call.on_text as it grows."""
        assert call.on_text is not None
        parts: list[str] = []
        refusal: list[str] = []
        finish: str | None = None
        usage: dict[str, Any] | None = None
        raw = self.client.chat.completions.with_raw_response.create(
            model=self.model, messages=messages, **params)
        if "text/event-stream" not in raw.http_response.headers.get("content-type", ""):
            # A server that ignores `stream` answers whole: use it, and ask no more.
            raw.http_response.read()
            self.caps.learn("stream", False, "answered without streaming")
            return raw.http_response.json()
        stream = raw.parse()
        try:
            for chunk in stream:
                if chunk.usage is not None:
                    usage = chunk.usage.model_dump()
                for choice in chunk.choices or ():
                    if choice.delta.content:
                        parts.append(choice.delta.content)
                        call.on_text("".join(parts), False)
                    if getattr(choice.delta, "refusal", None):
                        refusal.append(choice.delta.refusal or "")
                    finish = choice.finish_reason or finish
        finally:
            stream.close()
        call.on_text("".join(parts), True)
        return {"choices": [{"message": {"content": "".join(parts) if parts else None,
                                         "refusal": "".join(refusal) or None},
                             "finish_reason": finish}], "usage": usage}

    def _request(self, call: AgentCall[Any], send: Any) -> Any:
        """Send; when the run can be halted meanwhile, wait in a thread and look up every
        POLL_S, so a halt stops waiting (the answer, if it comes, is dropped)."""
        if call.cancelled is None:
            return send()
        box: dict[str, Any] = {}
        done = threading.Event()

        def run() -> None:
            try:
                box["value"] = send()
            except BaseException as e:  # noqa: BLE001 - handed to the waiting thread
                box["error"] = e
            done.set()

        threading.Thread(target=run, name="llm-request", daemon=True).start()
        while not done.wait(POLL_S):
            if call.cancelled():
                raise _Cancelled()
        if "error" in box:
            raise box["error"]
        return box["value"]

    # -- errors --

    def _error(self, kind: str, log: list[Attempt], message: str) -> LLMError:
        return LLMError(kind, message, attempts=max(len(log), 1), attempt_log=log)

    def _not_a_completion(self, e: Exception, log: list[Attempt]) -> LLMError:
        return self._error("server", log,
            f"{self.base_url} did not answer like an OpenAI-compatible server for model "
            f"'{self.model}' ({type(e).__name__}: {self._scrub(str(e))[:200]}).")

    def _scrub(self, text: str) -> str:
        if self._key and self._key != "not-needed" and len(self._key) >= 4:
            text = text.replace(self._key, "***")
        return text

