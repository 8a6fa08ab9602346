"""A reviewer adds or removes creators on a campaign's CREATORS draft: the changed table is
saved through the service's edit, like any other human edit (a new version, re-scored)."""

from __future__ import annotations

from engine.errors import InvalidState
from engine.pipelines.campaign.creators import change_shortlist
from engine.service import edit
from engine.views import get_run


def edit_shortlist(*, run_id: int, actor: str, add: list[str] | None = None,
                   remove: list[str] | None = None, expected_version: int | None = None) -> int:
    """Add or remove creators on a CREATORS draft: saved as the person's edit (a new version,
    re-scored by the critics). Returns the new draft's id."""
    current = get_run(run_id).current
    if current is None or current.stage != "creators":
        raise InvalidState("Creators can be added or removed only on a CREATORS draft.")
    text = change_shortlist(current.content, add=add or [], remove=remove or [],
                            reason=f"added by {actor}")
    return edit(run_id=run_id, actor=actor, content=text, expected_version=expected_version,
                base_draft_id=current.id)
