"""The demo generator's state: the rows it has made (tuples in the INSERTs' column order), the
next id per table, one run while it is made, and how a run ended."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass
class Rows:
    runs: list[tuple[Any, ...]] = field(default_factory=list)
    steps: list[tuple[Any, ...]] = field(default_factory=list)
    calls: list[tuple[Any, ...]] = field(default_factory=list)
    drafts: list[tuple[Any, ...]] = field(default_factory=list)
    scores: list[tuple[Any, ...]] = field(default_factory=list)
    actions: list[tuple[Any, ...]] = field(default_factory=list)

    def clear(self) -> None:
        for rows in vars(self).values():
            rows.clear()


@dataclass
class Ids:
    run: int
    step: int
    call: int
    draft: int
    score: int
    action: int


@dataclass
class RunState:
    """One run while it is generated."""

    id: int
    kind: str
    who: str
    model: str
    backend: str
    speed: float
    err_rate: float
    budget: float | None
    left: int
    """Calls still to make."""
    t: datetime
    title: str = ""
    """The run's request (a protocol's intent, a campaign's goal): its drafts are about it."""
    seq: int = 0
    cost: float = 0.0
    version: int = 0
    draft_id: int | None = None
    approved_id: int | None = None
    audit_head: str | None = None
    """The hash of the run's last act (engine/audit_chain.py): each act is sealed to it."""


@dataclass
class Ending:
    status: str
    halt_reason: str | None
    next_node: str | None = None
    error: str | None = None
