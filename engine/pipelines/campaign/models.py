"""The campaign pipeline's data: its input and what each stage's drafter returns (text.py
turns each into the Markdown a person reads and edits). Output types are strict-schema
friendly for the openai backend: every field required, optional ones as `T | None`."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field, field_validator
from pydantic_core import PydanticCustomError

from engine.checks.crisis import checked_region
from engine.pipelines.campaign.channels import CHANNELS, Channel
from engine.text import clean_text

STAGES = ("brief", "creators", "outreach", "plan")
StageName = Literal["brief", "creators", "outreach", "plan"]
STAGE_LABELS = {"brief": "Brief", "creators": "Creators", "outreach": "Outreach", "plan": "Plan"}


class CampaignInput(BaseModel):
    brand_id: int = Field(ge=1)
    """The brand profile (engine.pipelines.campaign.brands) the campaign is for."""
    brand_name: str = Field(min_length=1, max_length=120)
    goal: str = Field(min_length=3, max_length=1000)
    """What the campaign should achieve, in the marketer's words."""
    audience: str = Field(min_length=2, max_length=500)
    region: str | None = None
    """The brand's region (Settings; engine/checks/crisis.py codes), else the clinic's."""
    budget: float
    """The campaign's budget in USD (creator fees, seeding, ads): not the LLM spend."""
    channels: list[Channel]
    """Outreach channels, in the order the marketer prefers them."""
    num_creators: int = Field(default=5, ge=1, le=20)

    @field_validator("brand_name", "goal", "audience", mode="before")
    @classmethod
    def _strip(cls, v: object) -> object:
        if isinstance(v, str):
            v = clean_text(v)
            if not v:
                raise PydanticCustomError("required", "is required")
        return v

    @field_validator("region")
    @classmethod
    def _region(cls, v: str | None) -> str | None:
        return checked_region(v)

    @field_validator("budget")
    @classmethod
    def _budget(cls, v: float) -> float:
        if not 0 < v <= 10_000_000:
            raise PydanticCustomError("budget", "must be more than $0 and at most $10,000,000")
        return v

    @field_validator("channels", mode="before")
    @classmethod
    def _channels(cls, v: object) -> object:
        if isinstance(v, str):
            v = [c for c in re.split(r"[\s,]+", v) if c]
        if isinstance(v, list):
            v = list(dict.fromkeys(str(c).strip().lower() for c in v))
            if not v:
                raise PydanticCustomError(
                    "channels", "choose at least one channel ({known})",
                    {"known": ", ".join(CHANNELS)})
        return v


# -- BRIEF -------------------------------------------------------------------------------------


class BudgetLine(BaseModel):
    item: str
    amount_usd: float


class BriefDraft(BaseModel):
    title: str
    objective: str
    audience: str
    key_messages: list[str]
    deliverables: list[str]
    timeline: list[str]
    budget_split: list[BudgetLine]
    success_metrics: list[str]
    open_points: list[str]
    """Questions or reviewer requests the brief could not settle; may be empty."""


# -- CREATORS ----------------------------------------------------------------------------------


class ShortlistPick(BaseModel):
    handle: str
    """The creator's @handle exactly as in the candidate list."""
    match_pct: int
    reasons: str
    """Why this creator fits the brief, in one line."""


class ShortlistDraft(BaseModel):
    title: str
    summary: str
    picks: list[ShortlistPick]
    also_considered: list[ShortlistPick]


# -- OUTREACH ----------------------------------------------------------------------------------


class OutreachMessageOut(BaseModel):
    creator_handle: str
    creator_name: str
    channel: Channel
    subject: str | None
    """Email subject or Teams card title; null for SMS, WhatsApp and Instagram DM."""
    body: str
    """Markdown; no level-2 or level-3 headings (they structure the draft)."""


class OutreachDraft(BaseModel):
    brand_name: str
    creators: list[str]
    """Every @handle on the approved shortlist, in its order."""
    messages: list[OutreachMessageOut]
    open_points: list[str] = Field(default_factory=list)
    """Reviewer comments the messages do not apply, each with why; may be empty. Shown under
    "Open points" after the messages (never inside one: creators do not see it)."""


# -- PLAN --------------------------------------------------------------------------------------


class ScheduleItem(BaseModel):
    when: str
    activity: str


class CreatorDeliverable(BaseModel):
    creator_handle: str
    creator_name: str
    deliverables: str
    post_window: str
    fee_usd: float
    contact_channel: str


class Kpi(BaseModel):
    name: str
    target: str


class PlanDraft(BaseModel):
    title: str
    summary: str
    schedule: list[ScheduleItem]
    deliverables: list[CreatorDeliverable]
    budget: list[BudgetLine]
    kpis: list[Kpi]
    compliance: list[str]
    open_points: list[str] = Field(default_factory=list)
    """Reviewer comments the plan does not apply, each with why; may be empty."""

