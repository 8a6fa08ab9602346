"""Prompt versions per agent: list, save an edit as a new version, activate one, diff two,
and compare versions on what their runs achieved.

Version numbers start at 1 per agent. Version 0 stands for the prompt written in code (what
an agent uses while no version is active). In a comparison, calls made with a per-run text
override (RunParams.prompts) form their own group, never mixed into the code default."""

from __future__ import annotations

import difflib
from datetime import datetime

from pydantic import BaseModel
from sqlalchemy import ColumnElement, and_, case, distinct, func, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from db.models import Draft, LLMCall, PromptVersion, Run, Score, Step, utcnow
from db.session import session_scope
from engine.errors import InvalidInput, NotFound
from engine.identity import require
from engine.pipelines.base import AgentSpec, StageSpec
from engine.pipelines.registry import PIPELINES
from engine.run_state import RunStatus
from engine.text import clean_text

__all__ = [
    "CODE_DEFAULT",
    "RUN_TEXT",
    "AgentInfo",
    "PromptVersionView",
    "VersionOutcome",
    "list_agents",
    "agent_info",
    "list_versions",
    "get_version",
    "save_version",
    "activate",
    "diff_versions",
    "compare_versions",
]

CODE_DEFAULT = 0
"""The version number that stands for the default prompt in code."""
RUN_TEXT = -1
"""The comparison group of calls made with a per-run text override."""
MAX_PROMPT_CHARS = 20_000
MAX_AUTHOR_CHARS = 120
SAVE_ATTEMPTS = 5


class AgentInfo(BaseModel):
    name: str
    role: str
    kind: str
    """The pipeline the agent works in (protocol, campaign ...)."""
    stage: str
    is_drafter: bool
    default_text: str
    thresholds: dict[str, float]
    """The thresholds of the agent's stage: what its drafts are held to."""
    active_version: int | None
    """None: no version is active, the code default is used."""
    versions: int


class PromptVersionView(BaseModel):
    agent: str
    version: int
    """0 is the default in code."""
    text: str
    author: str
    active: bool
    created_at: datetime | None


class VersionOutcome(BaseModel):
    """What the runs that used one prompt version achieved."""

    agent: str
    version: int
    """A PromptVersion number, CODE_DEFAULT (0) or RUN_TEXT (-1)."""
    label: str
    active: bool
    runs: int
    """Runs with at least one call of this agent made with this version."""
    drafts_scored: int
    """Agent-written drafts of those runs that the critics scored."""
    mean_scores: dict[str, float]
    """Mean of each score over those drafts."""
    runs_passed: int
    """Runs whose thresholds were met without a person stepping in."""
    mean_iterations_to_pass: float | None
    """Drafts the agents wrote before the first pass, averaged over the runs that passed."""
    approved: int
    rejected: int
    approval_rate: float | None
    """approved / (approved + rejected): runs still open are not counted."""
    cost_usd: float
    """Every call of those runs, all agents."""
    cost_per_approved: float | None


# -- agents ---------------------------------------------------------------------------------


def _specs() -> list[tuple[str, StageSpec, AgentSpec, bool]]:
    """(kind, stage, spec, is_drafter) for every agent of every registered pipeline, once."""
    seen: set[str] = set()
    out: list[tuple[str, StageSpec, AgentSpec, bool]] = []
    for kind, pipeline in PIPELINES.items():
        for stage in pipeline.stages:
            for spec, drafter in [(stage.drafter, True), *((c, False) for c in stage.critics)]:
                if spec.name not in seen:
                    seen.add(spec.name)
                    out.append((kind, stage, spec, drafter))
    return out


def _spec(agent: str) -> tuple[str, StageSpec, AgentSpec, bool]:
    for row in _specs():
        if row[2].name == agent:
            return row
    known = ", ".join(s.name for _, _, s, _ in _specs())
    raise NotFound(f"There is no agent {agent!r}; agents: {known}.")


def _stages(agent: str) -> list[str]:
    """The stages the agent works in (a critic may review several)."""
    kind = _spec(agent)[0]
    return [st.name for st in PIPELINES[kind].stages
            if agent == st.drafter.name or agent in {c.name for c in st.critics}]


def list_agents() -> list[AgentInfo]:
    """Every agent of every pipeline, drafters first within each pipeline."""
    with session_scope() as s:
        active = dict(s.exec(select(PromptVersion.agent, PromptVersion.version)
                             .where(PromptVersion.active == True)).all())  # noqa: E712
        counts = dict(s.exec(select(PromptVersion.agent, func.count())
                             .group_by(PromptVersion.agent)).all())
    return [AgentInfo(name=spec.name, role=spec.role, kind=kind, stage=stage.name,
                      is_drafter=drafter, default_text=spec.system_prompt,
                      thresholds=dict(stage.thresholds), active_version=active.get(spec.name),
                      versions=counts.get(spec.name, 0))
            for kind, stage, spec, drafter in _specs()]


def agent_info(agent: str) -> AgentInfo:
    _spec(agent)
    return next(a for a in list_agents() if a.name == agent)


# -- versions -------------------------------------------------------------------------------


def _view(row: PromptVersion) -> PromptVersionView:
    return PromptVersionView(agent=row.agent, version=row.version, text=row.text,
                             author=row.author, active=row.active, created_at=row.created_at)


def _default_view(agent: str, s: Session) -> PromptVersionView:
    any_active = s.exec(select(PromptVersion.id).where(
        PromptVersion.agent == agent, PromptVersion.active == True)).first()  # noqa: E712
    return PromptVersionView(agent=agent, version=CODE_DEFAULT, text=_spec(agent)[2].system_prompt,
                             author="code", active=any_active is None, created_at=None)


def list_versions(agent: str, *, include_default: bool = True) -> list[PromptVersionView]:
    """The agent's versions, newest first; the code default (version 0) last."""
    _spec(agent)
    with session_scope() as s:
        rows = s.exec(select(PromptVersion).where(PromptVersion.agent == agent)
                      .order_by(col(PromptVersion.version).desc())).all()
        out = [_view(r) for r in rows]
        if include_default:
            out.append(_default_view(agent, s))
        return out


def get_version(agent: str, version: int) -> PromptVersionView:
    _spec(agent)
    with session_scope() as s:
        if version == CODE_DEFAULT:
            return _default_view(agent, s)
        row = s.exec(select(PromptVersion).where(PromptVersion.agent == agent,
                                                 PromptVersion.version == version)).first()
        if row is None:
            raise NotFound(f"{agent} has no prompt version {version}.")
        return _view(row)


def _author(actor: str) -> str:
    name = clean_text(actor or "")
    if not name:
        raise InvalidInput("Say who you are before saving a prompt.", {"actor": "is required"})
    if len(name) > MAX_AUTHOR_CHARS:
        raise InvalidInput(f"The name must be at most {MAX_AUTHOR_CHARS} characters.",
                           {"actor": f"must be at most {MAX_AUTHOR_CHARS} characters"})
    return name


def _set_active(s: Session, agent: str, version: int | None) -> None:
    # One statement: no moment where two versions (or none, when one is wanted) are active.
    s.execute(update(PromptVersion).where(col(PromptVersion.agent) == agent)
              .values(active=(col(PromptVersion.version) == version) if version else False))


def save_version(*, agent: str, text: str, actor: str, activate: bool = False) -> int:
    """Save `text` as the agent's next version (by `actor`); returns its number. Refused when
    the text is empty, too long, or the same as the latest version's."""
    who = _author(actor)
    kind = _spec(agent)[0]
    body = clean_text(text or "").strip()
    if not body:
        raise InvalidInput("The prompt is empty.", {"text": "is required"})
    if len(body) > MAX_PROMPT_CHARS:
        raise InvalidInput(f"The prompt is {len(body):,} characters; the limit is "
                           f"{MAX_PROMPT_CHARS:,}.",
                           {"text": f"must be at most {MAX_PROMPT_CHARS} characters"})
    for _ in range(SAVE_ATTEMPTS):
        try:
            with session_scope() as s:
                require(who, "prompts", kind, session=s)
                latest = s.exec(select(PromptVersion).where(PromptVersion.agent == agent)
                                .order_by(col(PromptVersion.version).desc())).first()
                previous = latest.text if latest else _spec(agent)[2].system_prompt
                if body == previous.strip():
                    raise InvalidInput("No changes: the text is the same as the latest version.",
                                       {"text": "is unchanged"})
                number = (latest.version if latest else 0) + 1
                s.add(PromptVersion(agent=agent, version=number, text=body, author=who,
                                    created_at=utcnow()))
                s.flush()
                if activate:
                    _set_active(s, agent, number)
                return number
        except IntegrityError:
            continue  # someone saved the same number at the same moment: take the next one
    raise InvalidInput("Could not save the prompt: others keep saving versions of it. Try again.")


def activate(*, agent: str, version: int, actor: str) -> None:
    """Make `version` the one every new call uses (0: go back to the code default)."""
    who = _author(actor)
    kind = _spec(agent)[0]
    with session_scope() as s:
        require(who, "prompts", kind, session=s)
        if version != CODE_DEFAULT and s.exec(select(PromptVersion.id).where(
                PromptVersion.agent == agent, PromptVersion.version == version)).first() is None:
            raise NotFound(f"{agent} has no prompt version {version}.")
        _set_active(s, agent, version or None)


def diff_versions(agent: str, a: int, b: int, *, context: int = 3) -> list[str]:
    """A unified diff from version `a` to version `b` (0: the code default), line by line."""
    old, new = get_version(agent, a), get_version(agent, b)
    return list(difflib.unified_diff(
        old.text.splitlines(), new.text.splitlines(), lineterm="", n=context,
        fromfile=_label(a), tofile=_label(b)))


def _label(version: int) -> str:
    if version == CODE_DEFAULT:
        return "code default"
    if version == RUN_TEXT:
        return "per-run text"
    return f"v{version}"


# -- comparison -----------------------------------------------------------------------------


def _run_text_override(s: Session, agent: str) -> ColumnElement[bool]:
    """True where the run gave this agent a prompt text (not a version number) at start."""
    path = f'$."prompts"."{agent}"'
    if s.get_bind().dialect.name == "postgresql":
        return func.jsonb_typeof(Run.params["prompts"][agent]) == "string"  # type: ignore[index]
    return func.json_type(Run.params, path) == "text"


def compare_versions(agent: str) -> list[VersionOutcome]:
    """For every version of the agent (and the code default, and per-run texts if used), what
    the runs that used it achieved. Computed in SQL; a run that used two versions (the active
    one changed while it ran) counts for both."""
    _spec(agent)
    with session_scope() as s:
        variant = case((col(LLMCall.prompt_version).is_not(None), LLMCall.prompt_version),
                       (_run_text_override(s, agent), RUN_TEXT), else_=CODE_DEFAULT)
        used = (select(LLMCall.run_id.label("run_id"), variant.label("v"))  # type: ignore[union-attr]
                .join(Run, col(Run.id) == LLMCall.run_id)
                .where(LLMCall.agent == agent).distinct().subquery())
        runs = s.exec(
            select(used.c.v, func.count(distinct(used.c.run_id)),
                   func.sum(case((Run.status == RunStatus.APPROVED, 1), else_=0)),
                   func.sum(case((Run.status == RunStatus.REJECTED, 1), else_=0)))
            .join(Run, col(Run.id) == used.c.run_id).group_by(used.c.v)).all()
        stages = _stages(agent)
        mine = and_(Draft.author_kind == "agent", col(Draft.stage).in_(stages))
        scores = s.exec(
            select(used.c.v, Score.name, func.avg(Score.value), func.count(distinct(Draft.id)))
            .join(Draft, Draft.run_id == used.c.run_id)
            .join(Score, Score.draft_id == Draft.id)
            .where(mine).group_by(used.c.v, Score.name)).all()
        scored = s.exec(
            select(used.c.v, func.count(distinct(Draft.id)))
            .join(Draft, Draft.run_id == used.c.run_id)
            .join(Score, Score.draft_id == Draft.id)
            .where(mine).group_by(used.c.v)).all()
        # The first decide (by step order) that found every threshold met in a stage this
        # agent works in: its iteration is the number of agent drafts it took.
        met = and_(Step.node == "decide", Step.status == "done", col(Step.stage).in_(stages),
                   col(Step.detail).like("thresholds met%"))
        first = (select(Step.run_id.label("run_id"), func.min(Step.seq).label("seq"))
                 .where(met).group_by(Step.run_id).subquery())
        passes = s.exec(
            select(used.c.v, func.count(Step.run_id), func.avg(Step.iteration))
            .join(first, first.c.run_id == used.c.run_id)
            .join(Step, and_(Step.run_id == first.c.run_id, Step.seq == first.c.seq))
            .group_by(used.c.v)).all()
        costs = s.exec(
            select(used.c.v, func.coalesce(func.sum(LLMCall.cost_usd), 0.0))
            .join(LLMCall, LLMCall.run_id == used.c.run_id).group_by(used.c.v)).all()
        versions = s.exec(select(PromptVersion.version, PromptVersion.active)
                          .where(PromptVersion.agent == agent)).all()
    return _outcomes(agent, runs, scores, scored, passes, costs, versions)


def _outcomes(agent, runs, scores, scored, passes, costs, versions) -> list[VersionOutcome]:  # type: ignore[no-untyped-def]
    active = {v for v, a in versions if a}
    keys = {int(v) for v, _ in versions} | {CODE_DEFAULT} | {int(r[0]) for r in runs}
    by_runs = {int(v): (int(n), int(a or 0), int(r or 0)) for v, n, a, r in runs}
    by_scores: dict[int, dict[str, float]] = {}
    for v, name, mean, _n in scores:
        by_scores.setdefault(int(v), {})[name] = float(mean)
    by_scored = {int(v): int(n) for v, n in scored}
    by_pass = {int(v): (int(n), float(m) if m is not None else None) for v, n, m in passes}
    by_cost = {int(v): float(c or 0.0) for v, c in costs}
    out = []
    for v in sorted(keys, key=lambda k: (k <= 0, -k)):
        n, approved, rejected = by_runs.get(v, (0, 0, 0))
        passed, mean_it = by_pass.get(v, (0, None))
        cost = by_cost.get(v, 0.0)
        decided = approved + rejected
        out.append(VersionOutcome(
            agent=agent, version=v, label=_label(v),
            active=v in active or (v == CODE_DEFAULT and not active),
            runs=n, drafts_scored=by_scored.get(v, 0), mean_scores=by_scores.get(v, {}),
            runs_passed=passed, mean_iterations_to_pass=mean_it,
            approved=approved, rejected=rejected,
            approval_rate=approved / decided if decided else None,
            cost_usd=cost, cost_per_approved=cost / approved if approved else None))
    return out
