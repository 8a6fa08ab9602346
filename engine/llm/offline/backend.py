"""The offline backend: deterministic, no network. Each agent's offline implementation lives
with its pipeline (AgentSpec.offline); this backend runs it and accounts for it like a model."""

from __future__ import annotations

import math
import time

from pydantic import BaseModel

from engine.config import setting
from engine.llm.base import AgentCall, LLMError, LLMResponse, T, Usage

STREAM_TICK_S = 0.05
"""How often a simulated stream hands on its next piece."""


def estimate_tokens(text: str) -> int:
    """Tokenizer-free estimate: about four characters per token for English (OpenAI's rule
    of thumb), which is within ~15% of tiktoken on prose."""
    return math.ceil(len(text) / 4)


class OfflineBackend:
    name = "offline"
    model = "offline-v1"

    @property
    def streams(self) -> bool:
        """Whether answers asked for as a stream are simulated as one
        (DRAFTROOM_OFFLINE_STREAM_CPS > 0): tests and demos watch a draft grow with no model."""
        return float(setting("offline_stream_cps")) > 0

    def generate(self, call: AgentCall[T]) -> LLMResponse[T]:
        if call.offline is None:
            raise LLMError("not_found", f"agent {call.agent!r} has no offline implementation")
        out = call.offline(call.task)
        # An offline agent may answer in the engine's own shape (e.g. a Review) rather than
        # the schema a real model is given; both are accepted downstream.
        if not isinstance(out, BaseModel):
            out = call.output_type.model_validate(out)
        raw = out.model_dump_json()
        if call.on_text is not None and self.streams:
            self._stream(call, raw, float(setting("offline_stream_cps")))
        prompt = sum(estimate_tokens(m.get("content", "")) for m in call.messages)
        return LLMResponse(
            output=out,
            model=self.model,
            usage=Usage(
                prompt_tokens=prompt, cached_tokens=0, completion_tokens=estimate_tokens(raw)
            ),
            raw_text=raw,
        )

    @staticmethod
    def _stream(call: AgentCall[T], raw: str, cps: float) -> None:
        """Hand the answer on in pieces at `cps` characters a second, as a model streams it;
        a halt (call.cancelled) stops it as it stops waiting for a real model."""
        assert call.on_text is not None
        piece = max(1, round(cps * STREAM_TICK_S))
        for end in range(piece, len(raw), piece):
            if call.cancelled is not None and call.cancelled():
                raise LLMError("cancelled", "the run was halted while the drafter wrote")
            call.on_text(raw[:end], False)
            time.sleep(piece / cps)
        call.on_text(raw, True)
