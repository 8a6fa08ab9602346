"""A run's live progress in words (issue 15): which agent is doing what, for how long, and each
step of the current burst of work as it lands. Pure: built from the run's read model
(engine/views.RunDetail) and its live row (engine/live_draft.LiveView), so the Run page redraws
it at every poll without another query."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from pydantic import BaseModel

from engine.live_draft import LiveView
from engine.pipelines.registry import PIPELINES
from engine.views import RunDetail, StepView

_CHARS = re.compile(r"\((\d+) chars\)")
SHOWN = 8
"""Steps of the current burst shown (the newest); the Steps tab has every one."""


class StepLine(BaseModel):
    seq: int
    node: str
    state: str
    """running | done | error | stopped | abandoned"""
    who: str
    """The agent(s) at work, as a person names them: "Drafter", "Safety guardian and Clinical
    critic", "Supervisor"."""
    what: str
    """What they did or are doing: "is writing v2", "wrote v1 (1,561 characters)"."""
    seconds: float
    """Taken, or so far while running."""
    live: str | None = None
    """While running: what has streamed in so far ("1,234 characters so far")."""


def _name(agent: str) -> str:
    return agent.replace("_", " ").capitalize()


def agents_of(kind: str, stage: str, node: str) -> str:
    """Who works on a node of this pipeline's stage, by name."""
    pipeline = PIPELINES.get(kind)
    spec = next((s for s in pipeline.stages if s.name == stage), None) if pipeline else None
    if node == "decide":
        return "Supervisor"
    if node == "advance":
        return "Supervisor"
    if spec is None:
        return node.capitalize()
    if node == "draft":
        return _name(spec.drafter.name)
    if node == "review":
        names = [_name(c.name) for c in spec.critics]
        return " and ".join(names) if len(names) < 3 else f"{len(names)} critics"
    return node.capitalize()


def _version(detail: RunDetail, step: StepView) -> int:
    """The version a step wrote (or is writing) or scored: a draft step's own, else the latest
    written before it."""
    by_id = {d.id: d.version for d in detail.drafts}
    if step.draft_id in by_id:
        return by_id[step.draft_id]
    earlier = [by_id[s.draft_id] for s in detail.steps
               if s.seq < step.seq and s.draft_id in by_id]
    before = earlier[-1] if earlier else 0
    return before + 1 if step.node == "draft" else max(1, before)


def round_of(detail: RunDetail, lines: list[StepLine]) -> int:
    """Which round of draft and review the run is in (a draft being written starts one)."""
    writing = any(ln.state == "running" and ln.node == "draft" for ln in lines)
    return max(1, detail.iteration + (1 if writing else 0))


def _what(detail: RunDetail, step: StepView) -> str:
    v = _version(detail, step)
    running = step.status == "running"
    if step.status == "abandoned":
        return "was cut off (its worker stopped); the step is done again"
    if step.status in ("error", "stopped"):
        return f"stopped: {step.error or step.detail or step.status}"
    if step.node == "draft":
        if running:
            return f"is writing v{v}"
        chars = _CHARS.search(step.detail or "")
        return f"wrote v{v}" + (f" ({int(chars[1]):,} characters)" if chars else "")
    if step.node == "review":
        return f"are scoring v{v}" if running else f"scored v{v}: {step.detail or 'done'}"
    if step.node == "decide":
        return "is deciding" if running else f"decided: {step.detail or 'done'}"
    if step.node == "advance":
        return "is moving to the next stage" if running else (step.detail or "moved on")
    return "is working" if running else (step.detail or "done")


def burst(detail: RunDetail) -> list[StepView]:
    """The steps since the work last started (the run's creation or a person's last act)."""
    since = detail.created_at
    if detail.actions:
        since = max(since, detail.actions[-1].at)
    return [s for s in detail.steps if _aware(s.started_at) >= _aware(since)]


def _aware(t: datetime) -> datetime:
    return t if t.tzinfo else t.replace(tzinfo=UTC)


def step_lines(detail: RunDetail, live: LiveView | None, now: datetime) -> list[StepLine]:
    """The current burst's steps, newest last, as lines a person reads."""
    lines = []
    for step in burst(detail)[-SHOWN:]:
        end = _aware(step.finished_at) if step.finished_at else now
        line = StepLine(seq=step.seq, node=step.node, state=step.status,
                        who=agents_of(detail.kind, step.stage, step.node),
                        what=_what(detail, step),
                        seconds=max(0.0, (end - _aware(step.started_at)).total_seconds()))
        if step.status == "running" and live is not None:
            line.live = _live(live)
        lines.append(line)
    return lines


def _live(live: LiveView) -> str | None:
    if live.agent == "critics":
        done = live.text.count("**:") - live.text.count("_scoring…_")
        return f"{done} of {live.text.count('**:')} critics done" if live.text else None
    return f"{live.chars:,} characters so far" if live.chars else None


def headline(detail: RunDetail, lines: list[StepLine]) -> str:
    """One line for the run's state now: the running step's, or what happens next."""
    running = next((ln for ln in reversed(lines) if ln.state == "running"), None)
    if running is not None:
        return f"{running.who} {running.what}"
    if lines:
        return "Opening the next step"  # between one step's commit and the next's start
    return "Starting"
