"""The offline content creator: one OUTREACH message per shortlisted creator and channel,
in the brand's register; revisions personalise and answer the notes."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from engine.checks.terms import data as coverage_data
from engine.llm.offline.campaign import form
from engine.llm.offline.campaign.common import (
    SHORTER,
    _note_text,
    _sentence_case,
    asks_of,
    brand_name_of,
    brand_of,
    casual,
    city,
    feedback_mentions,
    first_name,
    mentions_in,
    products_for,
    said_as_sentence,
    sanitize,
    stage_feedback,
    wants_compliance_fix,
    wants_shorter,
)
from engine.pipelines.base import DraftTask, NoteOut
from engine.pipelines.campaign import money
from engine.pipelines.campaign.brands import BrandOut
from engine.pipelines.campaign.channels import LABELS
from engine.pipelines.campaign.compliance import DISCLOSURE
from engine.pipelines.campaign.creators import per_creator_budget, reach_channel
from engine.pipelines.campaign.deadline import campaign_start
from engine.pipelines.campaign.market import Market, market_for, markets
from engine.pipelines.campaign.message_form import channel_ask, exclamations, length_cap
from engine.pipelines.campaign.models import (
    OutreachDraft,
    OutreachMessageOut,
)
from engine.pipelines.campaign.outreach import parse_outreach
from engine.pipelines.campaign.requests import (
    SignOff,
    fee_ask,
    is_fee_comment,
    new_fee,
    other_form,
    sign_off,
)
from engine.pipelines.campaign.schedule import posts_window

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
    offer = int(round(min(fee, cap) if fee else cap, -1))
    return offer - 10 if offer > cap else offer  # rounded, never above the per-creator share


# How the platforms write their own names ("TikTok", not "Tiktok").
_PLATFORM_NAMES = {"tiktok": "TikTok", "youtube": "YouTube", "linkedin": "LinkedIn"}


def _platform(platform: str) -> str:
    return _PLATFORM_NAMES.get(platform.lower(), platform.title())


def _signature(signer: SignOff | None, brand_name: str) -> str | None:
    """"Noa, events manager at Alma Cafe" (None: the team signs)."""
    if signer is None:
        return None
    return f"{signer.name}, {signer.role} at {brand_name}" if signer.role else \
        f"{signer.name}, {brand_name}"


def _message(channel: str, e: dict[str, Any], *, brand: BrandOut | None, brand_name: str,
             goal: str, budget: float, n: int, personal: bool, extra: list[str],
             short: bool, market: Market, signer: SignOff | None = None,
             today: date | None = None) -> tuple[str | None, str]:
    """(subject or title, body) for one creator on one channel, in the brand's register."""
    signed = _signature(signer, brand_name)
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
        where = _platform(e.get("platform", "")) or "recent"
        hook = (f"We've been enjoying your {where} posts about {niche}"
                + (f" around {their_city}" if their_city else "") + ".")
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
    extras = " ".join(said_as_sentence(x, easy) for x in extra)
    if channel == "email":
        subject = f"Paid collaboration with {brand_name}" + ("?" if easy else "")
        body = "\n\n".join(x for x in [
            f"Hi {first},",
            f"{who} {hook}",
            f"{why} {'We think' if easy else 'We believe'} your audience would enjoy our {product}."
            + (f" {extras}" if extras else ""),
            f"**What we'd love**\n\n- {_sentence_case(ask)} featuring our {product}\n"
            f"- Posted {posts_window(goal, today or date.today())}, in your own words",
            f"**What we offer**\n\n- A fee of {market.fee(offer)}\n- Our {product} for you to try",
            disclose,
            ("Would you be up for a quick chat this week? Just reply to this email."
             if easy else "Would you be available for a short call this week? Please reply "
             "to this email."),
            ("Cheers," if easy else "Kind regards,"),
            signed or f"The {brand_name} team",
        ] if x)
        if short:
            body = "\n\n".join([f"Hi {first},", f"{who} {hook}",
                                f"We'd pay {market.fee(offer)} for {ask} featuring our {product}."
                                + (f" {extras}" if extras else ""),
                                disclose, "Interested? Just reply.",
                                signed or f"The {brand_name} team"])
        return subject, body
    if channel == "teams":
        title = f"{brand_name} x {e.get('name') or first}: paid collaboration"
        body = "\n\n".join([
            f"Hi {first}, {who[0].lower() + who[1:]} {hook}",
            f"**The idea**\n{_sentence_case(ask)} featuring our {product}, posted "
            f"{posts_window(goal, today or date.today())}. {why}"
            + (f" {extras}" if extras else ""),
            f"**What we offer**\nA fee of {market.fee(offer)}, plus our {product} to try.",
            f"**Disclosure**\n{disclose}",
            "**Next step**\nReply here and we'll set up a short call." if easy else
            "**Next step**\nPlease reply here to arrange a short call.",
            *([f"\u2014 {signed}"] if signed else []),
        ])
        return title, body
    tail = "Interested? Reply and we'll send the details." if easy else \
        "Would you like the details? Please reply."
    # What the creator gets besides the fee, as the email's "What we offer" says it.
    if hello.endswith(","):  # "Hi Anna, we are Lumen Skin": one sentence after the comma
        who = who[:1].lower() + who[1:]
    core = (f"{hello} {who} {hook} We'd like to offer you a fee of {market.fee(offer)} for {ask} "
            f"about our {product}, and our {product} for you to try. {extras} {disclose} {tail}")
    if short or channel == "sms":
        core = (f"{hello} {who} {hook} Would you post {ask} about our {product} for "
                f"{market.fee(offer)}? {extras} {disclose} {tail}")
    if signed:
        core += f" \u2013 {signed}"
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


def asked_fees(feedback: list[str], shortlist: list[dict[str, Any]], budget: float
               ) -> tuple[dict[str, int], dict[str, str]]:
    """The fees a person asked for, by handle, and the fee comments not applied with why:
    a fee the drafter cannot place on a shortlisted creator, or one that would take the
    creators' fees over the campaign's whole budget (a fee above the per-creator share is
    applied: the plan says why it stands)."""
    creators = [(e["handle"], str(e.get("name") or "")) for e in shortlist]
    n = max(1, len(shortlist))
    offers = {e["handle"]: _offer(e, budget, n) for e in shortlist}
    fees: dict[str, int] = {}
    refused: dict[str, str] = {}
    for f in feedback:
        ask = fee_ask(f, creators)
        if ask is None:
            if is_fee_comment(f):
                refused[f] = "it names no creator on the shortlist"
            continue
        if ask.currency != "USD":  # no exchange rate the drafter could trust: no silent guess
            refused[f] = (f"the fee is in {money.NAMES[ask.currency]} "
                          f"({money.SIGNS[ask.currency]}{ask.amount:,}) and this campaign's "
                          "budget and fees are in US dollars; the drafter converts no currency: "
                          "say the fee in US dollars")
            continue
        asked = {h: new_fee(ask, fees.get(h, offers[h])) for h in ask.handles}
        total = sum((offers | fees | asked).values())
        if budget and total > budget:
            refused[f] = (f"the creators' fees would come to ${total:,.0f}, over the campaign's "
                          f"${budget:,.0f} budget; change the budget or another fee")
            continue
        fees |= asked
    return fees, refused


def signer_of(feedback: list[str]) -> SignOff | None:
    """Who signs the messages, by the latest comment that names someone."""
    return next((s for f in reversed(feedback) if (s := sign_off(f))), None)


def unapplied(feedback: list[str], shortlist: list[dict[str, Any]]) -> list[str]:
    """A person's comments the templates have no rule for (move the call to Friday, make it
    a video, write it in German): each is listed under "Open points" so the reviewer sees it
    was not applied, instead of getting the same text back. In a comment of several asks
    ("Mention the tasting. Also move the call to Friday."), each ask without a rule is listed
    on its own, so an applied first ask does not hide the rest. Fees are judged by
    asked_fees."""
    creators = [(e["handle"], str(e.get("name") or "")) for e in shortlist]
    out = []
    for f in feedback:
        if other_form(f):
            out.append(f)
            continue
        asks = asks_of(f)
        if len(asks) < 2:
            if not is_fee_comment(f) and not _has_rule(f, creators):
                out.append(f)
            continue
        fee = is_fee_comment(f)
        out += [x for x in asks if not (_has_rule(x, creators) or (fee and _FEE.search(x)))]
    return out


_FEE = re.compile(r"\b(?:fees?|pay|paid|rate|offer|bump|raise|lower|budget|usual)\b", re.I)


def _has_rule(ask: str, creators: list[tuple[str, str]]) -> bool:
    """The templates have a rule that applies this ask."""
    return bool(mentions_in([ask]) or SHORTER.search(ask) or sign_off(ask)
                or channel_ask(ask, creators) or exclamations(ask) or length_cap(ask)
                or _GENERIC.search(ask) or _DISCLOSE.search(ask) or _COMPLIANCE.search(ask))


def open_point(comment: str, why: str = "") -> str:
    return f'Not applied: "{comment}" ({why or form.why_not(comment)}).'



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
    fees, refused = asked_fees(stage_feedback(task), shortlist, budget)
    signer = signer_of(stage_feedback(task))
    market = market_for(i, brand)
    moves, moves_refused = form.channel_moves(stage_feedback(task), shortlist)
    calm = form.wants_no_exclamations(stage_feedback(task))
    wanted_caps = form.caps(stage_feedback(task))
    too_long: dict[str, str] = {}
    messages = []
    for e in shortlist:
        if e["handle"] in fees:
            e = e | {"offered_fee": fees[e["handle"]]}
        for ch in form.route(e["handle"], creator_channels(e, channels), moves):
            kept = previous.get(e["handle"], ch) if previous else None
            capped = form.cap_for(ch, wanted_caps)
            redo = (kept is None or not kept.body or _targets(task.notes, e["handle"], ch)
                    or generic_note or bool(extra) or short or e["handle"] in fees
                    or signer is not None or calm or bool(capped))
            if redo:
                # The first draft is the generic template; revisions personalise it.
                subject, body = _message(ch, e, brand=brand, brand_name=brand_name,
                                         goal=str(i.get("goal", "")), budget=budget, n=n,
                                         personal=previous is not None, extra=extra,
                                         market=market, signer=signer,
                                         today=campaign_start(task.context),
                                         short=short or bool(capped)
                                         or "length" in notes_text.lower())
            else:
                subject, body = kept.subject, kept.body
                if ch == "email" and not subject:
                    subject = f"Paid collaboration with {brand_name}"
            if not DISCLOSURE.search(body) and _DISCLOSE.search(notes_text):
                body += "\n\n" + market.disclosure
            if wants_compliance_fix(task) or _COMPLIANCE.search(notes_text):
                body = sanitize(body, brand)
                subject = sanitize(subject, brand) if subject else subject
            if calm:
                body = form.no_exclamations(body)
                subject = form.no_exclamations(subject) if subject else subject
            for f, cap in capped:
                keep = [market.fee(_offer(e, budget, n)), market.tag, *extra,
                        *([signer.name] if signer else [])]
                body, fits = form.fit(body, cap, keep, (
                    market.tag, f"Paid partnership: posts carry {market.tag}."))
                if not fits:
                    too_long[f] = (f"the fee, the {market.tag} disclosure and what was asked to "
                                   f"be said take more than {cap.limit} {cap.unit} in the "
                                   f"{LABELS.get(ch, ch)} message to {e['handle']}; it is as "
                                   "short as the drafter can make it")
            messages.append(OutreachMessageOut(
                creator_handle=e["handle"], creator_name=e.get("name", ""), channel=ch,  # type: ignore[arg-type]
                subject=subject, body=body))
    return OutreachDraft(brand_name=brand_name, creators=[e["handle"] for e in shortlist],
                         messages=messages, open_points=[
                             *(open_point(f, why) for f, why in
                               (refused | moves_refused | too_long).items()),
                             *(open_point(f) for f in unapplied(stage_feedback(task), shortlist))])
