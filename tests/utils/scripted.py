"""A scripted fake model for engine tests: a list of planned answers per agent, every call
recorded, and a clear failure on an unexpected or unconsumed call."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from engine.llm.base import AgentCall, LLMError, LLMResponse, Usage

Answer = BaseModel | LLMError | Callable[[AgentCall[Any]], BaseModel]


@dataclass
class ScriptedModel:
    script: dict[str, list[Answer]]
    name: str = "scripted"
    model: str = "gpt-4.1-mini"
    calls: list[AgentCall[Any]] = field(default_factory=list)
    usage: Usage = field(default_factory=lambda: Usage(1000, 200, 500))

    def generate(self, call: AgentCall[Any]) -> LLMResponse[Any]:
        self.calls.append(call)
        queue = self.script.get(call.agent)
        if not queue:
            raise AssertionError(f"unexpected call to {call.agent!r}: nothing scripted")
        answer = queue.pop(0)
        if isinstance(answer, LLMError):
            raise answer
        out = answer(call) if callable(answer) and not isinstance(answer, BaseModel) else answer
        return LLMResponse(output=out, model=self.model, usage=self.usage,
                           raw_text=out.model_dump_json())

    def assert_consumed(self) -> None:
        left = {k: len(v) for k, v in self.script.items() if v}
        assert not left, f"scripted answers never used: {left}"

    def agents_called(self) -> list[str]:
        return [c.agent for c in self.calls]
