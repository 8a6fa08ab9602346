"""The campaign's team (Workforce hierarchy over Creo's stages): the Orchestrator hands each
stage to the Marketing Lead, who delegates it to the stage's worker and evaluates the result
through the Evaluator before anything reaches a person. Data only; engine/team/ records it."""

from __future__ import annotations

from engine.pipelines.base import StageSpec
from engine.team.models import Member, TeamSpec

ORCHESTRATOR = Member("orchestrator", "Orchestrator", None)
LEAD = Member("marketing_lead", "Marketing Lead", "orchestrator", acts_through=("evaluator",))
TITLES = {"brief": "Brief writer", "creators": "Creator scout", "outreach": "Outreach writer",
          "plan": "Planner"}
ASSIGNMENTS = {
    "brief": "Write the campaign brief from the business card and the goal.",
    "creators": "Scout creators for the approved brief and shortlist the best matches.",
    "outreach": "Write outreach to every shortlisted creator on every campaign channel.",
    "plan": "Assemble the campaign plan from the approved brief, shortlist and outreach.",
}


def campaign_team(stages: tuple[StageSpec, ...]) -> TeamSpec:
    """The team for these stages: each stage's worker is its drafter agent."""
    return TeamSpec(
        orchestrator=ORCHESTRATOR,
        lead=LEAD,
        workers={s.name: Member(s.drafter.name, TITLES.get(s.name, s.drafter.role), LEAD.name)
                 for s in stages},
        assignments=ASSIGNMENTS,
    )
