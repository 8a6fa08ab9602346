"""The one protocol every LLM backend implements, the records of what a call cost, and the
errors it may raise."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Generic, Literal, Protocol, TypeVar

from pydantic import BaseModel

T = TypeVar("T", bound=BaseModel)

AttemptKind = Literal["first", "fallback", "repair", "retry"]


@dataclass
class Usage:
    prompt_tokens: int = 0
    """All input tokens, cached ones included (as the OpenAI API counts them)."""
    cached_tokens: int = 0
    completion_tokens: int = 0
    """All output tokens, reasoning ones included."""
    reasoning_tokens: int = 0

    def add(self, more: Usage) -> None:
        self.prompt_tokens += more.prompt_tokens
        self.cached_tokens += more.cached_tokens
        self.completion_tokens += more.completion_tokens
        self.reasoning_tokens += more.reasoning_tokens


@dataclass(frozen=True)
class Attempt:
    """One HTTP request of a call that got an answer, or was given up on."""

    kind: AttemptKind
    """first try; fallback to another response format; repair of a malformed answer; retry
    of a transient failure (429, 5xx, timeout, connection)."""
    outcome: str
    """ok | malformed | unsupported | error | timeout | connection | cancelled"""
    mode: str
    """What the request asked for: schema | json_object | prompt | moderation."""
    http_status: int | None
    """None: no answer (timeout, connection, cancelled)."""
    usage: Usage
    latency_ms: float
    started_at: datetime
    error: str | None = None


def total_usage(attempts: list[Attempt]) -> Usage:
    total = Usage()
    for a in attempts:
        total.add(a.usage)
    return total


BeforeAttempt = Callable[[list[Attempt]], None]
"""Called before every request after the first with the attempts made so far; raises
LLMError("budget", ...) to stop the call there (the supervisor's budget check)."""


@dataclass(frozen=True)
class AgentCall(Generic[T]):
    """One request an agent makes of a model."""

    agent: str
    """Agent name, e.g. "drafter", "safety_guardian"."""
    messages: list[dict[str, str]]
    """Chat messages (system, user) rendered from the agent's prompt: the stable part (the
    system prompt) first, so providers' prompt caches hit."""
    output_type: type[T]
    """The pydantic model the answer must parse into."""
    task: BaseModel
    """The structured input the messages were rendered from (the offline backend reads it)."""
    offline: Callable[[Any], T] | None = None
    """Deterministic implementation of this agent for the offline backend."""
    max_tokens: int = 2000
    before_attempt: BeforeAttempt | None = None
    cancelled: Callable[[], bool] | None = None
    """Polled while a request is out: True stops waiting for it (a person halted the run)."""
    on_text: Callable[[str, bool], None] | None = None
    """Set: the answer is streamed, and this gets (the raw answer so far, final?) as it grows
    (the drafter's live text on the Run page)."""


@dataclass
class LLMResponse(Generic[T]):
    output: T
    model: str
    usage: Usage = field(default_factory=Usage)
    """The sum over `attempt_log`: every request that produced tokens is paid for."""
    raw_text: str = ""
    attempts: int = 1
    attempt_log: list[Attempt] = field(default_factory=list)


class LLMError(Exception):
    """A model call that failed after retries; `kind` says why in one word."""

    def __init__(
        self,
        kind: str,
        message: str,
        *,
        attempts: int = 1,
        attempt_log: list[Attempt] | None = None,
    ) -> None:
        super().__init__(message)
        # timeout|rate_limit|auth|not_found|connection|server|malformed|refusal|length|
        # context_length|bad_request|budget|cancelled
        self.kind = kind
        self.message = message
        self.attempts = attempts
        self.attempt_log: list[Attempt] = list(attempt_log or [])

    def __str__(self) -> str:
        return self.message

    @property
    def usage(self) -> Usage:
        return total_usage(self.attempt_log)


class LLMBackend(Protocol):
    name: str
    model: str

    def generate(self, call: AgentCall[T]) -> LLMResponse[T]: ...


def now() -> datetime:
    return datetime.now(UTC)
