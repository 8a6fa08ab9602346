"""What the demo generator takes from the current pipelines: stage names, agent names, score
names, thresholds and iteration limits, read from the pipeline specs (never copied), so the
demo data always names what the code defines."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.pipelines.registry import get_pipeline
from engine.service import RunParams


@dataclass(frozen=True)
class StagePlan:
    name: str
    drafter: str
    critics: tuple[str, ...]
    thresholds: dict[str, float]
    max_iterations: int

    def source_of(self, score: str) -> str:
        """The critic that gives a score: the one named after it, else the last one."""
        return next((c for c in self.critics if score in c), self.critics[-1])


def stage_plans(kind: str) -> tuple[StagePlan, ...]:
    return tuple(StagePlan(name=s.name, drafter=s.drafter.name,
                           critics=tuple(c.name for c in s.critics),
                           thresholds=dict(s.thresholds), max_iterations=s.max_iterations)
                 for s in get_pipeline(kind).stages)


def default_params() -> dict[str, Any]:
    """The params a run started with no options has (service.start_run)."""
    return RunParams().model_dump(mode="json", exclude={"budget_usd"})


def agents(kind: str) -> list[str]:
    out: list[str] = []
    for s in stage_plans(kind):
        out += [a for a in (s.drafter, *s.critics) if a not in out]
    return out
