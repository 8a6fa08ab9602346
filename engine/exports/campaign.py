"""Exports of a campaign: the approved plan with every approved message as it will be sent
(Markdown), and the messages as CSV, one row per creator and channel."""

from __future__ import annotations

import csv
import io

from pydantic import BaseModel

from engine.exports.provenance import DRAFT_MARK, OVERRIDE_MARK, provenance
from engine.pipelines.campaign.channels import SPECS, strip_markdown
from engine.pipelines.campaign.models import STAGE_LABELS, STAGES
from engine.pipelines.campaign.outreach import parse_outreach
from engine.views import ActionView, DraftView, RunDetail


class StageApproval(BaseModel):
    stage: str
    draft: DraftView
    action: ActionView


def stage_approvals(detail: RunDetail) -> dict[str, StageApproval]:
    """The latest approval of each stage, by stage name (the one that met the policy: a first
    approval of two does not approve a stage)."""
    out: dict[str, StageApproval] = {}
    for a in detail.actions:
        if a.action in ("approve", "approve_override") and a.draft_id is not None:
            d = detail.draft(a.draft_id)
            if d is not None:
                out[d.stage] = StageApproval(stage=d.stage, draft=d, action=a)
    return out


def _outreach(detail: RunDetail) -> tuple[DraftView | None, bool]:
    """The approved OUTREACH version, else the newest one; and whether it is approved."""
    ok = stage_approvals(detail).get("outreach")
    if ok:
        return ok.draft, True
    drafts = [d for d in detail.drafts if d.stage == "outreach"]
    current = detail.current if detail.current and detail.current.stage == "outreach" else None
    return current or (drafts[-1] if drafts else None), False


def _fence(text: str) -> str:
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}text\n{text}\n{fence}"


def messages_markdown(detail: RunDetail) -> str:
    draft, approved = _outreach(detail)
    if draft is None:
        return "## Messages\n\nNo outreach messages yet.\n"
    brand = str(detail.input.get("brand_name") or "")
    doc = parse_outreach(draft.content)
    state = "approved" if approved else "not approved yet"
    out = [f"## Messages\n\nOutreach v{draft.version} ({state}): {len(doc.messages)} messages, "
           "each as it will be sent."]
    for handle, name in doc.creators():
        out.append(f"### {handle} · {name}".rstrip(" ·"))
        for m in (x for x in doc.messages if x.handle == handle):
            f = m.formatted(brand)
            head = f"#### {f.label}"
            if f.subject:
                head += f"\n\nSubject: {f.subject}"
            if f.title:
                head += f"\n\nCard title: {f.title}"
            if len(f.parts) > 1:
                body = "\n\n".join(f"Part {p.sequence} of {p.total}:\n\n{_fence(p.text)}"
                                   for p in f.parts)
            else:
                body = _fence(f.text)
            limit = f" of {f.limit:,}" if f.limit else ""
            problems = "".join(f"\n\n**Channel rule broken:** {p}" for p in f.problems)
            out.append(f"{head}\n\n{body}\n\n*{f.length:,}{limit} characters.*{problems}")
    return "\n\n".join(out) + "\n"


def _approvals_footer(detail: RunDetail) -> str:
    approvals = stage_approvals(detail)
    lines = []
    for stage in STAGES:
        a = approvals.get(stage)
        label = STAGE_LABELS[stage]
        if a:
            prov = provenance(detail, a.draft, approved=True)
            how = f"**{OVERRIDE_MARK}**" if prov.overridden else "approved"
            lines.append(f"- {label}: v{a.draft.version} {how} by {prov.who()} on "
                         f"{a.action.at:%Y-%m-%d %H:%M} UTC; policy: {prov.policy} "
                         f"({len(prov.approvers)} of {prov.approvals_needed} approvals)")
            lines += [f"  - override by {o.name}: {o.override_reason}" for o in prov.overrides]
        else:
            lines.append(f"- {label}: not approved")
    mark = "" if detail.status == "approved" else f"**{DRAFT_MARK}**\n\n"
    return (f"\n---\n\n{mark}*Draftroom run {detail.id}, status {detail.status}.*\n\n"
            + "\n".join(lines) + "\n")


def campaign_markdown(d: RunDetail) -> str:
    plan = stage_approvals(d).get("plan")
    if plan is not None:
        head = plan.draft.content.rstrip()
        if d.status != "approved":
            head = f"> **{DRAFT_MARK}**: the campaign is not approved yet.\n\n" + head
    else:
        latest = d.current
        head = (f"> **{DRAFT_MARK}**\n\n# {d.title}\n\n*The plan is not approved yet: the run "
                f"is at the {STAGE_LABELS.get(d.stage, d.stage)} stage.*")
        if latest is not None and latest.stage == "plan":
            head += "\n\n" + latest.content.rstrip()
    return head + "\n\n" + messages_markdown(d) + _approvals_footer(d)


CSV_COLUMNS = ("creator_handle", "creator_name", "channel", "subject", "text", "parts",
               "characters", "limit", "problems", "outreach_version", "approved")


def messages_csv(d: RunDetail) -> str:
    """One row per creator and channel: the message as it will be sent (SMS parts joined by
    blank lines, each with its "(i/n)" marker)."""
    draft, approved = _outreach(d)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    if draft is None:
        return buf.getvalue()
    brand = str(d.input.get("brand_name") or "")
    for m in parse_outreach(draft.content).messages:
        f = m.formatted(brand)
        # A spreadsheet cell is plain text: an email's or a card's Markdown (**bold**, links)
        # goes as its words; WhatsApp keeps its own *markup*, which is what the phone shows.
        text = strip_markdown(f.text) if SPECS[f.channel].markup in ("markdown", "card") \
            else f.text
        w.writerow([m.handle, m.name, f.label, f.subject or f.title or "", text,
                    max(1, len(f.parts)), f.length, f.limit or "", "; ".join(f.problems),
                    draft.version, "yes" if approved else "no"])
    return buf.getvalue()
