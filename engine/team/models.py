"""The team as data, and the typed payloads of its messages (kind task / result / evaluation /
feedback, as in the Workforce seed's TaskMessage), validated when written and when read."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, Field

Kind = Literal["task", "result", "evaluation", "feedback"]
KINDS: tuple[str, ...] = ("task", "result", "evaluation", "feedback")
PERSON = "person"
"""The people reviewing the run: where the orchestrator hands finished work."""


@dataclass(frozen=True)
class Member:
    name: str
    title: str
    reports_to: str | None
    acts_through: tuple[str, ...] = ()
    """Agents whose model calls are this member's own (the lead evaluates through the
    stage's Evaluator critic)."""


@dataclass(frozen=True)
class TeamSpec:
    """A pipeline's team: who hands stages down, who evaluates, which worker does a stage."""

    orchestrator: Member
    lead: Member
    workers: Mapping[str, Member]
    """stage -> the worker who drafts it (its name is the stage's drafter agent)."""
    assignments: Mapping[str, str] = field(default_factory=dict)
    """stage -> what the lead asks the worker for, in one sentence."""

    @property
    def members(self) -> list[Member]:
        seen: dict[str, Member] = {self.orchestrator.name: self.orchestrator,
                                   self.lead.name: self.lead}
        for w in self.workers.values():
            seen.setdefault(w.name, w)
        return list(seen.values())

    def caller(self, agent: str) -> str:
        """The member a model call of `agent` belongs to."""
        for m in self.members:
            if agent == m.name or agent in m.acts_through:
                return m.name
        return agent

    def title(self, name: str) -> str:
        return next((m.title for m in self.members if m.name == name),
                    "People" if name == PERSON else name)


class TaskPayload(BaseModel):
    kind: Literal["task"] = "task"
    summary: str
    instructions: str = ""
    inputs: list[str] = Field(default_factory=list)
    """What the recipient is given: the context's parts and the memory namespaces it reads."""


class ResultPayload(BaseModel):
    kind: Literal["result"] = "result"
    summary: str
    artifact: str | None = None
    version: int | None = None
    """The run's draft version the artifact is."""
    chars: int | None = None


class EvaluationPayload(BaseModel):
    kind: Literal["evaluation"] = "evaluation"
    verdict: Literal["PASS", "REVISE"]
    """The lead's: PASS when the gate passes (thresholds, flags, the Evaluator's verdict)."""
    evaluator_verdict: str | None = None
    scores: dict[str, float] = Field(default_factory=dict)
    why: str = ""
    notes: list[str] = Field(default_factory=list)
    flags: list[str] = Field(default_factory=list)
    artifact: str | None = None


class FeedbackPayload(BaseModel):
    kind: Literal["feedback"] = "feedback"
    summary: str
    notes: list[str] = Field(default_factory=list)
    """What the worker is asked to change (the lead's notes, most urgent first)."""
    from_people: list[str] = Field(default_factory=list)
    attempt: int = 0
    """The attempt this feedback asks for, of max_attempts."""
    max_attempts: int = 0


Payload = Annotated[TaskPayload | ResultPayload | EvaluationPayload | FeedbackPayload,
                    Field(discriminator="kind")]


class TeamMessageView(BaseModel):
    id: int
    kind: Kind
    sender: str
    recipient: str
    stage: str
    iteration: int
    payload: Payload
    artifact: str | None = None
    draft_id: int | None = None
    step_id: int | None = None
    at: datetime


__all__ = ["KINDS", "PERSON", "EvaluationPayload", "FeedbackPayload", "Kind", "Member",
           "Payload", "ResultPayload", "TaskPayload", "TeamMessageView", "TeamSpec"]
