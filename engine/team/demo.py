"""Team messages for demo campaigns (`python -m engine seed-demo`, demo/seed.py). The demo
writes runs, steps, drafts, scores and calls as the loop would, but the team's messages are
written by the loop's hooks (record.py), which the demo does not run. This rebuilds them from
each campaign run's own drafts, in the loop's shapes: the orchestrator hands each stage to the
marketing lead, the lead delegates to the stage's worker, each agent version is a result the
lead evaluates (REVISE with feedback when another agent version followed, else PASS and up to
people), so a demo campaign's Team tab shows the hierarchy, the threads and the artifacts."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import Any

from sqlalchemy import func, insert, select
from sqlalchemy.engine import Connection

from db.models import Draft, Run, Score
from db.team_tables import TeamMessage
from engine.pipelines.registry import get_pipeline
from engine.team.models import (
    PERSON,
    EvaluationPayload,
    FeedbackPayload,
    ResultPayload,
    TaskPayload,
    TeamSpec,
)

DEFAULT_LIMIT = 300
"""Demo campaigns given messages, newest first: enough to browse, without making a seed of
50,000 runs write a million rows nobody opens."""

_DRAFT = Draft.__table__  # type: ignore[attr-defined]
_RUN = Run.__table__  # type: ignore[attr-defined]
_SCORE = Score.__table__  # type: ignore[attr-defined]
_MSG = TeamMessage.__table__  # type: ignore[attr-defined]


def seed_team_messages(conn: Connection, *, limit: int = DEFAULT_LIMIT) -> int:
    """Write the team messages of the newest `limit` campaign runs that have none; returns
    how many messages were written. Runs that already have messages are left alone."""
    pipeline = get_pipeline("campaign")
    team: TeamSpec = pipeline.team
    has_msgs = select(_MSG.c.run_id).where(_MSG.c.run_id == _RUN.c.id).exists()
    runs = conn.execute(select(_RUN.c.id, _RUN.c.input, _RUN.c.status)
                        .where(_RUN.c.kind == "campaign", ~has_msgs)
                        .order_by(_RUN.c.id.desc()).limit(limit)).all()
    if not runs:
        return 0
    ids = [r.id for r in runs]
    drafts: dict[int, list[Any]] = defaultdict(list)
    for d in conn.execute(select(_DRAFT.c.id, _DRAFT.c.run_id, _DRAFT.c.version,
                                 _DRAFT.c.stage, _DRAFT.c.author_kind, _DRAFT.c.verdict,
                                 _DRAFT.c.created_at, func.length(_DRAFT.c.content).label("n"))
                          .where(_DRAFT.c.run_id.in_(ids)).order_by(_DRAFT.c.version)):
        drafts[d.run_id].append(d)
    scores: dict[int, dict[str, float]] = defaultdict(dict)
    for s in conn.execute(select(_SCORE.c.draft_id, _SCORE.c.name, _SCORE.c.value)
                          .where(_SCORE.c.draft_id.in_([d.id for ds in drafts.values()
                                                        for d in ds]))):
        scores[s.draft_id][s.name] = round(float(s.value), 4)
    rows = []
    stages = [s.name for s in pipeline.stages]
    for r in runs:
        goal = str((r.input or {}).get("goal") or "")
        for stage in stages:
            mine = [d for d in drafts[r.id] if d.stage == stage]
            if mine:
                rows += _stage(r.id, stage, goal, mine, scores, team)
    if rows:
        conn.execute(insert(_MSG), rows)
    return len(rows)


def _stage(run_id: int, stage: str, goal: str, drafts: list[Any],
           scores: dict[int, dict[str, float]], team: TeamSpec) -> list[dict[str, Any]]:
    """One stage's thread, from its versions in order."""
    worker, lead, orch = team.workers[stage].name, team.lead.name, team.orchestrator.name
    out: list[dict[str, Any]] = []

    def send(kind: str, sender: str, to: str, payload: Any, it: int, at: datetime,
             artifact: str | None = None, draft_id: int | None = None) -> None:
        out.append({"run_id": run_id, "step_id": None, "kind": kind, "sender": sender,
                    "recipient": to, "stage": stage, "iteration": it,
                    "payload": payload.model_dump(mode="json"), "artifact": artifact,
                    "draft_id": draft_id, "at": at})

    first = drafts[0].created_at
    send("task", orch, lead, TaskPayload(
        summary=f"Stage {stage}: {goal}".strip(),
        instructions=f"Have the {team.workers[stage].title.lower()} draft it and evaluate "
                     "the result before it goes to people."), 0, first)
    send("task", lead, worker, TaskPayload(
        summary=team.assignments.get(stage, f"Draft {stage}"), instructions="Attempt 1."),
        1, first)
    agent_versions = [d for d in drafts if d.author_kind == "agent"]
    for n, d in enumerate(agent_versions, start=1):
        artifact = f"{worker} v{n}"
        send("result", worker, lead, ResultPayload(
            summary=f"{artifact} for the {stage} stage (run version v{d.version}).",
            artifact=artifact, version=d.version, chars=d.n), n, d.created_at, artifact, d.id)
        again = n < len(agent_versions)
        verdict = "REVISE" if again or d.verdict == "REVISE" else "PASS"
        send("evaluation", lead, worker, EvaluationPayload(
            verdict=verdict, evaluator_verdict=d.verdict, scores=scores.get(d.id, {}),
            why="below a threshold or the Evaluator asked for changes" if verdict == "REVISE"
            else "every score met its threshold", artifact=artifact), n, d.created_at,
            artifact, d.id)
        if again:
            send("feedback", lead, worker, FeedbackPayload(
                summary="Revise.", attempt=n + 1, max_attempts=len(agent_versions)),
                n + 1, d.created_at, artifact)
        else:
            send("result", lead, orch, ResultPayload(summary="Waiting for review.",
                                                     artifact=artifact), n, d.created_at,
                 artifact)
            send("result", orch, PERSON, ResultPayload(
                summary=f"The {stage} stage is ready for your review ({artifact}).",
                artifact=artifact), n, d.created_at, artifact)
    return out
