"""A protocol run as Markdown: the approved (or current) draft with who approved it."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.views import RunDetail


def protocol_markdown(d: RunDetail) -> str:
    draft = d.draft(d.approved_draft_id) or d.current
    if draft is None:
        return f"<!-- run {d.id} has no draft yet -->\n"
    approval = next((a for a in reversed(d.actions) if a.action.startswith("approve")), None)
    footer = (
        f"\n---\n\n*Approved by {approval.actor} on {approval.at:%Y-%m-%d} "
        f"(version {draft.version}, Draftroom run {d.id}).*\n"
        if approval and d.approved_draft_id == draft.id
        else f"\n---\n\n*Not approved: status {d.status}, version {draft.version}, "
        f"Draftroom run {d.id}.*\n"
    )
    return draft.content.rstrip() + "\n" + footer
