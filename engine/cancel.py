"""Calling off a queued run before a worker takes it (issue 16's leftover: "Halt the loop" was
offered on a run that had not started). A person act like the others in engine/service.py: the
run's state changes through engine/run_state.cancel, and who did it and why are sealed into the
run's audit trail in the same transaction.

It races the workers' claims fairly: the act and a claim both bump the run's version, so
whichever commits second fails (a claim finds the run no longer queued; the act, a run a worker
took meanwhile, says so and changes nothing: halt it instead)."""

from __future__ import annotations

from engine import run_state
from engine.identity import require
from engine.run_state import RunStatus
from engine.service import _acting_on, _actor, _comment, _record
from engine.signin import require_verified

__all__ = ["cancel"]


def cancel(*, run_id: int, actor: str, reason: str, expected_version: int | None = None,
           verified: bool = False) -> str:
    """Cancel a queued run; `reason` is required (the audit trail says why). Returns the run's
    status after: rejected when it had written nothing, awaiting_review when it had versions
    (a revision or re-score it was queued for is called off; they wait as they were)."""
    who = _actor(actor)
    require_verified(who, verified)
    why = _comment(reason, required=True, what="reason")
    with _acting_on(run_id, expected_version, (RunStatus.QUEUED,), "cancel") as (s, run):
        require(who, "halt", run.kind, session=s)  # who may stop a run may stop it sooner
        _record(s, run, who, "cancel", draft_id=run.current_draft_id, comment=why,
                verified=verified)
        run_state.cancel(run)
        return run.status
