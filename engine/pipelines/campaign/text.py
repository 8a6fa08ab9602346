"""Campaign drafts as Markdown: each stage's output rendered for a person to read and edit,
and read back (sections, tables, amounts) so a revision keeps what a person wrote."""

from __future__ import annotations

import re
from typing import Any

from engine import markdown as md
from engine.pipelines.campaign.channels import CHANNELS, LABELS
from engine.pipelines.campaign.creators import (
    EDIT_HINT,
    ShortlistEntry,
    known_creators,
    norm_handle,
    render_shortlist_table,
)
from engine.pipelines.campaign.models import (
    BriefDraft,
    BudgetLine,
    OutreachDraft,
    PlanDraft,
    ShortlistDraft,
    ShortlistPick,
)
from engine.pipelines.campaign.money import amount
from engine.pipelines.campaign.outreach import render_outreach
from engine.text import clean_text


def _bullets(items: list[str]) -> str:
    return "\n".join(f"- {clean_text(i)}" for i in items if clean_text(i))


def _money(x: float) -> str:
    return f"{x:,.0f}"


def budget_table(lines: list[BudgetLine], *, shares: bool = True) -> str:
    total = sum(max(0.0, b.amount_usd) for b in lines) or 1.0
    head = "| Item | Amount (USD) | Share |\n|---|---:|---:|" if shares else \
        "| Item | Amount (USD) |\n|---|---:|"
    rows = []
    for b in lines:
        item = clean_text(b.item).replace("|", "/")
        rows.append(f"| {item} | {_money(b.amount_usd)} |"
                    + (f" {b.amount_usd / total:.0%} |" if shares else ""))
    tail = (f"| **Total** | **{_money(sum(b.amount_usd for b in lines))}** |"
            + (" 100% |" if shares else ""))
    return "\n".join([head, *rows, tail])


def render_brief(d: BriefDraft) -> str:
    parts = [
        f"# {clean_text(d.title)}",
        f"## Objective\n\n{clean_text(d.objective)}",
        f"## Audience\n\n{clean_text(d.audience)}",
        f"## Key messages\n\n{_bullets(d.key_messages)}",
        f"## Deliverables\n\n{_bullets(d.deliverables)}",
        f"## Timeline\n\n{_bullets(d.timeline)}",
        f"## Budget split\n\n{budget_table(d.budget_split)}",
        f"## Success metrics\n\n{_bullets(d.success_metrics)}",
    ]
    if any(clean_text(p) for p in d.open_points):
        parts.append(f"## Open points\n\n{_bullets(d.open_points)}")
    return "\n\n".join(parts) + "\n"


def render_shortlist(d: ShortlistDraft, context: dict[str, Any]) -> str:
    """The table is filled from the directory (in the step's context) by handle, so numbers
    are never invented."""
    known = known_creators(context)

    def entry(p: ShortlistPick) -> ShortlistEntry:
        h = norm_handle(p.handle)
        c = known.get(h)
        if c is None:
            return ShortlistEntry(handle=h, name="", reasons=clean_text(p.reasons),
                                  in_directory=False)
        return ShortlistEntry(**c.model_dump(exclude={"bio"}), reasons=clean_text(p.reasons),
                              match_pct=max(0, min(100, p.match_pct)))

    picks, seen = [], set()
    for p in d.picks:
        if norm_handle(p.handle) not in seen:
            seen.add(norm_handle(p.handle))
            picks.append(entry(p))
    out = [f"# {clean_text(d.title)}", clean_text(d.summary), "## Shortlist",
           render_shortlist_table(picks), EDIT_HINT]
    others = [entry(p) for p in d.also_considered if norm_handle(p.handle) not in seen]
    if others:
        rows = "\n".join(f"| {e.handle} | {e.name} | {e.niche} | "
                         f"{'' if e.match_pct is None else str(e.match_pct) + '%'} | "
                         f"{e.reasons.replace('|', '/')} |" for e in others)
        out += ["## Also considered",
                "| Creator | Name | Niche | Match | Notes |\n|---|---|---|---|---|\n" + rows]
    return "\n\n".join(out) + "\n"


def _no_structure_headings(body: str) -> str:
    # A "## " or "### " line inside a body would start a new creator or channel when parsed.
    return re.sub(r"^(#{2,3})([ \t])", r"####\2", body, flags=re.M)


def render_outreach_draft(d: OutreachDraft) -> str:
    msgs = [(m.creator_handle, clean_text(m.creator_name), m.channel,
             clean_text(m.subject) if m.subject else None,
             _no_structure_headings(clean_text(m.body))) for m in d.messages]
    channels = list(dict.fromkeys(m.channel for m in d.messages))
    text = render_outreach(brand_name=clean_text(d.brand_name), shortlist=d.creators,
                           messages=msgs, channels=[c for c in CHANNELS if c in channels])
    points = [clean_text(p) for p in d.open_points if clean_text(p)]
    # A level-2 heading with no @handle: parse_outreach ends the last message before it.
    return text + (f"\n## Open points\n\n{_bullets(points)}\n" if points else "")


def _cell(text: str) -> str:
    return clean_text(str(text)).replace("|", "/").replace("\n", " ")


def render_plan(d: PlanDraft) -> str:
    schedule = "| When | Activity |\n|---|---|\n" + "\n".join(
        f"| {_cell(s.when)} | {_cell(s.activity)} |" for s in d.schedule)
    deliverables = ("| Creator | Deliverables | Post window | Fee (USD) | Contact via |\n"
                    "|---|---|---|---:|---|\n" + "\n".join(
                        f"| {_cell(c.creator_handle)}"
                        + (f" ({_cell(c.creator_name)})" if c.creator_name else "")
                        + f" | {_cell(c.deliverables)} | {_cell(c.post_window)} | "
                        f"{_money(c.fee_usd)} | "
                        f"{_cell(LABELS.get(c.contact_channel, c.contact_channel))} |"
                        for c in d.deliverables))
    kpis = "| KPI | Target |\n|---|---|\n" + "\n".join(
        f"| {_cell(k.name)} | {_cell(k.target)} |" for k in d.kpis)
    parts = [
        f"# {clean_text(d.title)}",
        f"## Summary\n\n{clean_text(d.summary)}",
        f"## Schedule\n\n{schedule}",
        f"## Deliverables per creator\n\n{deliverables}",
        f"## Budget\n\n{budget_table(d.budget, shares=False)}",
        f"## KPIs\n\n{kpis}",
        f"## Compliance\n\n{_bullets(d.compliance)}",
    ]
    if points := [clean_text(p) for p in d.open_points if clean_text(p)]:
        parts.append(f"## Open points\n\n{_bullets(points)}")
    return "\n\n".join(parts) + "\n"


# -- reading drafts back ----------------------------------------------------------------------


def sections(text: str) -> dict[str, str]:
    """Level-2 sections by lower-case heading."""
    out: dict[str, str] = {}
    for sec in md.sections(text, max_level=2):
        if sec.level == 2:
            out.setdefault(sec.title.strip().lower(), sec.body.strip())
    return out


def find_section(secs: dict[str, str], *names: str) -> str | None:
    for key, body in secs.items():
        if any(n in key for n in names):
            return body
    return None



def budget_total(body: str) -> float | None:
    """The table's Total row, else the sum of its amounts."""
    rows = md.table_rows(body)
    if not rows:
        return None
    for r in rows:
        if "total" in r[0].lower() and len(r) > 1:
            return amount(r[1])
    values = [amount(r[1]) for r in rows if len(r) > 1]
    return sum(v for v in values if v is not None) or None


def _bullet_items(body: str | None) -> list[str]:
    if not body:
        return []
    items = md.list_items(body.split("\n"))[0]
    return items or [p.strip() for p in body.split("\n\n") if p.strip()]


def parse_brief(text: str) -> BriefDraft:
    """A brief's Markdown back into fields (empty where a section is missing), so a revision
    can keep what a person wrote and change only what the notes ask for."""
    secs = sections(text)
    title = next((s.title.strip() for s in md.sections(text, 1) if s.level == 1), "")
    budget = []
    for row in md.table_rows(find_section(secs, "budget") or ""):
        value = amount(row[1]) if len(row) > 1 else None
        if value is not None and "total" not in row[0].lower():
            budget.append(BudgetLine(item=row[0].replace("*", "").strip(), amount_usd=value))

    def prose(*names: str) -> str:
        return (find_section(secs, *names) or "").strip()

    return BriefDraft(
        title=title,
        objective=prose("objective"), audience=prose("audience"),
        key_messages=_bullet_items(find_section(secs, "key message")),
        deliverables=_bullet_items(find_section(secs, "deliverable")),
        timeline=_bullet_items(find_section(secs, "timeline", "schedule")),
        budget_split=budget,
        success_metrics=_bullet_items(find_section(secs, "success", "metric", "kpi")),
        open_points=_bullet_items(find_section(secs, "open point")))
