"""A protocol team played by the fake OpenAI server (testkit/fake_openai/): the drafter writes a
sound exercise and the critics pass it; when the intent contains SECOND_DRAFT they send the
first draft back once, so that run takes two iterations (draft, review, decide, draft, review,
decide). Stateless: it reads the request, so any number of worker processes can share one
server."""

from __future__ import annotations

from typing import Any

from testkit.fake_openai import example_from_schema, find_schema
from tests.factories import protocol_draft

FIRST, REVISED = "Exam panic: paced breathing", "Exam panic: paced breathing (revised)"
SECOND_DRAFT = "(needs a second draft)"


def _user(request: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content") or "") for m in request.get("messages") or []
                     if m.get("role") != "system")


def _system(request: dict[str, Any]) -> str:
    return str((request.get("messages") or [{}])[0].get("content") or "")


class ProtocolTeam:
    def __init__(self, *, echo: str = "") -> None:
        self.echo = echo
        """Text every answer carries (the secrets test plants PII in it)."""

    def __call__(self, request: dict[str, Any]) -> dict[str, Any] | None:
        system, user = _system(request), _user(request)
        if "Drafter" in system:
            revised = "Your previous draft" in user
            draft = protocol_draft(REVISED if revised else FIRST).model_dump()
            if self.echo:
                draft["purpose"] += " " + self.echo
            return draft
        revised = REVISED in user or SECOND_DRAFT not in user
        notes = [] if revised else [
            {"target": "drafter", "priority": "warning",
             "text": ("Make the steps more concrete. " + self.echo).strip()}]
        values = {"safety": 0.95, "empathy": 0.85, "clinical": 0.9 if revised else 0.5}
        props = (find_schema(request) or {}).get("properties", {})
        if "scores" in props:  # the generic Review shape
            names = ["safety"] if "Safety Guardian" in system else ["empathy", "clinical"]
            return {"scores": [{"name": n, "value": values[n]} for n in names],
                    "notes": notes, "verdict": None}
        # Named fields, one per score (SafetyReviewOut, ClinicalReviewOut ...).
        answer = example_from_schema(find_schema(request) or {})
        if not isinstance(answer, dict):
            return None
        answer.update({k: v for k, v in values.items() if k in props})
        if "notes" in props:
            answer["notes"] = notes
        return answer
