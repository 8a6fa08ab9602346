"""What an OpenAI-compatible server's error means: a feature it refuses for good (learned once,
never retried), a context too long, a transient failure worth a retry, or a plain error with a
message a person can act on."""

from __future__ import annotations

import json
import math
import random
from typing import Any

import httpx2
import openai

from engine.llm.base import Attempt, LLMError

RETRYABLE_STATUS = (408, 409, 429)
MAX_RETRY_AFTER_S = 120.0
INITIAL_DELAY_S, MAX_DELAY_S = 0.5, 8.0

# Words a server uses when it refuses a request's response_format (OpenAI, vLLM, llama.cpp,
# Ollama, LM Studio and TGI say it in one of these ways, with 400, 422 or 500).
_FORMAT_WORDS = ("response_format", "response format", "structured output", "guided_json")
_FEATURE_WORDS = {"json_schema": ("json_schema", "json schema"), "json_object": ("json_object",)}
_PARAM_WORDS = ("unsupported", "not supported", "unrecognized", "not allowed", "extra inputs",
                "unknown field", "does not support", "invalid parameter")
_CONTEXT_WORDS = ("context length", "context_length", "context window", "maximum context",
                  "too many tokens", "prompt is too long", "input is too long",
                  "reduce the length", "exceeds the model")


class Unsupported(Exception):
    """The server refused one feature of the request; it will refuse it every time."""

    def __init__(self, feature: str, detail: str) -> None:
        super().__init__(detail)
        self.feature = feature
        self.detail = detail


def error_detail(err: openai.APIStatusError) -> str:
    body = err.body
    if isinstance(body, dict):
        msg = body.get("message") or body.get("error") or body.get("detail") or body
        return msg if isinstance(msg, str) else json.dumps(msg)[:300]
    if isinstance(body, str):
        return body
    return err.message


def _text(err: openai.APIStatusError) -> str:
    body = err.body if isinstance(err.body, dict) else {}
    extra = " ".join(str(body.get(k) or "") for k in ("param", "code", "type"))
    return f"{err.message} {error_detail(err)} {extra}".lower()


def refused_feature(err: openai.APIStatusError, mode: str, params: dict[str, Any]) -> str | None:
    """The feature of this request the server refused, if its error says so: the requested
    response format (400/422/500 naming it), or a parameter (temperature, max_tokens, ...)."""
    if err.status_code not in (400, 422, 500, 501):
        return None
    text = _text(err)
    feature = {"schema": "json_schema", "json_object": "json_object"}.get(mode)
    if feature is not None:
        mine = any(w in text for w in _FEATURE_WORDS[feature])
        other = next(f for f in _FEATURE_WORDS if f != feature)
        theirs = any(w in text for w in _FEATURE_WORDS[other])
        if mine or (any(w in text for w in _FORMAT_WORDS) and not theirs):
            return feature
    if err.status_code == 500 or not any(w in text for w in _PARAM_WORDS):
        return None
    for param in params:
        if f"'{param}'" in text or f'"{param}"' in text or f"`{param}`" in text:
            return param
        body = err.body if isinstance(err.body, dict) else {}
        if body.get("param") == param:
            return param
    return None


def is_context_length(err: openai.APIStatusError) -> bool:
    return err.status_code in (400, 413, 422) and any(w in _text(err) for w in _CONTEXT_WORDS)


def retryable(err: Exception) -> bool:
    if isinstance(err, openai.APIStatusError):
        if err.response.headers.get("x-should-retry") == "false":
            return False
        delay = retry_after(err.response.headers)
        if delay is not None and delay > MAX_RETRY_AFTER_S:
            return False
        return err.status_code in RETRYABLE_STATUS or err.status_code >= 500
    return isinstance(err, openai.APIConnectionError)  # timeouts included


def retry_after(headers: httpx2.Headers | None) -> float | None:
    if headers is None:
        return None
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return float(value) / divisor
        except ValueError:
            continue
    return None


def retry_delay(n: int, err: Exception) -> float:
    """Seconds before retry number n+1: the server's Retry-After when sane, else exponential
    backoff with jitter (as the SDK does; its own retries are off so each request is seen)."""
    headers = err.response.headers if isinstance(err, openai.APIStatusError) else None
    delay = retry_after(headers)
    if delay is not None and math.isfinite(delay) and 0 < delay <= MAX_RETRY_AFTER_S:
        return delay
    return min(INITIAL_DELAY_S * 2.0**n, MAX_DELAY_S) * (1 - 0.25 * random.random())


def status_error(
    err: openai.APIStatusError, *, base_url: str, model: str, log: list[Attempt],
    scrub: Any,
) -> LLMError:
    """An LLMError a person can act on, for an HTTP error that was not worth another try."""
    n = max(len(log), 1)
    detail = scrub(error_detail(err))[:300]

    def e(kind: str, message: str) -> LLMError:
        return LLMError(kind, message, attempts=n, attempt_log=log)

    if isinstance(err, openai.AuthenticationError):
        # Never echo the server's message: OpenAI's includes part of the key.
        return e("auth", f"The API key was rejected by {base_url}.")
    if isinstance(err, openai.PermissionDeniedError):
        return e("auth", f"The API key may not use model '{model}' on {base_url}.")
    if isinstance(err, openai.NotFoundError):
        message = f"Model '{model}' was not found on {base_url}."
        if detail.strip() and "model" not in detail.lower():
            # A 404 that is not about the model is usually a wrong base URL.
            message = (
                f"Model '{model}' was not found on {base_url}, or that URL is not an "
                f"OpenAI-compatible API (HTTP 404: {detail}). Such base URLs usually end in /v1."
            )
        return e("not_found", message)
    if is_context_length(err):
        return e("context_length",
                 f"The request is longer than model '{model}' on {base_url} can read "
                 f"(its context window): {detail}")
    if isinstance(err, openai.RateLimitError):
        return e("rate_limit", f"{base_url} is rate-limiting model '{model}' "
                               f"(still limited after {n} attempt(s)): {detail}")
    if err.status_code >= 500:
        return e("server", f"{base_url} failed with HTTP {err.status_code} for model "
                           f"'{model}' after {n} attempt(s): {detail}")
    return e("bad_request", f"{base_url} rejected the request for model '{model}' "
                            f"(HTTP {err.status_code}): {detail}")
