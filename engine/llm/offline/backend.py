"""The offline backend: deterministic, no network. Each agent's offline implementation lives
with its pipeline (AgentSpec.offline); this backend runs it and accounts for it like a model."""

from __future__ import annotations

import math

from pydantic import BaseModel

from engine.llm.base import AgentCall, LLMError, LLMResponse, T, Usage


def estimate_tokens(text: str) -> int:
    """Tokenizer-free estimate: about four characters per token for English (OpenAI's rule
    of thumb), which is within ~15% of tiktoken on prose."""
    return math.ceil(len(text) / 4)


class OfflineBackend:
    name = "offline"
    model = "offline-v1"

    def generate(self, call: AgentCall[T]) -> LLMResponse[T]:
        if call.offline is None:
            raise LLMError("not_found", f"agent {call.agent!r} has no offline implementation")
        out = call.offline(call.task)
        # An offline agent may answer in the engine's own shape (e.g. a Review) rather than
        # the schema a real model is given; both are accepted downstream.
        if not isinstance(out, BaseModel):
            out = call.output_type.model_validate(out)
        raw = out.model_dump_json()
        prompt = sum(estimate_tokens(m.get("content", "")) for m in call.messages)
        return LLMResponse(
            output=out,
            model=self.model,
            usage=Usage(
                prompt_tokens=prompt, cached_tokens=0, completion_tokens=estimate_tokens(raw)
            ),
            raw_text=raw,
        )
