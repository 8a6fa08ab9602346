"""A protocol run as Markdown: the approved (or current) draft, with who approved it and how
(engine/exports/provenance.py); a version that is not approved is marked DRAFT at its top
and its end."""

from __future__ import annotations

from engine.exports.provenance import DRAFT_MARK, OVERRIDE_MARK, provenance
from engine.pipelines.protocol.text import for_reader  # judgement: no team-only sections
from engine.views import RunDetail


def protocol_markdown(d: RunDetail) -> str:
    draft = d.draft(d.approved_draft_id) or d.current
    if draft is None:
        return f"<!-- run {d.id} has no draft yet -->\n"
    prov = provenance(d, draft)
    lines = "\n".join(f"- {line}" for line in prov.lines())
    content = for_reader(draft.content)
    if not prov.approved:
        return (f"> **{DRAFT_MARK}**\n\n" + content.rstrip()
                + f"\n\n---\n\n{lines}\n")
    title = f"Approval: {OVERRIDE_MARK}" if prov.overridden else "Approval"
    return content.rstrip() + f"\n\n---\n\n**{title}**\n\n{lines}\n"
