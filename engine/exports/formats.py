"""A run in a format. Every run exports as JSON (its read model); the other formats are its
pipeline's own (the pipeline's `exports` hook): Markdown and a PDF handout for protocols;
Markdown, the messages as CSV and a PDF of the plan for campaigns. Exporters take the read
model the caller already holds (a RunDetail), so a page or a command reads the run once."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.errors import InvalidInput
from engine.pipelines.registry import get_pipeline

if TYPE_CHECKING:
    from engine.views import RunDetail

# Format -> (MIME type, file extension).
MEDIA: dict[str, tuple[str, str]] = {
    "markdown": ("text/markdown", "md"),
    "json": ("application/json", "json"),
    "pdf": ("application/pdf", "pdf"),
    "csv": ("text/csv", "csv"),
}


def formats(kind: str) -> list[str]:
    """The formats a run of this kind exports as, its pipeline's first."""
    return [*get_pipeline(kind).exports, "json"]


def export(detail: RunDetail, fmt: str) -> str | bytes:
    """The run in this format: text for Markdown, JSON and CSV, bytes for PDF. A format the
    run's pipeline does not offer is refused (InvalidInput) naming the ones it does."""
    if fmt == "json":
        return run_json(detail)
    exporter = get_pipeline(detail.kind).exports.get(fmt)
    if exporter is None:
        raise InvalidInput(f"Run {detail.id} is a {detail.kind}: it exports as "
                           f"{', '.join(formats(detail.kind))}, not {fmt}.")
    return exporter(detail)



def run_json(detail: RunDetail) -> str:
    """The run's read model with its approval spelled out ("approval": who, the policy, and
    `overridden` with the flags an approver overrode), so a program reading the export cannot
    take an override for a clean approval without looking at the audit rows."""
    import json

    from engine.exports.provenance import provenance

    data = detail.model_dump(mode="json")
    draft = detail.draft(detail.approved_draft_id) or detail.current
    if draft is not None:
        prov = provenance(detail, draft)
        data["approval"] = {**prov.model_dump(mode="json"), "overridden": prov.overridden,
                            "version_id": draft.id}
    return json.dumps(data, indent=2, ensure_ascii=False)
