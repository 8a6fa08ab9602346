"""The openai backend: any OpenAI-compatible server, answers parsed into the agent's pydantic model.

Order of attempts for one call:
1. structured outputs (`chat.completions.parse`, a strict json_schema);
2. when the server rejects json_schema: JSON mode with the schema in the system message,
   remembered per backend instance so later calls skip step 1;
3. when the server rejects JSON mode too: the schema in the prompt and no response_format.
Malformed output (bad JSON, schema violation) gets exactly one repair request. Retries of
transport failures, 429 and 5xx are the SDK's own (exponential backoff, honours Retry-After).
"""

from __future__ import annotations

import json
import re
import threading
from typing import Any, Literal

import httpx2
import openai
from openai.types.chat import ChatCompletion
from pydantic import BaseModel, ValidationError

from engine.config import settings
from engine.llm.base import AgentCall, LLMError, LLMResponse, T, Usage

DEFAULT_MODEL = "gpt-4.1-mini"
DEFAULT_TIMEOUT_S = 60.0
DEFAULT_RETRIES = 3

Mode = Literal["schema", "json_object", "prompt"]

# Raw control characters other than tab/newline/CR are never meaningful in a draft; models on
# small local servers emit them now and then, and they make otherwise good JSON invalid.
_JUNK_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_FENCE = re.compile(r"^\s*```(?:json|JSON)?\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)
_SCHEMA_WORDS = ("response_format", "json_schema", "json schema", "structured output", "strict")


class _Malformed(Exception):
    def __init__(self, content: str, problem: str) -> None:
        super().__init__(problem)
        self.content = content
        self.problem = problem


class _FormatRejected(Exception):
    """The server refused the response_format we asked for."""

    def __init__(self, err: openai.APIStatusError) -> None:
        super().__init__(str(err))
        self.err = err


def _schema_of(output_type: type[BaseModel]) -> dict[str, Any]:
    return output_type.model_json_schema()


def _validate(output_type: type[T], content: str | None) -> T:
    """Lenient parse: tolerate code fences and raw control characters, never a wrong shape."""
    if content is None or not content.strip():
        raise _Malformed(content or "", "the reply was empty")
    text = content.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    text = _JUNK_CONTROL.sub("", text)
    try:
        # strict=False lets raw newlines/tabs inside strings through: the model meant them.
        data = json.loads(text, strict=False)
    except json.JSONDecodeError as e:
        raise _Malformed(content, f"the reply is not valid JSON ({e})") from None
    try:
        return output_type.model_validate(data)
    except ValidationError as e:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}"
            for err in e.errors()[:8]
        )
        raise _Malformed(content, f"the reply does not match the schema ({problems})") from None


def _get(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)


def _usage_of(completion: Any) -> Usage:
    """Usage of a ChatCompletion or its raw JSON body; servers leave any part out."""
    usage = _get(completion, "usage")
    if not usage:
        return Usage()
    details = _get(usage, "prompt_tokens_details")
    return Usage(
        prompt_tokens=_get(usage, "prompt_tokens") or 0,
        cached_tokens=(_get(details, "cached_tokens") or 0) if details else 0,
        completion_tokens=_get(usage, "completion_tokens") or 0,
    )


def _add(total: Usage, more: Usage) -> None:
    total.prompt_tokens += more.prompt_tokens
    total.cached_tokens += more.cached_tokens
    total.completion_tokens += more.completion_tokens


def _error_detail(err: openai.APIStatusError) -> str:
    body = err.body
    if isinstance(body, dict):
        msg = body.get("message") or body.get("error") or body
        return msg if isinstance(msg, str) else json.dumps(msg)[:300]
    if isinstance(body, str):
        return body
    return err.message


def _mentions_format(err: openai.APIStatusError) -> bool:
    text = f"{err.message} {_error_detail(err)}".lower()
    return any(w in text for w in _SCHEMA_WORDS)


def _repair_messages(
    messages: list[dict[str, str]], bad: str, problem: str
) -> list[dict[str, str]]:
    return [
        *messages,
        {"role": "assistant", "content": bad},
        {
            "role": "user",
            "content": (
                f"Your previous reply could not be used: {problem}. "
                "Reply again with the corrected JSON object only: no prose, no code fences, "
                "every required field present, strings properly escaped."
            ),
        },
    ]


def _with_schema_in_system(call: AgentCall[Any]) -> list[dict[str, str]]:
    schema = json.dumps(_schema_of(call.output_type), ensure_ascii=False)
    instruction = (
        "Answer with one JSON object only (no prose, no code fences) that validates against "
        f"this JSON Schema:\n```json\n{schema}\n```"
    )
    messages = [dict(m) for m in call.messages]
    for m in messages:
        if m.get("role") == "system":
            m["content"] = f"{m.get('content', '')}\n\n{instruction}"
            return messages
    return [{"role": "system", "content": instruction}, *messages]


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
        self._requests = threading.local()
        self._client = openai.OpenAI(
            api_key=api_key,
            base_url=base_url,
            timeout=self.timeout,
            max_retries=self.max_retries,
            http_client=openai.DefaultHttpxClient(event_hooks={"request": [self._count_request]}),
        )
        self.base_url = str(self._client.base_url).rstrip("/")
        self.mode: Mode = "schema"
        """What the server is known to support; downgraded once, never upgraded."""

    def __repr__(self) -> str:
        return (
            f"OpenAIBackend(model={self.model!r}, base_url={self.base_url!r}, mode={self.mode!r})"
        )

    # -- request counting (the SDK retries inside one call; count every HTTP request) --

    def _count_request(self, request: httpx2.Request) -> None:
        self._requests.n = getattr(self._requests, "n", 0) + 1

    @property
    def _sent(self) -> int:
        return max(getattr(self._requests, "n", 0), 1)

    # -- the protocol --

    def generate(self, call: AgentCall[T]) -> LLMResponse[T]:
        self._requests.n = 0
        usage = Usage()
        try:
            if self.mode == "schema":
                try:
                    return self._structured(call, usage)
                except _FormatRejected:
                    pass
            if self.mode in ("schema", "json_object"):
                try:
                    return self._json(call, usage, json_object=True)
                except _FormatRejected:
                    pass
            return self._json(call, usage, json_object=False)
        except _Malformed as e:
            raise LLMError(
                "malformed",
                f"Model '{self.model}' on {self.base_url} returned output for {call.agent} that "
                f"does not fit {call.output_type.__name__}, even after a repair request: "
                f"{self._scrub(e.problem)}",
                attempts=self._sent,
            ) from None
        except openai.LengthFinishReasonError:
            raise LLMError(
                "length",
                f"Model '{self.model}' on {self.base_url} ran out of tokens "
                f"(max {call.max_tokens}) before finishing the answer for {call.agent}.",
                attempts=self._sent,
            ) from None
        except openai.ContentFilterFinishReasonError:
            raise self._refusal(call, "the server's content filter stopped the answer") from None
        except openai.APIStatusError as e:
            raise self._status_error(e) from None
        except openai.APITimeoutError:
            raise LLMError(
                "timeout",
                f"Model '{self.model}' on {self.base_url} did not answer within "
                f"{self.timeout:g} s (tried {self._sent} time(s)).",
                attempts=self._sent,
            ) from None
        except openai.APIConnectionError as e:
            cause = e.__cause__
            why = f": {type(cause).__name__}" if cause is not None else ""
            raise LLMError(
                "connection",
                f"Could not reach {self.base_url} (tried {self._sent} time(s){why}).",
                attempts=self._sent,
            ) from None
        except openai.OpenAIError as e:
            raise LLMError(
                "server",
                f"Unexpected answer from {self.base_url} for model '{self.model}': "
                f"{self._scrub(str(e))[:300]}",
                attempts=self._sent,
            ) from None

    # -- the three modes --

    def _structured(self, call: AgentCall[T], usage: Usage) -> LLMResponse[T]:
        messages = list(call.messages)
        for attempt in range(2):
            try:
                raw = self._client.chat.completions.with_raw_response.parse(
                    model=self.model,
                    messages=messages,
                    response_format=call.output_type,
                    max_completion_tokens=call.max_tokens,
                )
            except (openai.BadRequestError, openai.UnprocessableEntityError) as e:
                if attempt == 0:
                    raise _FormatRejected(e) from None
                raise
            except openai.InternalServerError as e:
                if attempt == 0 and _mentions_format(e):
                    raise _FormatRejected(e) from None
                raise
            try:
                completion = raw.parse()
            except ValidationError:
                # The SDK's own parse is strict JSON; ours tolerates fences and stray control
                # characters before deciding the output needs repair.
                body = raw.http_response.json()
                _add(usage, _usage_of(body))
                content = self._content_of(body)
            except (openai.LengthFinishReasonError, openai.ContentFilterFinishReasonError):
                raise
            except Exception as e:  # noqa: BLE001 - a body that is not a chat completion at all
                raise self._not_a_completion(e) from None
            else:
                _add(usage, _usage_of(completion))
                message = completion.choices[0].message if completion.choices else None
                if message is not None and message.refusal:
                    raise self._refusal(call, message.refusal)
                if message is not None and message.parsed is not None:
                    return self._response(message.parsed, usage, message.content or "")
                content = message.content if message is not None else None
            try:
                return self._response(_validate(call.output_type, content), usage, content or "")
            except _Malformed as e:
                if attempt == 1:
                    raise
                messages = _repair_messages(list(call.messages), e.content, e.problem)
        raise AssertionError("unreachable")

    def _json(self, call: AgentCall[T], usage: Usage, *, json_object: bool) -> LLMResponse[T]:
        base = _with_schema_in_system(call)
        messages = base
        kwargs: dict[str, Any] = {}
        if json_object:
            kwargs["response_format"] = {"type": "json_object"}
        for attempt in range(2):
            try:
                completion = self._client.chat.completions.create(
                    model=self.model,
                    messages=messages,
                    max_completion_tokens=call.max_tokens,
                    **kwargs,
                )
            except (openai.BadRequestError, openai.UnprocessableEntityError) as e:
                if json_object and attempt == 0 and _mentions_format(e):
                    raise _FormatRejected(e) from None
                raise
            except ValueError as e:  # the SDK could not decode the body
                raise self._not_a_completion(e) from None
            if not isinstance(completion, ChatCompletion) or not isinstance(
                completion.choices, list
            ):
                raise self._not_a_completion(TypeError(type(completion).__name__))
            self.mode = "json_object" if json_object else "prompt"
            _add(usage, _usage_of(completion))
            if not completion.choices:
                content = None
            else:
                choice = completion.choices[0]
                if choice.finish_reason == "length":
                    raise openai.LengthFinishReasonError(completion=completion)
                if choice.finish_reason == "content_filter":
                    raise openai.ContentFilterFinishReasonError(completion=completion)
                if getattr(choice.message, "refusal", None):
                    raise self._refusal(call, choice.message.refusal or "")
                content = choice.message.content
            try:
                return self._response(_validate(call.output_type, content), usage, content or "")
            except _Malformed as e:
                if attempt == 1:
                    raise
                messages = _repair_messages(base, e.content, e.problem)
        raise AssertionError("unreachable")

    # -- helpers --

    @staticmethod
    def _content_of(body: Any) -> str | None:
        try:
            return body["choices"][0]["message"].get("content")
        except (KeyError, IndexError, TypeError, AttributeError):
            return None

    def _response(self, output: T, usage: Usage, raw_text: str) -> LLMResponse[T]:
        return LLMResponse(
            output=output, model=self.model, usage=usage, raw_text=raw_text, attempts=self._sent
        )

    def _not_a_completion(self, e: Exception) -> LLMError:
        return LLMError(
            "server",
            f"{self.base_url} did not answer like an OpenAI-compatible server for model "
            f"'{self.model}' ({type(e).__name__}: {self._scrub(str(e))[:200]}).",
            attempts=self._sent,
        )

    def _refusal(self, call: AgentCall[Any], why: str) -> LLMError:
        return LLMError(
            "refusal",
            f"Model '{self.model}' on {self.base_url} refused to answer for {call.agent}: "
            f"{self._scrub(why)[:300]}",
            attempts=self._sent,
        )

    def _scrub(self, text: str) -> str:
        if self._key and self._key != "not-needed" and len(self._key) >= 4:
            text = text.replace(self._key, "***")
        return text

    def _status_error(self, e: openai.APIStatusError) -> LLMError:
        n = self._sent
        detail = self._scrub(_error_detail(e))[:300]
        if isinstance(e, openai.AuthenticationError):
            # Never echo the server's message: OpenAI's includes part of the key.
            return LLMError("auth", f"The API key was rejected by {self.base_url}.", attempts=n)
        if isinstance(e, openai.PermissionDeniedError):
            return LLMError(
                "auth",
                f"The API key may not use model '{self.model}' on {self.base_url}.",
                attempts=n,
            )
        if isinstance(e, openai.NotFoundError):
            message = f"Model '{self.model}' was not found on {self.base_url}."
            if detail.strip() and "model" not in detail.lower():
                # A 404 that is not about the model is usually a wrong base URL.
                message = (
                    f"Model '{self.model}' was not found on {self.base_url}, or that URL is not "
                    f"an OpenAI-compatible API (HTTP 404: {detail}). Such base URLs usually "
                    "end in /v1."
                )
            return LLMError("not_found", message, attempts=n)
        if isinstance(e, openai.RateLimitError):
            return LLMError(
                "rate_limit",
                f"{self.base_url} is rate-limiting model '{self.model}' "
                f"(still limited after {n} attempt(s)): {detail}",
                attempts=n,
            )
        if e.status_code >= 500:
            return LLMError(
                "server",
                f"{self.base_url} failed with HTTP {e.status_code} for model '{self.model}' "
                f"after {n} attempt(s): {detail}",
                attempts=n,
            )
        return LLMError(
            "bad_request",
            f"{self.base_url} rejected the request for model '{self.model}' "
            f"(HTTP {e.status_code}): {detail}",
            attempts=n,
        )
