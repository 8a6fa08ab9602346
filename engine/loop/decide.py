"""The supervisor's decision, as plain functions: critic scores bound by the deterministic
checks, the thresholds and the gate, and the board of a stage's versions it picks the best
from. No model and no ORM session: the loop (engine/loop/) calls these inside the
review's transaction; the LangGraph bench calls the same ones."""

from __future__ import annotations

from dataclasses import dataclass, field
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Any

from sqlalchemy.engine import Connection

from engine.checks.terms import normalise, number_list
from engine.loop.sql import SEL_BOARD
from engine.pipelines.base import Review, StageSpec


def thresholds_for(stage: StageSpec, params: dict[str, Any]) -> dict[str, float]:
    merged = dict(stage.thresholds)
    merged.update({k: float(v) for k, v in (params.get("thresholds") or {}).items()})
    return merged


def max_iterations_for(stage: StageSpec, params: dict[str, Any]) -> int:
    return int(params.get("max_iterations") or stage.max_iterations)


def clamp01(x: float) -> float:
    return 0.0 if x != x else max(0.0, min(1.0, float(x)))  # NaN -> 0


def as_review(out: Any) -> Review:
    """Critics answer in their own schema (named score fields) or directly as a Review."""
    if isinstance(out, Review):
        return out
    if hasattr(out, "to_review"):
        return out.to_review()
    return Review.model_validate(out.model_dump())


def combine_review(
    stage: StageSpec, reviews: list[tuple[str, Review]], caps: dict[str, float]
) -> dict[str, tuple[float, float | None, float | None, str]]:
    """Critic scores bound by the deterministic checks: final = min(critic, cap). A score only
    the checks give stands on its own; two critics giving the same name: the lower wins.
    Score names the stage does not use are dropped (a model may invent some)."""
    known = set(stage.thresholds) | set(caps)
    out: dict[str, tuple[float, float | None, float | None, str]] = {}
    for author, review in reviews:
        for s in review.scores:
            if s.name not in known:
                continue
            llm = clamp01(s.value)
            cap = caps.get(s.name)
            value = min(llm, cap) if cap is not None else llm
            if s.name not in out or value < out[s.name][0]:
                out[s.name] = (value, llm, cap, author)
    for name, cap in caps.items():
        if name not in out:
            out[name] = (clamp01(cap), None, cap, "checks")
    return out


NEAR_IDENTICAL_WORDS = 2
"""A revision that changes at most this many words (and no number) of its previous version
did not change the text: it is never counted as progress."""


def same_text(text: str, previous: str) -> bool:
    """The same text but for whitespace."""
    return text.split() == previous.split()


@lru_cache(maxsize=256)
def unchanged(before: str, after: str) -> bool:
    """The one definition of a revision that repeats its previous version (the loop's stall
    and the no-change check both ask it): `after` changes at most a couple of words of
    `before` (Markdown, punctuation, list numbers and spacing aside) and no number. Cached:
    the review's checks and the decision after it ask about the same pair of texts."""
    if before.count("!") != after.count("!"):  # "drop the exclamation marks": the tone moved
        return False
    a, b = normalise(before).split(), normalise(after).split()
    if a == b:
        return True
    if number_list(before) != number_list(after):  # a moved number is a real change
        return False
    ops = SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()
    edits = sum(max(i2 - i1, j2 - j1) for op, i1, i2, j1, j2 in ops if op != "equal")
    return edits <= NEAR_IDENTICAL_WORDS


def scores_moved(now: dict[str, float], before: dict[str, float]) -> bool:
    """Any score given, dropped or changed between two versions."""
    return now.keys() != before.keys() or any(abs(v - before[k]) > 1e-6 for k, v in now.items())


def review_verdict(verdicts: list[str]) -> str | None:
    """The critics' verdicts on one version as one: REVISE when any said so, else PASS; None
    when no critic gives one."""
    if not verdicts:
        return None
    return "PASS" if all(v == "PASS" for v in verdicts) else "REVISE"


@dataclass(frozen=True)
class GateVerdict:
    passed: bool
    why: str


def gate(
    scores: dict[str, float],
    blocking_flags: list[str],
    thresholds: dict[str, float],
    verdicts: list[str] | None = None,
) -> GateVerdict:
    """Thresholds met, no blocking flag, and (where the rubric has one) a PASS verdict."""
    short = [
        f"{n} {scores.get(n, 0):.2f} < {t:.2f}"
        for n, t in thresholds.items()
        if scores.get(n, 0.0) < t
    ]
    if blocking_flags:
        short.append(
            f"{len(blocking_flags)} open flag(s): {', '.join(sorted(set(blocking_flags)))}"
        )
    if verdicts is not None and any(v != "PASS" for v in verdicts):
        short.append("evaluator verdict REVISE")
    return GateVerdict(not short, "; ".join(short) or "all thresholds met")


@dataclass
class Board:
    """A stage's versions with their scores and blocking flags, and the run's spend (one query)."""

    versions: dict[int, int]  # draft id -> version
    scores: dict[int, dict[str, float]]
    blocking: dict[int, list[str]]  # draft id -> categories of its blocking flags
    spend: float = 0.0  # USD of the run's recorded calls
    verdicts: dict[int, str] = field(default_factory=dict)  # draft id -> PASS | REVISE

    @classmethod
    def read(cls, c: Connection, run_id: int, stage: str) -> Board:
        versions: dict[int, int] = {}
        scores: dict[int, dict[str, float]] = {}
        blocking: dict[int, list[str]] = {}
        verdicts: dict[int, str] = {}
        spend = 0.0
        for part, did, version, name, value in SEL_BOARD.rows(
            c, {"b_run": run_id, "b_stage": stage}
        ):
            if part == "v":
                versions[did] = version
                if name is not None:
                    verdicts[did] = name
            elif part == "s":
                scores.setdefault(did, {})[name] = value
            elif part == "f":
                blocking.setdefault(did, []).append(name)
            else:
                spend = float(value or 0.0)
        return cls(versions, scores, blocking, spend, verdicts)

    def best(self, thresholds: dict[str, float]) -> int | None:
        """The version to put first in front of a person: passing and unflagged beats the rest,
        then the one with the best worst margin over its thresholds, then the newest."""
        if not self.versions:
            return None

        def key(did: int) -> tuple[int, int, float, float, int]:
            sc = self.scores.get(did, {})
            margins = [sc.get(n, 0.0) - t for n, t in thresholds.items()] or [0.0]
            return (
                1 if sc else 0,
                0 if did in self.blocking else 1,
                min(margins),
                sum(sc.values()) / max(1, len(sc)),
                self.versions[did],
            )

        return max(self.versions, key=key)
