"""The Team tab's read model: who delegated to whom, the messages of each stage, the artifacts
(each worker's attempts, as versions to open and diff) and every model call under the member
that made it. None for a run whose pipeline has no team (protocols keep their own shape)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict
from sqlmodel import Session, col, select

from db.models import Draft, LLMCall, Run
from db.session import session_scope
from db.team_tables import TeamMessage
from engine.diff import unified
from engine.errors import NotFound
from engine.pipelines.registry import PIPELINES
from engine.team.models import PERSON, EvaluationPayload, TeamMessageView, TeamSpec


class CallRef(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    agent: str
    step_id: int | None
    stage: str
    started_at: datetime
    latency_ms: float
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None
    status: str


class MemberView(BaseModel):
    name: str
    title: str
    reports_to: str | None
    delegated_to: list[str]
    """Whom this member sent tasks or feedback to, in the order it first did."""
    calls: list[CallRef]
    """The model calls this member made (the lead's are its Evaluator's)."""


class ArtifactView(BaseModel):
    key: str
    """e.g. "outreach_writer v2": the worker's second attempt in its stage."""
    agent: str
    stage: str
    draft_id: int
    version: int | None
    at: datetime
    verdict: str | None = None
    """The lead's evaluation of it (PASS / REVISE), when there is one."""


class TeamView(BaseModel):
    run_id: int
    members: list[MemberView]
    messages: list[TeamMessageView]
    artifacts: list[ArtifactView]

    @property
    def stages(self) -> list[str]:
        return list(dict.fromkeys(m.stage for m in self.messages))

    def thread(self, stage: str) -> list[TeamMessageView]:
        return [m for m in self.messages if m.stage == stage]

    def member(self, name: str) -> MemberView | None:
        return next((m for m in self.members if m.name == name), None)

    def artifact(self, key: str) -> ArtifactView:
        found = next((a for a in self.artifacts if a.key == key), None)
        if found is None:
            raise NotFound(f"Run {self.run_id} has no artifact {key!r}.")
        return found

    def tree(self, root: str) -> dict[str, dict]:  # type: ignore[type-arg]
        """{member: {delegate: {...}}} from `root`, by who actually delegated to whom."""
        def grow(name: str, seen: frozenset[str]) -> dict[str, dict]:  # type: ignore[type-arg]
            m = self.member(name)
            kids = [k for k in (m.delegated_to if m else []) if k not in seen]
            return {k: grow(k, seen | {k}) for k in kids}
        return {root: grow(root, frozenset({root}))}


def team_of(kind: str) -> TeamSpec | None:
    p = PIPELINES.get(kind)
    return p.team if p is not None else None


def _messages(s: Session, run_id: int) -> list[TeamMessageView]:
    rows = s.exec(select(TeamMessage).where(TeamMessage.run_id == run_id)
                  .order_by(col(TeamMessage.id))).all()
    return [TeamMessageView.model_validate({**r.model_dump(), "payload": r.payload})
            for r in rows]


def _artifacts(s: Session, messages: list[TeamMessageView]) -> list[ArtifactView]:
    verdicts = {m.artifact: m.payload.verdict for m in messages
                if isinstance(m.payload, EvaluationPayload) and m.artifact}
    ids = [m.draft_id for m in messages if m.kind == "result" and m.draft_id]
    versions = dict(s.exec(select(Draft.id, Draft.version)
                           .where(col(Draft.id).in_(ids))).all()) if ids else {}
    return [ArtifactView(key=m.artifact, agent=m.sender, stage=m.stage, draft_id=m.draft_id,
                         version=versions.get(m.draft_id), at=m.at,
                         verdict=verdicts.get(m.artifact))
            for m in messages if m.kind == "result" and m.artifact and m.draft_id]


def _members(team: TeamSpec, messages: list[TeamMessageView],
             calls: list[CallRef]) -> list[MemberView]:
    out = []
    for m in team.members:
        to = [x.recipient for x in messages if x.sender == m.name
              and x.kind in ("task", "feedback") and x.recipient != PERSON]
        out.append(MemberView(name=m.name, title=m.title, reports_to=m.reports_to,
                              delegated_to=list(dict.fromkeys(to)),
                              calls=[c for c in calls if team.caller(c.agent) == m.name]))
    return out


def load_team(run_id: int) -> TeamView | None:
    with session_scope() as s:
        run = s.get(Run, run_id)
        if run is None:
            raise NotFound(f"Run {run_id} does not exist.")
        team = team_of(run.kind)
        if team is None:
            return None
        messages = _messages(s, run_id)
        calls = [CallRef.model_validate(c) for c in s.exec(
            select(LLMCall).where(LLMCall.run_id == run_id)
            .order_by(col(LLMCall.started_at), col(LLMCall.id))).all()]
        return TeamView(run_id=run_id, members=_members(team, messages, calls),
                        messages=messages, artifacts=_artifacts(s, messages))


def artifact_text(draft_id: int) -> str:
    with session_scope() as s:
        d = s.get(Draft, draft_id)
        if d is None:
            raise NotFound(f"Draft {draft_id} does not exist.")
        return d.content


def artifact_diff(view: TeamView, old: str, new: str) -> str:
    """A unified diff (difflib) between two artifacts of the run, by key."""
    a, b = view.artifact(old), view.artifact(new)
    return unified(artifact_text(a.draft_id), artifact_text(b.draft_id),
                   from_label=a.key, to_label=b.key)


__all__ = ["ArtifactView", "CallRef", "MemberView", "TeamView", "artifact_diff",
           "artifact_text", "load_team", "team_of"]
