"""The offline campaign builder: the PLAN from the approved brief, shortlist and outreach."""

from __future__ import annotations

from typing import Any

from engine.llm.offline.campaign.brief import success_metrics
from engine.llm.offline.campaign.common import (
    _sentence_case,
    brand_name_of,
    brand_of,
    stage_feedback,
)
from engine.llm.offline.campaign.outreach import PLATFORM_SHORT
from engine.markdown import list_items
from engine.pipelines.base import DraftTask
from engine.pipelines.campaign.channels import LABELS
from engine.pipelines.campaign.creators import per_creator_budget, reach_channel
from engine.pipelines.campaign.deadline import campaign_start
from engine.pipelines.campaign.goal import goal_window
from engine.pipelines.campaign.market import market_for
from engine.pipelines.campaign.models import (
    BudgetLine,
    CreatorDeliverable,
    Kpi,
    PlanDraft,
    ScheduleItem,
)
from engine.pipelines.campaign.money import usd
from engine.pipelines.campaign.outreach import parse_outreach
from engine.pipelines.campaign.schedule import phases, post_windows, results_label
from engine.pipelines.campaign.text import find_section, sections


def _kpis_from_brief(brief: str) -> list[Kpi]:
    body = find_section(sections(brief), "success", "metric", "kpi") or ""
    kpis = []
    for item in list_items(body.split("\n"))[0]:
        name, colon, target = item.partition(":")
        if colon and name.strip() and target.strip():
            kpis.append(Kpi(name=name.strip(), target=target.strip()))
    return kpis


def _offered_fees(outreach: Any) -> dict[str, float]:
    """The fee each approved outreach message offers (a person may have changed it there)."""
    out: dict[str, float] = {}
    for m in outreach.messages:
        if found := usd(m.body or ""):
            out.setdefault(m.handle, found[0])
    return out


def _over_budget(deliverables: list[CreatorDeliverable], limit: float) -> str:
    """Why a fee above the per-creator budget stands: it is the one the outreach offered."""
    over = [f"{d.creator_handle} ${d.fee_usd:,.0f}" for d in deliverables
            if d.fee_usd > limit * 1.01]
    if not over:
        return ""
    return (f" Fees above the ${limit:,.0f} per creator ({', '.join(over)}) were agreed in "
            "the approved outreach; the other lines take the difference.")


def draft_plan(task: DraftTask) -> PlanDraft:
    i = task.input
    brand = brand_of(task.context)
    name = brand_name_of(i, brand)
    market = market_for(i, brand)
    budget = float(i.get("budget") or 0)
    shortlist: list[dict[str, Any]] = list(task.context.get("shortlist", []))
    outreach = parse_outreach(task.context.get("outreach", "") or "")
    campaign_channels = list(i.get("channels", []))
    goal = str(i.get("goal", ""))
    start = campaign_start(task.context)
    when = phases(goal, start)  # the goal's own length or end date, else 5 weeks
    n = max(1, len(shortlist))
    creator_share = budget * 0.70
    offered = _offered_fees(outreach)
    fees = [offered.get(e["handle"]) or float(e.get("fee_usd") or 0)
            or per_creator_budget(budget, n) for e in shortlist]
    # Fees the outreach offered are agreed terms: kept as they are (the other lines shrink).
    scale = 1.0 if offered else min(1.0, creator_share / sum(fees)) if sum(fees) else 1.0
    deliverables = []
    windows = post_windows(when.posts, len(shortlist))  # staggered over the goal's length
    for k, (e, fee) in enumerate(zip(shortlist, fees, strict=True)):
        via = reach_channel(str(e.get("contact_channel") or ""), campaign_channels) or "email"
        # The approved outreach is the last word: a person may have moved them to another
        # channel (one the campaign does not list only a person puts there).
        sent = [m.channel for m in outreach.messages if m.handle == e["handle"] and m.body]
        if sent and via not in sent:
            via = next((c for c in sent if c not in campaign_channels), sent[0])
        deliverables.append(CreatorDeliverable(
            creator_handle=e["handle"], creator_name=e.get("name", ""),
            deliverables=PLATFORM_SHORT.get(e.get("platform", ""), "1 sponsored post"),
            post_window=windows[k],
            fee_usd=float(int(fee * scale)), contact_channel=str(via)))
    fees_total = sum(d.fee_usd for d in deliverables)
    lines = [("Creator fees", fees_total),
             ("Product seeding and gifting", round(budget * 0.15)),
             ("Paid amplification of the best posts", round(budget * 0.10)),
             ("Contingency", round(budget * 0.05))]
    budget_lines, left = [], budget
    for item, value in lines:
        value = max(0.0, min(float(value), left))
        budget_lines.append(BudgetLine(item=item, amount_usd=value))
        left -= value
    if left >= 1:
        budget_lines.append(BudgetLine(item="Unallocated (creator share not needed for fees)",
                                       amount_usd=float(int(left))))
    kpis = _kpis_from_brief(task.context.get("brief", "")) or [
        Kpi(name=k.split(":")[0], target=k.split(":", 1)[1].strip())
        for k in success_metrics(goal, budget, n, market.tag,
                                 list(brand.products) if brand else [])]
    n_msgs = len(outreach.messages)
    chans = ", ".join(LABELS.get(c, c) for c in dict.fromkeys(m.channel for m in outreach.messages))
    avoid = (brand.avoid_claims + brand.avoid_words) if brand else []
    return PlanDraft(
        title=f"Campaign plan: {name}",
        summary=(f"{_sentence_case(str(i.get('goal', '')))}. {len(deliverables)} creators post in "
                 f"{when.posts.lower()} after outreach by {chans or 'email'} "
                 f"({n_msgs} approved messages). "
                 f"Total budget ${budget:,.0f}, of which ${fees_total:,.0f} goes to creator fees."
                 + _over_budget(deliverables, per_creator_budget(
                     budget, int(i.get("num_creators") or n)))),
        schedule=[
            *([ScheduleItem(when="Campaign dates", activity=f"Posts go live and results are "
                            f"counted {window}")] if (window := goal_window(goal)) else []),
            ScheduleItem(when=when.contact, activity="Send the approved outreach messages; "
                                                     "follow up after 3 days"),
            ScheduleItem(when=when.terms, activity="Agree terms, send products and promo codes, "
                                                   "share the content brief"),
            ScheduleItem(when=when.first_wave, activity="First wave of posts goes live; boost "
                                                        "the best performer"),
            ScheduleItem(when=when.second_wave, activity="Second wave of posts goes live"),
            ScheduleItem(when=f"{when.results} ({label})" if (
                label := results_label(goal, start)) else when.results,
                         activity="Collect results and report against the KPIs"),
        ],
        deliverables=deliverables,
        budget=budget_lines,
        kpis=kpis,
        compliance=[
            f"Every sponsored post carries {market.tag} and the platform's paid-partnership "
            "label" + (f" ({market.rule})" if market.required else ""),
            "Creators review the brief's key messages and avoid claims the brand cannot prove"
            + (f"; avoid in particular: {', '.join(avoid)}" if avoid else ""),
            "Keep proof of each post and its disclosure for the campaign record",
        ],
        # The plan is assembled from the approved stages: a comment on it is not applied
        # here, and says so rather than coming back as the same text.
        open_points=[f'Not applied: "{f}" (the offline plan is built from the approved brief, '
                     "shortlist and outreach: change those stages, or edit the plan)"
                     for f in stage_feedback(task)])
