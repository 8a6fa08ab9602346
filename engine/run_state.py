"""A run's state machine: its statuses, the loop's next node, why it halted, and every legal
transition between them, in one place. The services (engine/service.py) and the loop
(engine/loop/) both change a run's state only through these functions; the lease claim and
release (engine/loop/leases.py) build their UPDATEs from `claimed_values` and
`released_values`.

The functions act on anything shaped like a run (the ORM `Run`, the loop's `RunRow`) and
refuse an illegal transition with IllegalTransition, naming the run's state and what the
transition needs; they do not write: the caller saves the run under its version check.

    queued --claim--> running --to_review / stop--> awaiting_review --queue--> queued
       |                 |  \\--fail--> failed --retry--> queued
       |                 \\--request_halt (after the current step)
       \\--request_halt--> awaiting_review
    queued --cancel--> rejected (no version yet) | awaiting_review (its versions as they were)
    awaiting_review --approve--> approved | queued (next stage: node "advance")
    awaiting_review | failed --reject--> rejected
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum, nonmember
from typing import Any, Protocol

from db.models import utcnow
from engine.errors import InvalidState


class RunStatus(StrEnum):
    QUEUED = "queued"  # waiting for a worker
    RUNNING = "running"  # a worker holds the lease
    REVIEW = "awaiting_review"  # halted for a person
    APPROVED = "approved"
    REJECTED = "rejected"
    FAILED = "failed"  # a step failed after retries; waits for a person (retry)

    ACTIVE = nonmember(("queued", "running"))
    FINAL = nonmember(("approved", "rejected"))
    ALL = nonmember(("queued", "running", "awaiting_review", "approved", "rejected", "failed"))


class Node(StrEnum):
    """What the supervisor runs next (Run.next_node; None: nothing, the run is idle)."""

    DRAFT = "draft"
    REVIEW = "review"
    DECIDE = "decide"
    ADVANCE = "advance"  # a person approved a stage: move the run to the next one


class HaltReason(StrEnum):
    """Why a run waits for a person (Run.halt_reason); a failed step's is "error:<kind>"."""

    THRESHOLDS_MET = "thresholds_met"
    MAX_ITERATIONS = "max_iterations"
    STALLED = "stalled"
    BUDGET_REACHED = "budget_reached"
    HALTED = "halted"
    RESCORED = "rescored"
    FINAL_STAGE = "final_stage"
    CANCELLED = "cancelled"  # stream: a queued run called off before a worker took it


HALT_LABELS: dict[str, str] = {
    HaltReason.THRESHOLDS_MET: "every score met its threshold",
    HaltReason.MAX_ITERATIONS: "iteration limit reached without meeting the thresholds",
    HaltReason.STALLED: ("stalled: the last revision repeated an earlier version's text, with "
                         "the same scores"),
    HaltReason.BUDGET_REACHED: "budget reached",
    HaltReason.HALTED: "halted by a person",
    HaltReason.RESCORED: "a person's edit was re-scored",
    HaltReason.FINAL_STAGE: "last stage done",
    HaltReason.CANCELLED: "cancelled before it started",
}


def halt_label(reason: str | None) -> str:
    """A halt reason as a person reads it ("" for none)."""
    if not reason:
        return ""
    if reason.startswith("error:"):
        return f"error ({reason.split(':', 1)[1].replace('_', ' ')})"
    return HALT_LABELS.get(reason, reason.replace("_", " "))


class RunLike(Protocol):
    id: int | None
    status: str
    next_node: str | None
    review_mode: str
    halt_reason: str | None
    halt_requested: bool
    error: str | None
    iteration: int
    stage: str
    current_draft_id: int | None
    best_draft_id: int | None
    approved_draft_id: int | None
    lease_owner: str | None
    lease_expires: datetime | None
    updated_at: datetime


class IllegalTransition(InvalidState):
    """A transition the run's state does not allow (a bug in the caller, or a race the
    caller's version check should have caught)."""


def _require(run: RunLike, what: str, allowed: tuple[str, ...]) -> None:
    if run.status not in allowed:
        raise IllegalTransition(
            f"Cannot {what} run {run.id}: it is {str(run.status).replace('_', ' ')} "
            f"(possible when it is {' or '.join(a.replace('_', ' ') for a in allowed)})."
        )


def _release_lease(run: RunLike) -> None:
    run.lease_owner = None
    run.lease_expires = None


# -- a person's acts (engine/service.py) ------------------------------------------------------


def queue(run: RunLike, node: Node | str, review_mode: str = "loop") -> None:
    """Hand the run back to the workers, to run `node` next."""
    _require(run, "queue", (RunStatus.REVIEW, RunStatus.FAILED))
    run.status = RunStatus.QUEUED
    run.next_node = Node(node)
    run.review_mode = review_mode
    run.halt_reason = None
    run.halt_requested = False
    run.error = None


def approve(run: RunLike, draft_id: int, *, last_stage: bool) -> None:
    """A person approved a version: the run is done, or (a stage of several) moves on."""
    _require(run, "approve", (RunStatus.REVIEW,))
    run.approved_draft_id = draft_id
    if last_stage:
        run.status = RunStatus.APPROVED
        run.next_node = None
        run.halt_reason = None
    else:  # the stage's completion signal: the supervisor moves the run to the next stage
        queue(run, Node.ADVANCE)


def reject(run: RunLike) -> None:
    _require(run, "reject", (RunStatus.REVIEW, RunStatus.FAILED))
    run.status = RunStatus.REJECTED
    run.next_node = None


def request_halt(run: RunLike) -> None:
    """A queued run waits for review at once; a running one after its current step."""
    _require(run, "halt", RunStatus.ACTIVE)
    if run.status == RunStatus.QUEUED:
        run.status = RunStatus.REVIEW
        run.halt_reason = HaltReason.HALTED
    else:
        run.halt_requested = True


# -- stream (issue 16): a queued run called off before it starts ------------------------------
def cancel(run: RunLike) -> None:
    """A queued run called off before a worker takes it: with no version yet it is rejected
    (there is nothing to review); queued after a person's act (a revision, a re-score, a
    stage's approval) it goes back to review of its versions as they were."""
    _require(run, "cancel", (RunStatus.QUEUED,))
    if run.next_node == Node.ADVANCE:
        run.approved_draft_id = None  # the stage waits for an approval again
    run.status = RunStatus.REVIEW if run.current_draft_id is not None else RunStatus.REJECTED
    run.next_node = None
    run.halt_reason = HaltReason.CANCELLED
    run.halt_requested = False
# -- end stream ----------------------------------------------------------------------------------


def retry(run: RunLike) -> None:
    """Run the failed step again; nothing already committed is touched."""
    _require(run, "retry", (RunStatus.FAILED,))
    queue(run, run.next_node or Node.DRAFT, run.review_mode)


def resume_after_budget(run: RunLike) -> bool:
    """A run its budget halted goes on (a person raised the budget); False when the run was
    not halted by its budget, which is left as it is."""
    if (run.status != RunStatus.REVIEW or run.halt_reason != HaltReason.BUDGET_REACHED
            or not run.next_node):
        return False
    queue(run, run.next_node, run.review_mode)
    return True


# -- the loop (engine/loop/) -------------------------------------------------------------------


def claimed_values(worker: Any, until: Any, now: Any) -> dict[str, Any]:
    """The columns a claim sets (queued, or running with an expired lease -> running); the
    claim is one conditional UPDATE in engine/loop/leases.py, which also bumps the version.
    The values may be the statement's bound parameters."""
    return {"status": RunStatus.RUNNING, "lease_owner": worker, "lease_expires": until,
            "updated_at": now}


CLAIMABLE = (RunStatus.QUEUED,)
"""A run a worker may claim; also a running one whose lease expired (its worker died)."""


def released_values() -> dict[str, Any]:
    """The columns a worker's clean exit sets on a run it holds (running -> queued)."""
    return {"status": RunStatus.QUEUED, "lease_owner": None, "lease_expires": None}


def goto(run: RunLike, node: Node) -> None:
    """The loop's next node, within a running run."""
    _require(run, f"move to {node}", (RunStatus.RUNNING,))
    run.next_node = node


def to_review(run: RunLike, reason: HaltReason | str | None) -> None:
    """The run waits for a person, for `reason`; its lease is given back. A person's halt
    keeps the node the run was about to run (a revision resumes there)."""
    _require(run, "hand over for review", (RunStatus.RUNNING,))
    run.status = RunStatus.REVIEW
    run.halt_reason = reason
    run.halt_requested = False
    if reason != HaltReason.HALTED:
        run.next_node = None
    _release_lease(run)
    run.updated_at = utcnow()


def stop_on_budget(run: RunLike) -> None:
    """The next call would go over the budget: the run waits for a person with its node kept,
    so raising the budget lets it go on (resume_after_budget)."""
    _require(run, "stop", (RunStatus.RUNNING,))
    run.status = RunStatus.REVIEW
    run.halt_reason = HaltReason.BUDGET_REACHED
    run.error = None
    _release_lease(run)
    run.updated_at = utcnow()


def fail(run: RunLike, kind: str, message: str) -> None:
    """A step failed (after the backend's retries): the run waits for a person's retry."""
    _require(run, "fail", (RunStatus.RUNNING,))
    run.status = RunStatus.FAILED
    run.halt_reason = f"error:{kind}"
    run.error = message
    _release_lease(run)
    run.updated_at = utcnow()


def advance_stage(run: RunLike, next_stage: str) -> None:
    """A person approved the stage's output: the run moves to `next_stage`, with a fresh
    iteration budget and no current draft."""
    _require(run, "advance", (RunStatus.RUNNING,))
    if run.next_node != Node.ADVANCE:
        raise IllegalTransition(f"Cannot advance run {run.id}: no stage approval is pending.")
    run.stage = next_stage
    run.iteration = 0
    run.current_draft_id = None
    run.best_draft_id = None
    run.approved_draft_id = None
    run.review_mode = "loop"
    run.next_node = Node.DRAFT


__all__ = [
    "CLAIMABLE",
    "HALT_LABELS",
    "HaltReason",
    "IllegalTransition",
    "Node",
    "RunStatus",
    "advance_stage",
    "approve",
    "cancel",
    "claimed_values",
    "fail",
    "goto",
    "halt_label",
    "queue",
    "reject",
    "released_values",
    "request_halt",
    "resume_after_budget",
    "retry",
    "stop_on_budget",
    "to_review",
]
