"""The offline campaign strategist: the BRIEF, from the brand, the goal and the budget;
a revision keeps every section a person wrote and answers the notes and feedback."""

from __future__ import annotations

from engine.llm.offline.campaign.common import (
    _lower_first,
    _note_text,
    _sentence_case,
    brand_name_of,
    brand_of,
    city,
    feedback_mentions,
    goal_type,
    products_for,
    sanitize,
    unhandled_feedback,
    wants_compliance_fix,
    wants_shorter,
)
from engine.pipelines.base import DraftTask
from engine.pipelines.campaign.brands import BrandOut
from engine.pipelines.campaign.channels import LABELS
from engine.pipelines.campaign.deadline import campaign_start
from engine.pipelines.campaign.goal import goal_targets, goal_window
from engine.pipelines.campaign.market import market_for
from engine.pipelines.campaign.models import (
    BriefDraft,
    BudgetLine,
)
from engine.pipelines.campaign.schedule import phases, results_label
from engine.pipelines.campaign.text import parse_brief

BUDGET_SHARES = (("Creator fees", 0.70), ("Product seeding and gifting", 0.15),
                 ("Paid amplification of the best posts", 0.10), ("Contingency", 0.05))


def split_budget(budget: float) -> list[BudgetLine]:
    lines = [BudgetLine(item=item, amount_usd=round(budget * share))
             for item, share in BUDGET_SHARES]
    lines[-1].amount_usd += round(budget) - sum(b.amount_usd for b in lines)
    return lines


def success_metrics(goal: str, budget: float, n: int, tag: str = "#ad",
                    products: list[str] | None = None) -> list[str]:
    kind, metric = goal_type(goal)
    impressions = int(round(budget * 40, -3)) or 1000
    conversions = {"footfall": budget / 15, "launch": budget / 10, "sales": budget / 25,
                   "signups": budget / 5, "awareness": budget / 10}[kind]
    # Each number the goal counts, as the goal writes it, with the goal's own dates.
    window = goal_window(goal)
    own = [f"Goal: {t.phrase}" + (f" {window}" if window else "")
           for t in goal_targets(goal, products or [])]
    return [
        *own,
        f"Impressions: at least {impressions:,} across the {n} creators' sponsored posts",
        "Engagement rate: 3.5% or more on sponsored posts",
        f"{_sentence_case(metric)}: {int(max(10, round(conversions, -1))):,} within 4 weeks "
        "of the first post",
        f"Content: every agreed post live in its window, each with {tag}",
    ]


def _audience(asked: str, brand: BrandOut | None) -> str:
    """The campaign's audience, and the brand's regulars when they add something."""
    text = _sentence_case(asked) + "."
    regulars = brand.audience.strip().rstrip(".") if brand else ""
    if regulars and regulars.lower() not in asked.lower() and asked.lower().rstrip(".") \
            not in regulars.lower():
        text += f" The brand's regulars: {_lower_first(regulars)}."
    return text


def draft_brief(task: DraftTask) -> BriefDraft:
    i = task.input
    brand = brand_of(task.context)
    market = market_for(i, brand)
    name = brand_name_of(i, brand) or "the brand"
    n = int(i.get("num_creators") or 5)
    channels = [LABELS.get(c, c) for c in i.get("channels", [])]
    products = products_for(str(i.get("goal", "")), brand)
    goal = _sentence_case(str(i.get("goal", "")))
    start = campaign_start(task.context)
    when = phases(str(i.get("goal", "")), start)  # the goal's own length or end date
    objective = (f"{goal}. {name} will work with {n} creators whose audiences match ours, "
                 f"and measure the result with the success metrics below over {when.weeks} "
                 "weeks.")
    kind, _ = goal_type(str(i.get("goal", "")))
    where = f" in {city(brand.location)}" if brand and brand.location else ""
    next_step = {
        "footfall": f"Visit {name}{where} with the creator's promo code",
        "launch": f"Be among the first to try {products[0]}",
        "sales": "Order with the creator's promo code",
        "signups": "Sign up through the creator's link",
        "awareness": f"Follow {name} for more",
    }[kind]
    key_messages = [
        f"Why {name}: {', '.join(products[:3])}",
        f"Next step for the audience: {_lower_first(next_step)}",
        *(_sentence_case(x) for x in feedback_mentions(task)),
        f"Creators tell their own story of {name}, in their own words",
    ]
    if brand and brand.voice:
        key_messages.append(f"Tone: {_lower_first(brand.voice.split('.')[0])}")
    deliverables = [
        f"{n} creators, each with one feed post or reel and two stories (or the platform's "
        "equivalent) featuring " + products[0],
        f"Outreach to each creator by {', '.join(channels) or 'email'}",
        f"Every sponsored post is labelled {market.tag} and uses the platform's "
        "paid-partnership tag" + (f" ({market.rule})" if market.required else ""),
        "A promo code per creator, so results can be traced",
    ]
    timeline = [
        f"{when.contact}: brief approved, creators shortlisted and contacted",
        f"{when.terms}: terms agreed, products sent, content briefs shared",
        f"{when.posts}: posts go live, staggered across creators",
        f"{when.results}: results gathered and reported against the success metrics",
    ]
    if window := goal_window(str(i.get("goal", ""))):  # the goal's own dates, not only weeks
        timeline.insert(0, f"Campaign dates: posts go live and results are counted {window}")
    if label := results_label(str(i.get("goal", "")), start):
        timeline[-1] = (f"{when.results} ({label}): results gathered and reported against "
                        "the goal")
    budget = float(i.get("budget") or 0)
    d = BriefDraft(
        title=f"Campaign brief: {name}",
        objective=objective,
        audience=_audience(str(i.get("audience", "")), brand),
        key_messages=key_messages,
        deliverables=deliverables,
        timeline=timeline,
        budget_split=split_budget(budget),
        success_metrics=success_metrics(str(i.get("goal", "")), budget, n, market.tag,
                                        list(brand.products) if brand else []),
        open_points=unhandled_feedback(task),
    )
    if task.previous:
        d = _keep_previous(d, parse_brief(task.previous), feedback_mentions(task),
                           _note_text(task.notes))
    if wants_shorter(task):
        d.key_messages = d.key_messages[:3]
        d.deliverables = d.deliverables[:3]
    if task.previous and wants_compliance_fix(task):
        d.objective = sanitize(d.objective, brand)
        d.audience = sanitize(d.audience, brand)
        d.key_messages = [sanitize(k, brand) for k in d.key_messages]
    return d


# Which brief field a note about a word in it asks to redo.
NOTE_FIELDS = {"budget_split": "budget", "success_metrics": "metric",
               "key_messages": "key message", "timeline": "timeline"}


def _keep_previous(fresh: BriefDraft, old: BriefDraft, mentions: list[str],
                   notes: str = "") -> BriefDraft:
    """A revision keeps every section the last version had (a person may have written it)
    and takes the template's for sections that are missing or that a note objects to."""
    merged = fresh.model_copy()
    for field in ("title", "objective", "audience", "key_messages", "deliverables", "timeline",
                  "budget_split", "success_metrics"):
        value = getattr(old, field)
        redo = field in NOTE_FIELDS and NOTE_FIELDS[field] in notes.lower()
        if value and not redo:
            setattr(merged, field, value)
    have = " ".join(merged.key_messages).lower()
    merged.key_messages = merged.key_messages + [
        _sentence_case(x) for x in mentions if x.lower() not in have]
    merged.open_points = list(dict.fromkeys(old.open_points + fresh.open_points))
    return merged
