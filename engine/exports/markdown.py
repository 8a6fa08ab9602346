"""Exports of a run for people: the approved (or current) draft as Markdown."""

from __future__ import annotations

from engine.views import get_run


def export_markdown(run_id: int) -> str:
    d = get_run(run_id)
    if d.kind == "campaign":  # the plan with every message as it will be sent
        from engine.exports.campaign import export_campaign_markdown

        return export_campaign_markdown(run_id)
    draft = d.draft(d.approved_draft_id) or d.current
    if draft is None:
        return f"<!-- run {run_id} has no draft yet -->\n"
    approval = next((a for a in reversed(d.actions) if a.action.startswith("approve")), None)
    footer = (
        f"\n---\n\n*Approved by {approval.actor} on {approval.at:%Y-%m-%d} "
        f"(version {draft.version}, Draftroom run {d.id}).*\n"
        if approval and d.approved_draft_id == draft.id
        else f"\n---\n\n*Not approved: status {d.status}, version {draft.version}, "
        f"Draftroom run {d.id}.*\n"
    )
    return draft.content.rstrip() + "\n" + footer
