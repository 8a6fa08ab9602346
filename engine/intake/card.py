"""The intake's records and cards as pydantic models: what the extractor recorded, the card it
adds up to, and the confirmed card the orchestrator saves and every later agent may read
(engine/team's shared memory imports ConfirmedCard from here)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from engine.intake.fields import BRAND_FIELDS, CAMPAIGN_FIELDS, FIELDS, spec
from engine.intake.normalise import shown

Source = Literal["user_input", "inference", "user_confirmation", "brand_profile"]
"""user_input: the person said it for this field; inference: read from context (an answer to
the question asked, a type of business named in passing); user_confirmation: the person
confirmed the card holding it; brand_profile: the picked brand's saved profile."""


class ExtractionRecord(BaseModel):
    """One value the extractor read. Later records of a field supersede earlier ones; all are
    kept, so the card's history shows where every value came from."""

    field: str
    value: Any
    message_index: int
    """The index of the message it came from in the intake's conversation (0: greeting)."""
    source: Source
    at: datetime


class IntakeMessage(BaseModel):
    index: int
    role: Literal["user", "agent"]
    text: str
    asks: list[str] = Field(default_factory=list)
    """The fields an agent message asks for."""
    signal: dict[str, Any] | None = None
    """The completion signal an agent message carries (CompletionSignal as JSON)."""
    awaiting_confirmation: bool = False
    """An agent message that shows the complete card and asks the person to confirm it."""
    at: datetime


class BusinessCard(BaseModel):
    """The brand's side of the card (a Brand's profile once saved)."""

    business_name: str
    sells: str
    audience: str
    voice: str
    products: list[str]
    banned_claims: list[str]
    region: str


class CampaignGoal(BaseModel):
    goal: str
    budget: float
    channels: list[str]
    start: date
    end: date
    num_creators: int | None = None


class ConfirmedCard(BaseModel):
    """What the person confirmed: the business card and the campaign's goal. Saved on the
    intake when the orchestrator acts on the completion signal."""

    brand_id: int | None
    """The brand it was saved as (or the existing brand picked); None until saved."""
    business: BusinessCard
    campaign: CampaignGoal
    confirmed_at: datetime
    intake_id: int


class CompletionSignal(BaseModel):
    """The onboarding agent's structured marker that the person confirmed a complete card
    (the seeds' BUSINESS_CARD_CONFIRMATION block). Only the orchestrator acts on it."""

    kind: Literal["business_card_confirmation"] = "business_card_confirmation"
    card: dict[str, Any]
    """The card's values as confirmed (field -> value)."""
    message_index: int
    """The person's confirming message."""


def current_values(records: list[ExtractionRecord]) -> dict[str, Any]:
    """The card: each field's latest value."""
    out: dict[str, Any] = {}
    for r in records:
        out[r.field] = r.value
    return out


def missing_fields(values: dict[str, Any], *, brand_picked: bool) -> list[str]:
    wanted = CAMPAIGN_FIELDS if brand_picked else BRAND_FIELDS + CAMPAIGN_FIELDS
    return [f for f in wanted if spec(f).required and f not in values]


def card_lines(values: dict[str, Any]) -> list[tuple[str, str]]:
    """(label, shown value) per field in the spec's order; "" for a missing one."""
    return [(f.label, shown(f.name, values.get(f.name))) for f in FIELDS
            if f.required or f.name in values]


def to_confirmed(values: dict[str, Any], *, intake_id: int, brand_id: int | None,
                 at: datetime) -> ConfirmedCard:
    business = BusinessCard(**{f: values[f] for f in BRAND_FIELDS})
    d = values["dates"]
    campaign = CampaignGoal(goal=values["goal"], budget=values["budget"],
                            channels=values["channels"], start=d["start"], end=d["end"],
                            num_creators=values.get("num_creators"))
    return ConfirmedCard(brand_id=brand_id, business=business, campaign=campaign,
                         confirmed_at=at, intake_id=intake_id)
