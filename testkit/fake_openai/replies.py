"""Scripted replies for the fake OpenAI server: a `Plan` is one planned answer; `Reply` builds
them (`Reply.rate_limit()`, `Reply.ok(obj)`, ...), and short names ("429", "reset") stand for
the common ones."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Plan:
    """One planned answer. Build them with the `Reply` helpers."""

    kind: str
    """ok | content | refusal | finish | status | reset | hang | delay"""
    obj: Any = None
    text: str | None = None
    status: int = 200
    message: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    then: Plan | None = None
    finish_reason: str = "stop"
    cached_tokens: int | None = None
    usage: bool = True
    error_type: str | None = None
    error_code: str | None = None


class Reply:
    """Constructors for scripted replies."""

    @staticmethod
    def ok(obj: Any = None, *, cached_tokens: int | None = None, usage: bool = True) -> Plan:
        """A valid answer: `obj` (dict or pydantic model) as JSON, else one made from the schema.
        `usage=False` leaves the usage block out, as some servers do."""
        return Plan("ok", obj=obj, cached_tokens=cached_tokens, usage=usage)

    @staticmethod
    def content(text: str | None, *, finish_reason: str = "stop") -> Plan:
        """Exactly this message content (None for a null content)."""
        return Plan("content", text=text, finish_reason=finish_reason)

    @staticmethod
    def malformed() -> Plan:
        """JSON cut off half-way."""
        return Plan("content", text='{"scores": [{"name": "safety", "value": 0.9}, {"na')

    @staticmethod
    def not_json() -> Plan:
        return Plan("content", text="Sure! Here is my review: the draft looks great.")

    @staticmethod
    def empty() -> Plan:
        return Plan("content", text="")

    @staticmethod
    def schema_violation() -> Plan:
        """Well-formed JSON of the wrong shape."""
        return Plan("content", text='{"unexpected": "field", "scores": "high"}')

    @staticmethod
    def control_chars(obj: Any = None) -> Plan:
        """A valid object whose first string holds a raw newline, tab and BEL (invalid JSON)."""
        return Plan("control_chars", obj=obj)

    @staticmethod
    def refusal(text: str = "I'm sorry, but I can't help with that.") -> Plan:
        return Plan("refusal", text=text)

    @staticmethod
    def length() -> Plan:
        """finish_reason=length: the answer was cut at the token limit."""
        return Plan(
            "content",
            text='{"scores": [{"name": "a", "value": 0.9}, {"name": "a"',
            finish_reason="length",
        )

    @staticmethod
    def content_filter() -> Plan:
        return Plan("content", text=None, finish_reason="content_filter")

    @staticmethod
    def status(
        code: int,
        message: str | None = None,
        *,
        headers: dict[str, str] | None = None,
        error_type: str | None = None,
        error_code: str | None = None,
    ) -> Plan:
        """An HTTP error with an OpenAI-style error body."""
        return Plan(
            "status",
            status=code,
            message=message or f"Fake error {code}",
            headers=dict(headers or {}),
            error_type=error_type,
            error_code=error_code,
        )

    @staticmethod
    def rate_limit(retry_after: float | str | None = 0) -> Plan:
        """HTTP 429; `retry_after` (seconds) becomes the Retry-After header unless None."""
        headers = {} if retry_after is None else {"Retry-After": str(retry_after)}
        return Reply.status(
            429,
            "Rate limit reached for requests. Please try again shortly.",
            headers=headers,
            error_type="requests",
            error_code="rate_limit_exceeded",
        )

    @staticmethod
    def server_error(code: int = 500, message: str = "The server had an error.") -> Plan:
        return Reply.status(code, message, error_type="server_error")

    @staticmethod
    def reject_json_schema(code: int = 400) -> Plan:
        """What servers without structured outputs say to response_format=json_schema."""
        return Reply.status(
            code,
            "Invalid parameter: 'response_format' of type 'json_schema' is not supported "
            "with this model.",
            error_type="invalid_request_error",
            error_code="unsupported_response_format",
        )

    @staticmethod
    def unauthorized() -> Plan:
        return Reply.status(
            401,
            "Incorrect API key provided.",
            error_type="invalid_request_error",
            error_code="invalid_api_key",
        )

    @staticmethod
    def unknown_model(model: str = "unknown") -> Plan:
        return Reply.status(
            404,
            f"The model `{model}` does not exist or you do not have access to it.",
            error_type="invalid_request_error",
            error_code="model_not_found",
        )

    @staticmethod
    def reset() -> Plan:
        """Close the socket without answering (TCP RST)."""
        return Plan("reset")

    @staticmethod
    def hang(seconds: float = 30.0) -> Plan:
        """Say nothing for `seconds` (or until the server stops), then close the socket."""
        return Plan("hang", seconds=seconds)

    @staticmethod
    def delay(seconds: float, then: Plan | None = None) -> Plan:
        """Wait, then answer with `then` (default: a valid answer)."""
        return Plan("delay", seconds=seconds, then=then or Reply.ok())


SHORTHAND: dict[str, Callable[[], Plan]] = {
    "ok": Reply.ok,
    "429": Reply.rate_limit,
    "rate_limit": Reply.rate_limit,
    "500": Reply.server_error,
    "server_error": Reply.server_error,
    "400_json_schema": Reply.reject_json_schema,
    "reject_json_schema": Reply.reject_json_schema,
    "401": Reply.unauthorized,
    "404": Reply.unknown_model,
    "reset": Reply.reset,
    "hang": Reply.hang,
    "malformed": Reply.malformed,
    "not_json": Reply.not_json,
    "empty": Reply.empty,
    "schema_violation": Reply.schema_violation,
    "control_chars": Reply.control_chars,
    "refusal": Reply.refusal,
    "length": Reply.length,
    "content_filter": Reply.content_filter,
}


def as_plan(p: Plan | str) -> Plan:
    if isinstance(p, Plan):
        return p
    try:
        return SHORTHAND[p]()
    except KeyError:
        raise ValueError(f"unknown reply {p!r}; one of {sorted(SHORTHAND)}") from None


