"""Campaign consistency: does each stage's draft keep to the goal and to the stages a person
approved before it?

- the product or offer the goal names is what the brief's messages and deliverables and each
  outreach message promote (not only a pasted copy of the goal);
- fees stay within the per-creator budget (the brief's creator-fee line, else the whole
  budget, over the number of creators) or the draft says why;
- each creator's channel agrees between the shortlist, the outreach and the plan;
- internal KPIs and targets stay out of creator-facing messages;
- creators are reached on channels that reach outside the company (no Teams cards);
- the brief's timeline and metrics (and the plan's schedule and KPIs) carry the goal's own
  months and numbers.
Pure: the draft, the run's input and the approved earlier stages (context) are arguments."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from engine.checks.campaign_feedback import creators_in
from engine.checks.findings import Finding, finding
from engine.checks.request_coverage import MIN_QUOTABLE, quotes
from engine.checks.sentences import split_sentences
from engine.checks.terms import (
    data,
    has_phrase,
    list_items,
    numbers,
    section,
    sections,
    table_rows,
    terms,
    word_set,
)
from engine.pipelines.campaign.deadline import campaign_start
from engine.pipelines.campaign.goal import (
    WEEKS_PER_MONTH,
    goal_months,
    goal_product,
    goal_targets,
    goal_weeks,
)
from engine.pipelines.campaign.message_form import channel_ask
from engine.pipelines.campaign.money import amounts, usd
from engine.pipelines.campaign.requests import fee_ask

CHECK = "campaign_consistency"
MIN_SHARE = 0.5
_HANDLE = re.compile(r"@[\w.]+")


def goal_terms(run_input: dict[str, Any]) -> set[str]:
    """What the goal is about: its content terms without marketing words, months, the
    brand's own name, the people it is for (the run's audience) or claims it makes
    ("guaranteed", "risk-free": compliance's to judge, no product)."""
    goal = str(run_input.get("goal") or "")
    for claim in data()["campaign_words"]["claims"]:
        goal = re.sub(rf"\b{re.escape(claim)}\w*", " ", goal, flags=re.I)
    brand = terms(str(run_input.get("brand_name") or ""))
    people = terms(str(run_input.get("audience") or ""))
    months = {m[:3] for m in data()["campaign_words"]["months"]}
    return {t for t in terms(goal, word_set("generic", "campaign"))
            if t not in brand and t not in people and t[:3] not in months}


def _goal_numbers(goal: str, context: dict[str, Any]) -> set[str]:
    """The goal's targets as `numbers` writes them (goal.goal_targets: not years, days of a
    month, durations or a number in a name, "10-class passes", "mineral SPF 30", the brand's
    "Tempo 3 trainers")."""
    return {t.value for t in goal_targets(goal, _products(context))}


def _products(context: dict[str, Any]) -> list[str]:
    return [str(p) for p in (context.get("brand") or {}).get("products") or []]


def _says(text: str, phrases: list[str]) -> bool:
    """A phrase as whole words ("roi" is not in "croissant")."""
    low = text.lower()
    return any(re.search(rf"(?<![a-z0-9]){re.escape(p)}(?![a-z0-9])", low) for p in phrases)


def _names_month(text: str, month: str) -> bool:
    """"June" or its short form ("Jun 2027", "Sept")."""
    return bool(re.search(rf"\b{month[:3]}", text, re.I))


def creator_sections(text: str) -> dict[str, str]:
    """Outreach: each creator's part, by handle."""
    out = {}
    for s in sections(text):
        m = _HANDLE.match(s.heading)
        if m:
            out[m.group().lower()] = s.body
    return out


def outreach_channels(text: str) -> dict[str, set[str]]:
    return {h: {s.heading.lower() for s in sections(body, 3) if s.heading}
            for h, body in creator_sections(text).items()}


def _contacts(text: str, heading: str, column: str) -> dict[str, str]:
    out = {}
    for row in table_rows(section(text, heading)):
        handle = _HANDLE.search(" ".join(row.values()))
        if handle and row.get(column):
            out[handle.group().lower()] = row[column].strip().lower()
    return out


def _unquoted(text: str, goal: str) -> list[str]:
    return [text[a:b] for a, b in split_sentences(text) if not quotes(text[a:b], goal)]


def pasteable(goal: str, products: list[str]) -> str:
    """The goal, as a text a message could paste, or "" when it is little more than a
    product's name: a message naming "our oat-milk latte" names the product, it does not
    paste the goal "Oat-milk latte for students"."""
    rest = goal
    for name in sorted({n for n in [goal_product(goal), *products] if n}, key=len, reverse=True):
        rest = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])", " ", rest, flags=re.I)
    return goal if len(terms(rest)) >= MIN_QUOTABLE else ""


def product_terms(run_input: dict[str, Any], products: list[str]) -> set[str]:
    """The goal's product: a brand product the goal names in full, else the goal's terms
    less those it shares with other products ("oat-milk cold brew" is not the "oat-milk
    latte": what sets it apart is "cold brew")."""
    want = goal_terms(run_input)
    named = [terms(p) for p in products if terms(p) and terms(p) <= want]
    if named:
        return set().union(*named)
    return _apart(want, products)


def _apart(want: set[str], products: list[str]) -> set[str]:
    """`want` less the terms it shares with products it does not name in full."""
    shared = set().union(set(), *(terms(p) & want for p in products if not terms(p) <= want))
    return (want - shared) or want


def _off_product(stage: str, text: str, run_input: dict[str, Any],
                 context: dict[str, Any]) -> list[Finding]:
    products = list((context.get("brand") or {}).get("products") or [])
    want = product_terms(run_input, products)
    goal = str(run_input.get("goal") or "")
    if not want:
        return []
    parts: dict[str, str] = {}
    if stage == "brief":
        parts["key messages and deliverables"] = (section(text, "key messages") + "\n"
                                                  + section(text, "deliverables"))
    elif stage == "outreach":
        parts = creator_sections(text)
    # The goal may name two things ("sell 80 10-class passes for our oat-milk latte club"):
    # a brand product in full, and what it sells; promoting either is on the goal.
    sold = _apart(terms(goal_product(goal) or ""), products)
    wants = [want, sold] if sold and sold != want else [want]

    def on_goal(body: str) -> bool:
        said = terms(" ".join(_unquoted(body, pasteable(goal, products))))
        return any(len(w & said) / len(w) >= MIN_SHARE for w in wants)

    off = [where for where, body in parts.items() if body.strip() and not on_goal(body)]
    if not off:
        return []
    # Named in words, not as the stems the check compares ("bread end loav rye").
    named = goal_product(goal) or next((p for p in products if terms(p) and terms(p) <= want),
                                       None)
    about = f"'{named}'" if named else f"what it names ('{' '.join(goal.split()[:16])}')"
    return [finding(CHECK, "campaign", "off_product", "promotes: " + ", ".join(off),
                    f"The goal is about {about}: make that what the "
                    f"{'messages' if stage == 'outreach' else 'brief'} promote "
                    f"({', '.join(off)}), not another product.", text)]


def _per_creator(run_input: dict[str, Any], context: dict[str, Any], text: str,
                 stage: str) -> float | None:
    brief = text if stage == "brief" else str(context.get("brief") or "")
    n = max(1, int(run_input.get("num_creators") or 1))
    for row in table_rows(section(brief, "budget")):
        if "creator" in (row.get("item") or "").lower():
            amount = numbers(row.get("amount (usd)") or row.get("amount") or "")
            if amount:
                return float(max(amount, key=float)) / n
    budget = run_input.get("budget")
    return float(budget) / n if budget else None


def _fees(stage: str, text: str) -> dict[str, float]:
    if stage == "outreach":
        return {h: max(fees) for h, body in creator_sections(text).items() if (fees := usd(body))}
    if stage == "plan":
        out = {}
        for h, fee in _contacts(text, "deliverables", "fee (usd)").items():
            nums = numbers(fee)
            if nums:
                out[h] = float(max(nums, key=float))
        return out
    return {}


def _fee_over(stage: str, text: str, run_input: dict[str, Any],
              context: dict[str, Any], asked: list[str]) -> list[Finding]:
    """`asked`: people's comments on this stage; a fee one of them sets for a creator, or
    names, is their decision (the plan, later, must still say why)."""
    limit = _per_creator(run_input, context, text, stage)
    if limit is None or has_phrase(text, data()["campaign_words"]["fee_reasons"]):
        return []
    named = set().union(set(), *(numbers(c) for c in asked))
    creators = creators_in(text if stage == "outreach" else str(context.get("outreach") or ""))
    decided = {h.lower() for c in asked if (ask := fee_ask(c, creators)) for h in ask.handles}
    over = {h: f for h, f in _fees(stage, text).items()
            if f > limit * 1.01 and f"{f:.0f}" not in named and h not in decided}
    if not over:
        return []
    said = ", ".join(f"{h} ${f:,.0f}" for h, f in over.items())
    return [finding(CHECK, "campaign", "fee_over_budget", "fees: " + said,
                    f"Fees over the per-creator budget of ${limit:,.0f} ({said}): lower them "
                    "or say in the draft why this creator is worth more.", text)]


def _channels(stage: str, text: str, run_input: dict[str, Any],
              context: dict[str, Any], asked: list[str]) -> list[Finding]:
    """A creator's contact on the shortlist binds the later stages when the campaign uses
    that channel (one it does not use is the shortlist's own reason line to explain), unless
    a person moved them to another channel: at the outreach, a comment on it; at the plan, the
    outreach they approved, which no longer writes to them there."""
    labels = data()["channel_label"]
    chosen = {labels.get(c, c).lower() for c in run_input.get("channels") or []}
    shortlist = {h: c for h, c in _contacts(str(context.get("shortlist") or ""), "shortlist",
                                            "contact").items() if not chosen or c in chosen}
    sent = outreach_channels(text if stage == "outreach" else str(context.get("outreach") or ""))
    wrong = []
    if stage == "outreach":
        creators = creators_in(text)
        moved = {h.lower() for c in asked if (ask := channel_ask(c, creators))
                 for h in ask.handles}
        wrong = [f"{h}: shortlist says {c}, outreach uses {', '.join(sorted(sent[h]))}"
                 for h, c in shortlist.items()
                 if h in sent and sent[h] and c not in sent[h] and h not in moved]
    elif stage == "plan":
        for h, c in _contacts(text, "deliverables", "contact via").items():
            if h in shortlist and shortlist[h] != c and shortlist[h] in sent.get(h, {c}):
                wrong.append(f"{h}: shortlist says {shortlist[h]}, plan says {c}")
            elif sent.get(h) and c not in sent[h]:
                wrong.append(f"{h}: outreach used {', '.join(sorted(sent[h]))}, plan says {c}")
    if not wrong:
        return []
    return [finding(CHECK, "campaign", "channel_mismatch", "; ".join(wrong),
                    "Each creator's channel must agree between shortlist, outreach and plan: "
                    + "; ".join(wrong) + ".", text)]


def _blank_money(sentence: str, keep: set[str]) -> str:
    """The sentence with its amounts of money blanked, but those `keep` names (as `numbers`
    writes them)."""
    for a in reversed(amounts(sentence)):
        if not numbers(sentence[a.start:a.end]) & keep:
            sentence = sentence[:a.start] + " " + sentence[a.end:]
    return sentence


def _creator_facing(text: str, run_input: dict[str, Any],
                    context: dict[str, Any]) -> list[Finding]:
    goal = str(run_input.get("goal") or "")
    targets = _goal_numbers(goal, context)
    names = [n for n in [goal_product(goal), *_products(context)] if n]
    # An amount of money in a message is a fee or a price unless the goal counts that very
    # amount ("$5,000 in sales"): "we'd pay you $250" is no leak of "250 preorders".
    money_targets = targets & set().union(set(), *(numbers(goal[a.start:a.end])
                                                   for a in amounts(goal)))
    out = []
    cursor = 0  # sections come in the text's order: two identical bodies are two places
    for h, body in creator_sections(text).items():
        base = max(text.find(body, cursor), 0)
        cursor = base + len(body)
        for a, b in split_sentences(body):
            s = body[a:b]
            counted = _blank_money(s, money_targets)
            for name in names:  # "our Tempo 3 trainers": a product's name is no count
                counted = re.sub(re.escape(name), " ", counted, flags=re.I)
            if (_says(s, data()["campaign_words"]["kpi"]) or quotes(s, pasteable(goal, names))
                    or targets & numbers(counted)):
                out.append(finding(CHECK, "campaign", "kpi_in_message", s.strip(),
                                   f"Keep internal goals and KPIs out of the message to {h}: "
                                   "remove this sentence.", text, after=base + a))
                break
    audience = data()["channel_audience"]
    labels = {v.lower(): k for k, v in data()["channel_label"].items()}
    internal = sorted({c for chans in outreach_channels(text).values() for c in chans
                       if audience.get(labels.get(c, c)) == "internal"})
    if internal:
        out.append(finding(CHECK, "campaign", "channel_audience",
                           "creators reached on " + ", ".join(internal),
                           f"{', '.join(internal)} reaches people inside the company, not "
                           "creators: use the campaign's external channels.", text))
    return out


def _goal_dates_and_numbers(stage: str, text: str, run_input: dict[str, Any],
                            context: dict[str, Any]) -> list[Finding]:
    goal = str(run_input.get("goal") or "")
    when, metrics = (("timeline", "success metrics") if stage == "brief"
                     else ("schedule", "kpis") if stage == "plan" else (None, None))
    if when is None:
        return []
    out = []
    months = goal_months(goal)
    timeline = section(text, when)
    missed = [m for m in months if not _names_month(timeline, m)]
    if missed and timeline.strip():
        out.append(finding(CHECK, "campaign", "timeline_mismatch", " ".join(
            list_items(timeline)[:1]) or when,
            f"The goal names {', '.join(months)}: date the {when} by it "
            f"({', '.join(missed)} missing).", text))
    out += _span(goal, timeline, when, text, campaign_start(context))
    targets = _goal_numbers(goal, context)
    have = numbers(section(text, metrics))
    if targets and section(text, metrics) and not targets <= have:
        missing = ", ".join(sorted(targets - have))
        out.append(finding(CHECK, "campaign", "metric_mismatch", f"{metrics} without {missing}",
                           f"The goal's own target ({missing}) must be among the {metrics}, "
                           "with the goal's number.", text))
    return out


_WEEK_LABEL = re.compile(r"\bweeks?\s+(\d{1,2})(?:\s*(?:-|\u2013|to|and)\s*(\d{1,2}))?", re.I)
_MONTH_LABEL = re.compile(r"\bmonths?\s+(\d{1,2})(?:\s*(?:-|\u2013|to|and)\s*(\d{1,2}))?", re.I)


def _spanned_weeks(timeline: str) -> float | None:
    """How far a timeline reaches, in weeks, by its "Week N" / "Month N" labels (None: it
    dates its parts otherwise, by months' names or days)."""
    weeks = [int(n) for m in _WEEK_LABEL.finditer(timeline) for n in m.groups() if n]
    months = [int(n) for m in _MONTH_LABEL.finditer(timeline) for n in m.groups() if n]
    found = [float(w) for w in weeks] + [m * WEEKS_PER_MONTH for m in months]
    return max(found) if found else None


def _span(goal: str, timeline: str, when: str, text: str, start: date) -> list[Finding]:
    """A goal that gives the campaign a length ("within 3 months", "by the end of January"
    from its first day) is not run on a timeline of another ("Week 5: results"): within a
    quarter of it either way, and a week."""
    asked, spanned = goal_weeks(goal, start), _spanned_weeks(timeline)
    if asked is None or spanned is None or abs(spanned - asked) <= max(1.0, asked / 4):
        return []
    return [finding(CHECK, "campaign", "timeline_mismatch",
                    f"the {when} spans {spanned:.0f} weeks; the goal gives {asked}",
                    f"The goal gives the campaign {asked} weeks: spread the {when} over them "
                    f"(it ends in week {spanned:.0f}).", text)]


def campaign_findings(stage: str, text: str, run_input: dict[str, Any],
                      context: dict[str, Any], asked: list[str] | None = None) -> list[Finding]:
    out = _off_product(stage, text, run_input, context)
    out += _goal_dates_and_numbers(stage, text, run_input, context)
    if stage in ("outreach", "plan"):
        out += _fee_over(stage, text, run_input, context, asked or [])
        out += _channels(stage, text, run_input, context, asked or [])
    if stage == "outreach":
        out += _creator_facing(text, run_input, context)
    return out


__all__ = ["campaign_findings", "creator_sections", "goal_terms", "outreach_channels",
           "product_terms"]
