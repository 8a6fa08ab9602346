"""A reviewer adds or removes creators on a campaign's CREATORS draft: the changed table is
saved through the service's edit, like any other human edit (a new version, re-scored).

The directory is offered ranked by match to the campaign (its audience, channels, region and
the brief's topics: the same scoring the CREATORS stage ranks candidates with), each with its
reasons; a creator the campaign cannot reach on their own channel is named in a warning, and
the shortlist says which of the campaign's channels reaches them instead (reach_channel), so
the plan that follows names that channel too."""

from __future__ import annotations

from pydantic import BaseModel
from sqlmodel import Session

from db.models import Run
from db.session import session_scope
from engine.errors import InvalidState, NotFound
from engine.pipelines.campaign.brands import load_brand
from engine.pipelines.campaign.channels import LABELS
from engine.pipelines.campaign.context import approved_contents
from engine.pipelines.campaign.creators import (
    CreatorOut,
    Match,
    change_shortlist,
    directory,
    lookup,
    norm_handle,
    rank_creators,
    reach_channel,
)
from engine.pipelines.campaign.models import CampaignInput
from engine.service import edit
from engine.views import get_run

__all__ = ["ShortlistEdit", "channel_warning", "directory_matches", "edit_shortlist"]


class ShortlistEdit(BaseModel):
    draft_id: int
    """The new version the person's shortlist was saved as."""
    warnings: list[str]
    """One sentence per added creator the campaign cannot reach on their own channel."""


def _campaign(session: Session, run_id: int) -> CampaignInput:
    run = session.get(Run, run_id)
    if run is None:
        raise NotFound(f"Run {run_id} does not exist.")
    if run.kind != "campaign":
        raise InvalidState(f"Run {run_id} is a {run.kind}, not a campaign.")
    return CampaignInput.model_validate(run.input)


def directory_matches(run_id: int, *, exclude: list[str] | None = None) -> list[Match]:
    """The directory ranked for this campaign, best first, without `exclude` (the shortlist):
    scored against the goal and the approved brief, the audience, the brand's place, the
    campaign's channels and budget (engine.pipelines.campaign.creators.score_creator)."""
    gone = {norm_handle(h) for h in exclude or []}
    with session_scope() as s:
        i = _campaign(s, run_id)
        brief = approved_contents(s, run_id).get("brief", "")
        ranked = rank_creators(directory(s), brand=load_brand(s, i.brand_id),
                               goal=f"{i.goal}\n{brief}", audience=i.audience,
                               channels=list(i.channels), budget=i.budget, n=i.num_creators)
    return [m for m in ranked if m.creator.handle not in gone]


def channel_warning(c: CreatorOut, channels: list[str]) -> str | None:
    """What to tell a person adding `c` to a campaign that does not use their channel."""
    if not channels or c.contact_channel in channels:
        return None
    own = LABELS.get(c.contact_channel, c.contact_channel)
    via = LABELS.get(reach_channel(c.contact_channel, channels), channels[0])
    used = ", ".join(LABELS.get(x, x) for x in channels)
    return (f"{c.handle} is reached on {own}, which this campaign does not use ({used}): "
            f"the shortlist and the plan contact them by {via} instead. Add {own} to the "
            "campaign's channels if they should be reached there.")


def edit_shortlist(*, run_id: int, actor: str, add: list[str] | None = None,
                   remove: list[str] | None = None,
                   expected_version: int | None = None) -> ShortlistEdit:
    """Add or remove creators on a CREATORS draft: saved as the person's edit (a new version,
    re-scored by the critics), with a warning for each added creator off the campaign's
    channels."""
    detail = get_run(run_id)
    current = detail.current
    if current is None or current.stage != "creators":
        raise InvalidState("Creators can be added or removed only on a CREATORS draft.")
    channels = [str(c) for c in detail.input.get("channels", [])]
    text = change_shortlist(current.content, add=add or [], remove=remove or [],
                            reason=f"added by {actor}", channels=channels)
    with session_scope() as s:
        added = lookup(s, add or [])
    warnings = [w for c in added.values() if (w := channel_warning(c, channels))]
    draft_id = edit(run_id=run_id, actor=actor, content=text,
                    expected_version=expected_version, base_draft_id=current.id)
    return ShortlistEdit(draft_id=draft_id, warnings=warnings)
