"""Why a run that waits for review has no draft to review, and what a person can do: a run
stopped by its budget (or halted) before its first draft would otherwise offer an approve
button for nothing. Used by `show`, `approve` and the Run page."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.views import RunDetail


@dataclass(frozen=True)
class NothingToReview:
    why: str
    """One sentence: what happened, with the figures that matter."""
    remedies: tuple[str, ...]
    """What can be done, in the order a person would try it."""

    def sentence(self) -> str:
        return f"{self.why} {' '.join(self.remedies)}"


def nothing_to_review(d: RunDetail) -> NothingToReview | None:
    """None when the run has a draft of its current stage to review, or is not waiting."""
    if d.status != "awaiting_review" or any(x.stage == d.stage for x in d.drafts):
        return None
    if d.halt_reason == "budget_reached":
        budget = f"${d.budget_usd:,.4f}" if d.budget_usd is not None else "its budget"
        return NothingToReview(
            why=(f"Run {d.id} has nothing to review: it stopped at its budget ({budget}, "
                 f"${d.cost_usd:,.4f} spent) before the first draft of its {d.stage} stage "
                 "was written."),
            remedies=("Raise the run's budget and it goes on by itself;",
                      "or start a new run with a larger budget."))
    how = f"it stopped ({d.halt_reason.replace('_', ' ')})" if d.halt_reason else "it stopped"
    return NothingToReview(
        why=f"Run {d.id} has nothing to review: {how} before the first draft of its "
            f"{d.stage} stage was written.",
        remedies=("Start a new run with the same input, or reject this one.",))
