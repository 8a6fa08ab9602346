"""Offline (deterministic) drafters for campaigns: templates filled from the brand, the brief
and the creator directory. They revise in answer to the notes on their last draft and to the
feedback given on their stage, and keep what nobody objected to. The offline Evaluator is in
campaign_evaluator.py."""

from __future__ import annotations

import re
from typing import Any

from engine.pipelines.base import DraftTask, NoteOut
from engine.pipelines.campaign.brands import BrandOut
from engine.pipelines.campaign.channels import LABELS
from engine.pipelines.campaign.compliance import DISCLOSURE, claim_rules, find_claims
from engine.pipelines.campaign.creators import norm_handle, parse_shortlist, per_creator_budget
from engine.pipelines.campaign.models import (
    BriefDraft,
    BudgetLine,
    CreatorDeliverable,
    Kpi,
    OutreachDraft,
    OutreachMessageOut,
    PlanDraft,
    ScheduleItem,
    ShortlistDraft,
    ShortlistPick,
)
from engine.pipelines.campaign.outreach import parse_outreach
from engine.pipelines.campaign.text import find_section, parse_brief, sections

# -- shared helpers ----------------------------------------------------------------------------

CASUAL = re.compile(r"\b(warm|playful|friendly|casual|energetic|neighbourly|neighborly|fun|"
                    r"encouraging|cheerful)\b", re.I)
FORMAL = re.compile(r"\b(formal|professional|precise|calm|clinical|evidence|modest|serious)\b",
                    re.I)
GOALS: tuple[tuple[str, str, str], ...] = (
    # (goal type, keywords, headline metric)
    ("footfall", r"visit|footfall|foot traffic|store|shop|cafe|table|brunch|come in|walk-?in",
     "in-store visits from creator promo codes"),
    ("launch", r"launch|new|introduc|debut|release", "people who try the new product"),
    ("sales", r"sale|sell|order|revenue|purchase|conversion|buy", "orders with creator codes"),
    ("signups", r"sign[- ]?up|register|subscri|member|download|join|club|lead",
     "sign-ups from creator links"),
    ("awareness", r".", "new followers"),
)


def brand_of(context: dict[str, Any]) -> BrandOut | None:
    """The brand profile the step's context carries (None when the brand is gone)."""
    try:
        return BrandOut.model_validate(context["brand"]) if context.get("brand") else None
    except ValueError:  # only a name: the profile was deleted
        return None


def brand_name_of(run_input: dict[str, Any], brand: BrandOut | None) -> str:
    """The brand profile is the source of truth (the run's brand_name is what it was called
    when the run started)."""
    return brand.name if brand else str(run_input.get("brand_name") or "")


def goal_type(goal: str) -> tuple[str, str]:
    for kind, keys, metric in GOALS:
        if re.search(keys, goal, re.I):
            return kind, metric
    return "awareness", "new followers"


def casual(brand: BrandOut | None) -> bool:
    voice = brand.voice if brand else ""
    return bool(CASUAL.search(voice)) and not FORMAL.search(voice)


def first_name(name: str) -> str:
    bits = [b for b in re.split(r"\s+", name.strip()) if b and not b.endswith(".")]
    return bits[0] if bits else (name.strip() or "there")


def city(location: str) -> str:
    return location.split(",")[0].strip() if location else ""


def _sentence_case(text: str) -> str:
    text = text.strip().rstrip(".")
    return text[:1].upper() + text[1:] if text else text


def _lower_first(text: str) -> str:
    text = text.strip().rstrip(".")
    return text[:1].lower() + text[1:] if text and not text[:2].isupper() else text


SAFER = {
    "guarantee": "aim for", "guaranteed": "expected", "guarantees": "aims for",
    "risk-free": "easy to try", "risk free": "easy to try", "miracle": "remarkable",
    "cure": "help with", "cures": "helps with", "cured": "helped", "curing": "helping with",
}


def _safer(m: re.Match[str]) -> str | None:
    word = SAFER.get(m.group(0).lower())
    if word is None:
        return None
    return word[:1].upper() + word[1:] if m.group(0)[:1].isupper() else word


def sanitize(text: str, brand: BrandOut | None) -> str:
    """Rewrite sentences that make a banned claim: a safer word where there is one, else
    the sentence goes. Used when a revision answers compliance notes."""
    rules = claim_rules(brand.avoid_words if brand else (), brand.avoid_claims if brand else ())
    for _ in range(5):  # a sentence can carry more than one banned phrase
        found = find_claims(text, rules)
        if not found:
            break
        for flag, what in reversed(found):
            pattern = next(p for _, w, p in rules if w == what)
            m = pattern.search(flag.text)
            better = _safer(m) if m else None
            if better is None:
                fixed = ""
            else:
                fixed = flag.text[:m.start()] + better + flag.text[m.end():]  # type: ignore[union-attr]
            text = text[:flag.start] + fixed + text[flag.end:]
        text = re.sub(r"[ \t]{2,}", " ", text).strip()
    return text


def _note_text(notes: list[NoteOut]) -> str:
    return "\n".join(n.text for n in notes)


def wants_compliance_fix(task: DraftTask) -> bool:
    return bool(re.search(r"banned|claim|compliance|avoid", _note_text(task.notes), re.I))


def mentions_in(feedback: list[str]) -> list[str]:
    """Things a person asked to mention ("mention the brunch", "add: student discount")."""
    out = []
    for f in feedback:
        for m in re.finditer(r"\b(?:mention|include|add|highlight|focus on|talk about)\b:?\s+"
                             r"(?!@)([^.;\n!?]{3,80})", f, re.I):
            out.append(m.group(1).strip().rstrip(","))
    return out


def stage_feedback(task: DraftTask) -> list[str]:
    """A person's comments on this stage (stage context), else every comment on the run:
    "mention the discount" on the brief is not an instruction for the outreach messages."""
    return list(task.context["feedback"]) if "feedback" in task.context else task.feedback


def feedback_mentions(task: DraftTask) -> list[str]:
    return mentions_in(stage_feedback(task))


SHORTER = re.compile(r"\b(short(er)?|concise|too long|brief(er)?|trim)\b", re.I)


def wants_shorter(task: DraftTask) -> bool:
    return any(SHORTER.search(f) for f in stage_feedback(task))


def unhandled_feedback(task: DraftTask) -> list[str]:
    """Feedback the templates cannot act on: carried into the brief as open points."""
    return [f for f in stage_feedback(task) if not mentions_in([f]) and not SHORTER.search(f)
            and not re.search(r"@[\w.]+", f)]


# -- BRIEF -------------------------------------------------------------------------------------

BUDGET_SHARES = (("Creator fees", 0.70), ("Product seeding and gifting", 0.15),
                 ("Paid amplification of the best posts", 0.10), ("Contingency", 0.05))


def split_budget(budget: float) -> list[BudgetLine]:
    lines = [BudgetLine(item=item, amount_usd=round(budget * share))
             for item, share in BUDGET_SHARES]
    lines[-1].amount_usd += round(budget) - sum(b.amount_usd for b in lines)
    return lines


def success_metrics(goal: str, budget: float, n: int) -> list[str]:
    kind, metric = goal_type(goal)
    impressions = int(round(budget * 40, -3)) or 1000
    conversions = {"footfall": budget / 15, "launch": budget / 10, "sales": budget / 25,
                   "signups": budget / 5, "awareness": budget / 10}[kind]
    return [
        f"Impressions: at least {impressions:,} across the {n} creators' sponsored posts",
        "Engagement rate: 3.5% or more on sponsored posts",
        f"{_sentence_case(metric)}: {int(max(10, round(conversions, -1))):,} within 4 weeks "
        "of the first post",
        "Content: every agreed post live in its window, each with #ad",
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
    name = brand_name_of(i, brand) or "the brand"
    n = int(i.get("num_creators") or 5)
    channels = [LABELS.get(c, c) for c in i.get("channels", [])]
    products = (brand.products if brand else []) or ["our products"]
    goal = _sentence_case(str(i.get("goal", "")))
    objective = (f"{goal}. {name} will work with {n} creators whose audiences match ours, "
                 f"and measure the result with the success metrics below over five weeks.")
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
        "Every sponsored post is labelled #ad and uses the platform's paid-partnership tag",
        "A promo code per creator, so results can be traced",
    ]
    timeline = [
        "Week 1: brief approved, creators shortlisted and contacted",
        "Week 2: terms agreed, products sent, content briefs shared",
        "Weeks 3-4: posts go live, staggered across creators",
        "Week 5: results gathered and reported against the success metrics",
    ]
    budget = float(i.get("budget") or 0)
    d = BriefDraft(
        title=f"Campaign brief: {name}",
        objective=objective,
        audience=_audience(str(i.get("audience", "")), brand),
        key_messages=key_messages,
        deliverables=deliverables,
        timeline=timeline,
        budget_split=split_budget(budget),
        success_metrics=success_metrics(str(i.get("goal", "")), budget, n),
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


# -- CREATORS ----------------------------------------------------------------------------------


def _pick(c: dict[str, Any]) -> ShortlistPick:
    return ShortlistPick(handle=c["handle"], match_pct=int(round(float(c.get("match", 0)) * 100)),
                         reasons="; ".join(c.get("reasons", [])) or "matches the brief")


def draft_shortlist(task: DraftTask) -> ShortlistDraft:
    i = task.input
    n = int(i.get("num_creators") or 5)
    candidates: list[dict[str, Any]] = list(task.context.get("candidates", []))
    by_handle = {c["handle"]: c for c in candidates}
    chosen: list[str] = [c["handle"] for c in candidates[:n]]
    if task.previous:
        # Keep the shortlist as it stands (a person may have edited it); answer the notes.
        chosen = [h for h, _ in parse_shortlist(task.previous)] or chosen
        notes = _note_text(task.notes)
        chosen = [h for h in chosen if not re.search(rf"{re.escape(h)}\b[^\n]*not in the "
                                                     "directory", notes)]
    for f in stage_feedback(task):
        for m in re.finditer(r"\b(remove|drop|exclude|without)\s+((?:@[\w.]+[\s,and]*)+)", f, re.I):
            gone = {norm_handle(h) for h in re.findall(r"@[\w.]*\w", m.group(2))}
            chosen = [h for h in chosen if h not in gone]
        for m in re.finditer(r"\b(add|include)\s+((?:@[\w.]+[\s,and]*)+)", f, re.I):
            chosen += [norm_handle(h) for h in re.findall(r"@[\w.]*\w", m.group(2))
                       if norm_handle(h) not in chosen]
    for c in candidates:  # top up to the number asked for
        if len(chosen) >= n:
            break
        if c["handle"] not in chosen:
            chosen.append(c["handle"])
    picks = [_pick(by_handle[h]) if h in by_handle else
             ShortlistPick(handle=h, match_pct=0, reasons="chosen by the reviewer")
             for h in chosen]
    others = [_pick(c) for c in candidates if c["handle"] not in chosen][:5]
    brand = brand_name_of(i, brand_of(task.context))
    channels = ", ".join(LABELS.get(c, c) for c in i.get("channels", []))
    return ShortlistDraft(
        title=f"Creator shortlist: {brand}",
        summary=(f"{len(picks)} creators for {brand}, ranked by how well their niche fits the "
                 f"brief, where they are, engagement, fee against the budget, and whether they "
                 f"can be reached on {channels}."),
        picks=picks, also_considered=others)


# -- OUTREACH ----------------------------------------------------------------------------------

PLATFORM_ASK = {
    "instagram": "one reel and two stories",
    "tiktok": "one TikTok video",
    "youtube": "a 60-second segment in one of your videos",
    "linkedin": "one LinkedIn post",
}


PLATFORM_SHORT = {
    "instagram": "1 reel + 2 stories",
    "tiktok": "1 TikTok video",
    "youtube": "60-second video segment",
    "linkedin": "1 LinkedIn post",
}


def _offer(entry: dict[str, Any], budget: float, n: int) -> int:
    fee = float(entry.get("fee_usd") or 0)
    cap = per_creator_budget(budget, n)
    return int(round(min(fee, cap) if fee else cap, -1))


def _message(channel: str, e: dict[str, Any], *, brand: BrandOut | None, brand_name: str,
             goal: str, budget: float, n: int, personal: bool, extra: list[str],
             short: bool) -> tuple[str | None, str]:
    """(subject or title, body) for one creator on one channel, in the brand's register."""
    first = first_name(e.get("name") or e["handle"])
    easy = casual(brand)
    product = (brand.products[0] if brand and brand.products else "our products")
    place = city(brand.location) if brand else ""
    ask = PLATFORM_ASK.get(e.get("platform", ""), "one sponsored post")
    offer = _offer(e, budget, n)
    niche = e.get("niche") or "your work"
    their_city = city(e.get("location", ""))
    we = "We're" if easy else "We are"
    hello = f"Hi {first}" + ("!" if easy and channel != "email" else ",")
    if personal:
        hook = (f"We've been enjoying your {e.get('platform', '').title() or 'recent'} posts about "
                f"{niche}" + (f" around {their_city}" if their_city else "") + ".")
        if not easy:
            hook = hook.replace("We've been enjoying", "We have followed")
    else:
        hook = "We're looking for creators for a campaign." if easy else \
            "We are looking for creators for a campaign."
    who = f"{we} {brand_name}" + (f" in {place}" if place else "") + "."
    why = f"Our goal: {_lower_first(goal)}."
    disclose = "It's a paid partnership, so posts carry #ad and the paid-partnership label." \
        if easy else "This is a paid partnership: posts carry #ad and the paid-partnership label."
    extras = " ".join(f"{_sentence_case(x)}." for x in extra)
    if channel == "email":
        subject = f"Paid collaboration with {brand_name}" + ("?" if easy else "")
        body = "\n\n".join(x for x in [
            f"Hi {first},",
            f"{who} {hook}",
            f"{why} {'We think' if easy else 'We believe'} your audience would enjoy our {product}."
            + (f" {extras}" if extras else ""),
            f"**What we'd love**\n\n- {_sentence_case(ask)} featuring our {product}\n"
            f"- Posted in weeks 3-4 of the campaign, in your own words",
            f"**What we offer**\n\n- A fee of ${offer:,}\n- Our {product} for you to try",
            disclose,
            ("Would you be up for a quick chat this week? Just reply to this email."
             if easy else "Would you be available for a short call this week? Please reply "
             "to this email."),
            ("Cheers," if easy else "Kind regards,"),
            f"The {brand_name} team",
        ] if x)
        if short:
            body = "\n\n".join([f"Hi {first},", f"{who} {hook}",
                                f"We'd pay ${offer:,} for {ask} featuring our {product}.",
                                disclose, "Interested? Just reply.",
                                f"The {brand_name} team"])
        return subject, body
    if channel == "teams":
        title = f"{brand_name} x {e.get('name') or first}: paid collaboration"
        body = "\n\n".join([
            f"Hi {first}, {who[0].lower() + who[1:]} {hook}",
            f"**The idea**\n{_sentence_case(ask)} featuring our {product}, posted in "
            f"weeks 3-4. {why}"
            + (f" {extras}" if extras else ""),
            f"**What we offer**\nA fee of ${offer:,}, plus our {product} to try.",
            f"**Disclosure**\n{disclose}",
            "**Next step**\nReply here and we'll set up a short call." if easy else
            "**Next step**\nPlease reply here to arrange a short call.",
        ])
        return title, body
    tail = "Interested? Reply and we'll send the details." if easy else \
        "Would you like the details? Please reply."
    core = (f"{hello} {who} {hook} We'd like to pay you ${offer:,} for {ask} about our "
            f"{product}. {extras} {disclose} {tail}")
    if short or channel == "sms":
        core = (f"{hello} {who} {hook} Would you post {ask} about our {product} for "
                f"${offer:,}? {disclose} {tail}")
    core = re.sub(r"\s{2,}", " ", core).strip()
    if channel == "whatsapp":
        core = core.replace(f"${offer:,}", f"**${offer:,}**", 1)
    return None, core


def _targets(notes: list[NoteOut], handle: str, channel: str) -> bool:
    label = LABELS.get(channel, channel)
    return any(handle in n.text and (label.lower() in n.text.lower() or "message" in n.text.lower())
               for n in notes)


def draft_outreach(task: DraftTask) -> OutreachDraft:
    i = task.input
    brand = brand_of(task.context)
    brand_name = brand_name_of(i, brand)
    shortlist: list[dict[str, Any]] = list(task.context.get("shortlist", []))
    channels: list[str] = list(i.get("channels", []))
    budget, n = float(i.get("budget") or 0), max(1, len(shortlist))
    previous = parse_outreach(task.previous) if task.previous else None
    notes_text = _note_text(task.notes)
    generic_note = bool(re.search(r"generic|personal", notes_text, re.I))
    extra = feedback_mentions(task)
    short = wants_shorter(task)
    messages = []
    for e in shortlist:
        for ch in channels:
            kept = previous.get(e["handle"], ch) if previous else None
            redo = (kept is None or not kept.body or _targets(task.notes, e["handle"], ch)
                    or generic_note or bool(extra) or short)
            if redo:
                # The first draft is the generic template; revisions personalise it.
                subject, body = _message(ch, e, brand=brand, brand_name=brand_name,
                                         goal=str(i.get("goal", "")), budget=budget, n=n,
                                         personal=previous is not None, extra=extra,
                                         short=short or "length" in notes_text.lower())
            else:
                subject, body = kept.subject, kept.body
                if ch == "email" and not subject:
                    subject = f"Paid collaboration with {brand_name}"
            if not DISCLOSURE.search(body) and re.search(r"disclosure", notes_text, re.I):
                body += "\n\nThis is a paid partnership: posts carry #ad and the " \
                        "paid-partnership label."
            if wants_compliance_fix(task):
                body = sanitize(body, brand)
                subject = sanitize(subject, brand) if subject else subject
            messages.append(OutreachMessageOut(
                creator_handle=e["handle"], creator_name=e.get("name", ""), channel=ch,  # type: ignore[arg-type]
                subject=subject, body=body))
    return OutreachDraft(brand_name=brand_name, creators=[e["handle"] for e in shortlist],
                         messages=messages)


# -- PLAN --------------------------------------------------------------------------------------


def _kpis_from_brief(brief: str) -> list[Kpi]:
    body = find_section(sections(brief), "success", "metric", "kpi") or ""
    kpis = []
    for line in body.splitlines():
        m = re.match(r"^\s*[-*]\s+([^:]+):\s*(.+)$", line)
        if m:
            kpis.append(Kpi(name=m.group(1).strip(), target=m.group(2).strip()))
    return kpis


def draft_plan(task: DraftTask) -> PlanDraft:
    i = task.input
    brand = brand_of(task.context)
    name = brand_name_of(i, brand)
    budget = float(i.get("budget") or 0)
    shortlist: list[dict[str, Any]] = list(task.context.get("shortlist", []))
    outreach = parse_outreach(task.context.get("outreach", "") or "")
    campaign_channels = list(i.get("channels", []))
    n = max(1, len(shortlist))
    creator_share = budget * 0.70
    fees = [float(e.get("fee_usd") or 0) or per_creator_budget(budget, n) for e in shortlist]
    scale = min(1.0, creator_share / sum(fees)) if sum(fees) else 1.0
    deliverables = []
    for k, (e, fee) in enumerate(zip(shortlist, fees, strict=True)):
        # Their own channel when the campaign uses it, else the marketer's first channel.
        via = e.get("contact_channel") if e.get("contact_channel") in campaign_channels \
            else (campaign_channels or ["email"])[0]
        deliverables.append(CreatorDeliverable(
            creator_handle=e["handle"], creator_name=e.get("name", ""),
            deliverables=PLATFORM_SHORT.get(e.get("platform", ""), "1 sponsored post"),
            post_window="Week 3" if k % 2 == 0 else "Week 4",
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
        for k in success_metrics(str(i.get("goal", "")), budget, n)]
    n_msgs = len(outreach.messages)
    chans = ", ".join(LABELS.get(c, c) for c in dict.fromkeys(m.channel for m in outreach.messages))
    avoid = (brand.avoid_claims + brand.avoid_words) if brand else []
    return PlanDraft(
        title=f"Campaign plan: {name}",
        summary=(f"{_sentence_case(str(i.get('goal', '')))}. {len(deliverables)} creators post in "
                 f"weeks 3-4 after outreach by {chans or 'email'} ({n_msgs} approved messages). "
                 f"Total budget ${budget:,.0f}, of which ${fees_total:,.0f} goes to creator fees."),
        schedule=[
            ScheduleItem(when="Week 1", activity="Send the approved outreach messages; follow up "
                                                 "after 3 days"),
            ScheduleItem(when="Week 2", activity="Agree terms, send products and promo codes, "
                                                 "share the content brief"),
            ScheduleItem(when="Week 3", activity="First wave of posts goes live; boost the best "
                                                 "performer"),
            ScheduleItem(when="Week 4", activity="Second wave of posts goes live"),
            ScheduleItem(when="Week 5", activity="Collect results and report against the KPIs"),
        ],
        deliverables=deliverables,
        budget=budget_lines,
        kpis=kpis,
        compliance=[
            "Every sponsored post carries #ad and the platform's paid-partnership label",
            "Creators review the brief's key messages and avoid claims the brand cannot prove"
            + (f"; avoid in particular: {', '.join(avoid)}" if avoid else ""),
            "Keep proof of each post and its disclosure for the campaign record",
        ])
