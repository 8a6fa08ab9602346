"""Reading a model's JSON answer leniently, asking for a repair, and putting the schema in the
prompt when the server has no structured outputs."""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, ValidationError

from engine.llm.base import AgentCall, T

# Raw control characters other than tab/newline/CR are never meaningful in a draft; models on
# small local servers emit them now and then, and they make otherwise good JSON invalid.
_JUNK_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_FENCE = re.compile(r"^\s*```(?:json|JSON)?\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)


class Malformed(Exception):
    """The answer is not JSON of the agent's shape."""

    def __init__(self, content: str, problem: str) -> None:
        super().__init__(problem)
        self.content = content
        self.problem = problem


def validate(output_type: type[T], content: str | None) -> T:
    """Lenient parse: tolerate code fences and raw control characters, never a wrong shape."""
    if content is None or not content.strip():
        raise Malformed(content or "", "the reply was empty")
    text = content.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    text = _JUNK_CONTROL.sub("", text)
    try:
        # strict=False lets raw newlines/tabs inside strings through: the model meant them.
        data = json.loads(text, strict=False)
    except json.JSONDecodeError as e:
        raise Malformed(content, f"the reply is not valid JSON ({e})") from None
    try:
        return output_type.model_validate(data)
    except ValidationError as e:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}"
            for err in e.errors()[:8]
        )
        raise Malformed(content, f"the reply does not match the schema ({problems})") from None


def repair_messages(
    messages: list[dict[str, str]], bad: str, problem: str
) -> list[dict[str, str]]:
    """The same conversation (so its cached prefix still hits), the bad answer, what was wrong."""
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


def schema_instruction(output_type: type[BaseModel]) -> str:
    # sort_keys: byte-identical at every call, so the system message stays a cacheable prefix.
    schema = json.dumps(output_type.model_json_schema(), ensure_ascii=False, sort_keys=True)
    return (
        "Answer with one JSON object only (no prose, no code fences) that validates against "
        f"this JSON Schema:\n```json\n{schema}\n```"
    )


def with_schema_in_system(call: AgentCall[Any]) -> list[dict[str, str]]:
    """The schema appended to the system message: the stable part of the request stays first."""
    instruction = schema_instruction(call.output_type)
    messages = [dict(m) for m in call.messages]
    for m in messages:
        if m.get("role") == "system":
            m["content"] = f"{m.get('content', '')}\n\n{instruction}"
            return messages
    return [{"role": "system", "content": instruction}, *messages]


def content_of(body: Any) -> tuple[str | None, str | None, str | None]:
    """(content, refusal, finish_reason) of a chat completion's JSON body."""
    try:
        choice = body["choices"][0]
    except (KeyError, IndexError, TypeError):
        return None, None, None
    message = choice.get("message") or {}
    return message.get("content"), message.get("refusal"), choice.get("finish_reason")
