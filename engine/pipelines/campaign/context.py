"""What a campaign step is given from the database when it opens, so the agents, checks and
renderers after it are pure: the brand profile and the creator directory (review_context), and
for a drafter also the approved outputs of earlier stages, the ranked candidates, the
feedback (stage_context)."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, col, select

from db.models import Draft, HumanAction, Run
from engine.pipelines.campaign.brands import load_brand
from engine.pipelines.campaign.creators import (
    as_context,
    directory,
    rank_creators,
    resolve_shortlist,
)
from engine.pipelines.campaign.market import market_summary
from engine.pipelines.campaign.models import STAGES, CampaignInput

CANDIDATES = 15
"""How many ranked candidates the creator finder is shown."""

def approved_contents(session: Session, run_id: int) -> dict[str, str]:
    """The approved text of each stage of a run (the latest approval wins)."""
    rows = session.exec(
        select(HumanAction, Draft)
        .join(Draft, col(Draft.id) == col(HumanAction.draft_id))
        .where(HumanAction.run_id == run_id,
               col(HumanAction.action).in_(["approve", "approve_override"]))
        .order_by(col(HumanAction.at))
    ).all()
    return {d.stage: d.content for _, d in rows}


def stage_feedback(session: Session, run_id: int, stage: str) -> list[str]:
    """The comments people sent back on versions of this stage, oldest first."""
    rows = session.exec(
        select(HumanAction, Draft)
        .join(Draft, col(Draft.id) == col(HumanAction.draft_id))
        .where(HumanAction.run_id == run_id, HumanAction.action == "revise")
        .order_by(col(HumanAction.at))
    ).all()
    return [a.comment for a, d in rows if d.stage == stage and a.comment]


def review_context(session: Session, run_input: dict[str, Any], stage: str) -> dict[str, Any]:
    """The brand profile (its banned words and claims, its voice) and, where creators are
    named (shortlist, outreach), the directory entries to check them against."""
    brand = load_brand(session, run_input.get("brand_id"))
    ctx: dict[str, Any] = {"brand": brand.model_dump(mode="json") if brand
                           else {"name": str(run_input.get("brand_name") or "")}}
    if stage in ("creators", "outreach"):
        ctx["directory"] = {c.handle: c.model_dump(mode="json") for c in directory(session)}
    return ctx


def stage_context(session: Session, run_id: int, stage: str) -> dict[str, Any]:
    run = session.get(Run, run_id)
    if run is None:
        return {}
    i = CampaignInput.model_validate(run.input)
    brand = load_brand(session, i.brand_id)
    ctx = review_context(session, run.input, stage)
    approved = approved_contents(session, run_id)
    ctx["feedback"] = stage_feedback(session, run_id, stage)
    # Where the campaign runs: how paid posts are marked there, how fees are written, spelling.
    ctx["market"] = market_summary(run.input, brand)
    # The campaign's first day, from which a goal's end date ("by the end of January") is
    # counted: the run's, so every version of every stage counts from the same day.
    ctx["today"] = run.created_at.date().isoformat()
    at = STAGES.index(stage)
    if at >= 1:
        ctx["brief"] = approved.get("brief", "")
    if stage == "creators":
        ranked = rank_creators(directory(session), brand=brand,
                               goal=f"{i.goal}\n{ctx['brief']}", audience=i.audience,
                               channels=list(i.channels), budget=i.budget, n=i.num_creators)
        ctx["candidates"] = [
            m.creator.model_dump() | {"match": m.score, "reasons": m.reasons}
            for m in ranked[:CANDIDATES]]
    if at >= 2:
        ctx["shortlist"] = as_context(resolve_shortlist(session, approved.get("creators", "")))
    if at >= 3:
        ctx["outreach"] = approved.get("outreach", "")
    return ctx
