"""The offline content creator: one OUTREACH message per shortlisted creator and channel,
in the brand's register; revisions personalise and answer the notes."""

from __future__ import annotations

import re
from typing import Any

from engine.checks.terms import data as coverage_data
from engine.llm.offline.campaign.common import (
    SHORTER,
    _note_text,
    _sentence_case,
    brand_name_of,
    brand_of,
    casual,
    city,
    fee_offers,
    feedback_mentions,
    first_name,
    mentions_in,
    products_for,
    sanitize,
    stage_feedback,
    wants_compliance_fix,
    wants_shorter,
)
from engine.pipelines.base import DraftTask, NoteOut
from engine.pipelines.campaign.brands import BrandOut
from engine.pipelines.campaign.channels import LABELS
from engine.pipelines.campaign.compliance import DISCLOSURE
from engine.pipelines.campaign.creators import per_creator_budget, reach_channel
from engine.pipelines.campaign.market import Market, market_for, markets
from engine.pipelines.campaign.models import (
    OutreachDraft,
    OutreachMessageOut,
)
from engine.pipelines.campaign.outreach import parse_outreach

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
    if entry.get("offered_fee"):  # a person said what to offer
        return int(entry["offered_fee"])
    fee = float(entry.get("fee_usd") or 0)
    cap = per_creator_budget(budget, n)
    return int(round(min(fee, cap) if fee else cap, -1))


def _message(channel: str, e: dict[str, Any], *, brand: BrandOut | None, brand_name: str,
             goal: str, budget: float, n: int, personal: bool, extra: list[str],
             short: bool, market: Market) -> tuple[str | None, str]:
    """(subject or title, body) for one creator on one channel, in the brand's register."""
    first = first_name(e.get("name") or e["handle"])
    easy = casual(brand)
    product = products_for(goal, brand)[0]
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
    # The goal and its numbers are the brand's own business: the message says what it offers.
    why = f"We're getting the word out about our {product}."
    why = why.replace("our our ", "our ")
    disclose = "It's a paid partnership, so posts carry #ad and the paid-partnership label." \
        if easy else "This is a paid partnership: posts carry #ad and the paid-partnership label."
    if market.code != markets()[""].code:  # the market's own words ("#Anzeige" in Germany)
        disclose = market.disclosure
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
            f"**What we offer**\n\n- A fee of {market.fee(offer)}\n- Our {product} for you to try",
            disclose,
            ("Would you be up for a quick chat this week? Just reply to this email."
             if easy else "Would you be available for a short call this week? Please reply "
             "to this email."),
            ("Cheers," if easy else "Kind regards,"),
            f"The {brand_name} team",
        ] if x)
        if short:
            body = "\n\n".join([f"Hi {first},", f"{who} {hook}",
                                f"We'd pay {market.fee(offer)} for {ask} featuring our {product}.",
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
            f"**What we offer**\nA fee of {market.fee(offer)}, plus our {product} to try.",
            f"**Disclosure**\n{disclose}",
            "**Next step**\nReply here and we'll set up a short call." if easy else
            "**Next step**\nPlease reply here to arrange a short call.",
        ])
        return title, body
    tail = "Interested? Reply and we'll send the details." if easy else \
        "Would you like the details? Please reply."
    core = (f"{hello} {who} {hook} We'd like to pay you {market.fee(offer)} for {ask} about our "
            f"{product}. {extras} {disclose} {tail}")
    if short or channel == "sms":
        core = (f"{hello} {who} {hook} Would you post {ask} about our {product} for "
                f"{market.fee(offer)}? {disclose} {tail}")
    core = re.sub(r"\s{2,}", " ", core).strip()
    if channel == "whatsapp":
        core = core.replace(market.fee(offer), f"**{market.fee(offer)}**", 1)
    return None, core


def _targets(notes: list[NoteOut], handle: str, channel: str) -> bool:
    label = LABELS.get(channel, channel)
    return any(handle in n.text and (label.lower() in n.text.lower() or "message" in n.text.lower())
               for n in notes)


def creator_channels(entry: dict[str, Any], channels: list[str]) -> list[str]:
    """Where a creator is written, first the channel the shortlist and the plan name
    (creators.reach_channel), then the campaign's other channels that reach creators (never
    an internal one: Teams reaches colleagues, not creators)."""
    audience = coverage_data()["channel_audience"]
    first = reach_channel(str(entry.get("contact_channel") or ""), channels) or "email"
    return [first, *(c for c in channels if c != first and audience.get(c) != "internal")]


# What the templates act on besides mentions, fees and length (read from notes and comments).
_GENERIC = re.compile(r"generic|personal", re.I)
_DISCLOSE = re.compile(r"disclos", re.I)
_COMPLIANCE = re.compile(r"banned|claim|compliance|avoid", re.I)


def unapplied(feedback: list[str], shortlist: list[dict[str, Any]]) -> list[str]:
    """A person's comments the templates have no rule for (sign them from Dana, move the call
    to Friday): each is listed under "Open points" so the reviewer sees it was not applied,
    instead of getting the same text back."""
    return [f for f in feedback
            if not (mentions_in([f]) or SHORTER.search(f) or fee_offers([f], shortlist)
                    or _GENERIC.search(f) or _DISCLOSE.search(f) or _COMPLIANCE.search(f))]


def open_point(comment: str) -> str:
    return (f'Not applied: "{comment}" (the offline drafter has no rule for this request; '
            "edit the messages or say it in other words).")


def draft_outreach(task: DraftTask) -> OutreachDraft:
    i = task.input
    brand = brand_of(task.context)
    brand_name = brand_name_of(i, brand)
    shortlist: list[dict[str, Any]] = list(task.context.get("shortlist", []))
    channels: list[str] = list(i.get("channels", []))
    budget, n = float(i.get("budget") or 0), max(1, len(shortlist))
    previous = parse_outreach(task.previous) if task.previous else None
    # A person's comments on this stage count as much as the evaluator's notes.
    notes_text = "\n".join([_note_text(task.notes), *stage_feedback(task)])
    generic_note = bool(_GENERIC.search(notes_text))
    extra = feedback_mentions(task)
    short = wants_shorter(task)
    fees = fee_offers(stage_feedback(task), shortlist)
    market = market_for(i, brand)
    messages = []
    for e in shortlist:
        if e["handle"] in fees:
            e = e | {"offered_fee": fees[e["handle"]]}
        for ch in creator_channels(e, channels):
            kept = previous.get(e["handle"], ch) if previous else None
            redo = (kept is None or not kept.body or _targets(task.notes, e["handle"], ch)
                    or generic_note or bool(extra) or short or e["handle"] in fees)
            if redo:
                # The first draft is the generic template; revisions personalise it.
                subject, body = _message(ch, e, brand=brand, brand_name=brand_name,
                                         goal=str(i.get("goal", "")), budget=budget, n=n,
                                         personal=previous is not None, extra=extra,
                                         market=market,
                                         short=short or "length" in notes_text.lower())
            else:
                subject, body = kept.subject, kept.body
                if ch == "email" and not subject:
                    subject = f"Paid collaboration with {brand_name}"
            if not DISCLOSURE.search(body) and _DISCLOSE.search(notes_text):
                body += "\n\n" + market.disclosure
            if wants_compliance_fix(task) or _COMPLIANCE.search(notes_text):
                body = sanitize(body, brand)
                subject = sanitize(subject, brand) if subject else subject
            messages.append(OutreachMessageOut(
                creator_handle=e["handle"], creator_name=e.get("name", ""), channel=ch,  # type: ignore[arg-type]
                subject=subject, body=body))
    return OutreachDraft(brand_name=brand_name, creators=[e["handle"] for e in shortlist],
                         messages=messages, open_points=[
                             open_point(f) for f in unapplied(stage_feedback(task), shortlist)])
