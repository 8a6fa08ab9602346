"""The one protocol every LLM backend implements, and the errors it may raise."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from pydantic import BaseModel

T = TypeVar("T", bound=BaseModel)


@dataclass(frozen=True)
class AgentCall(Generic[T]):
    """One request an agent makes of a model."""

    agent: str
    """Agent name, e.g. "drafter", "safety_guardian"."""
    messages: list[dict[str, str]]
    """Chat messages (system, user) rendered from the agent's prompt."""
    output_type: type[T]
    """The pydantic model the answer must parse into."""
    task: BaseModel
    """The structured input the messages were rendered from (the offline backend reads it)."""
    offline: Callable[[Any], T] | None = None
    """Deterministic implementation of this agent for the offline backend."""
    max_tokens: int = 2000


@dataclass
class Usage:
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0


@dataclass
class LLMResponse(Generic[T]):
    output: T
    model: str
    usage: Usage = field(default_factory=Usage)
    raw_text: str = ""
    attempts: int = 1


class LLMError(Exception):
    """A model call that failed after retries; `kind` says why in one word."""

    def __init__(self, kind: str, message: str, *, attempts: int = 1) -> None:
        super().__init__(message)
        self.kind = (
            kind  # timeout|rate_limit|auth|not_found|connection|server|malformed|refusal|length
        )
        self.message = message
        self.attempts = attempts

    def __str__(self) -> str:
        return self.message


class LLMBackend(Protocol):
    name: str
    model: str

    def generate(self, call: AgentCall[T]) -> LLMResponse[T]: ...
