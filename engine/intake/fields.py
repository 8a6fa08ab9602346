"""What the onboarding agent collects, as data (like a pipeline's stages): each field's name,
where it goes (the brand's card or the campaign), how its value is read, the question that
asks for it and the words a person may label it with. The agent asks in this order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Scope = Literal["brand", "campaign"]
Kind = Literal["text", "list", "money", "channels", "dates", "count"]


@dataclass(frozen=True)
class FieldSpec:
    name: str
    label: str
    scope: Scope
    kind: Kind
    question: str
    """How the agent asks for it (one or two per turn)."""
    describe: str
    """What the field holds, for the model extractor's schema and prompt."""
    labels: tuple[str, ...]
    """Words a person may name the field with ("budget: 4000", "our tone is ...")."""
    required: bool = True
    may_be_empty: bool = False
    """A list that may be answered with "none" (no banned claims)."""
    self_evident: bool = False
    """Its value is recognisable wherever it appears (an amount, a channel, a date), so it
    can be asked together with another field without its answer being mistaken."""


FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("business_name", "Business", "brand", "text",
              "What is the business called?",
              "The business's name, exactly as written.",
              ("business name", "business", "company name", "company", "brand name", "name")),
    FieldSpec("sells", "What it sells", "brand", "text",
              "What does it sell, or what does it do?",
              "What the business sells or does, in a few words (e.g. coffee and pastries, yoga "
              "classes); not the kind of business it is (a small yoga studio sells yoga).",
              ("what we sell", "what it sells", "what we do", "service type", "service",
               "business type", "type of business", "we sell", "industry")),
    FieldSpec("audience", "Audience", "brand", "text",
              "Who are its customers: who should the campaign reach?",
              "Who the customers are and whom the campaign should reach.",
              ("target audience", "audience", "customers", "target market", "target")),
    FieldSpec("voice", "Voice", "brand", "text",
              "How does the brand sound? A few words on its voice or tone.",
              "How the brand sounds: its voice or tone.",
              ("brand voice", "voice", "tone of voice", "tone", "style")),
    FieldSpec("products", "Products", "brand", "list",
              "Which products or services should the creators feature?",
              "The products or services to feature, separated by semicolons.",
              ("products", "product", "main products", "services", "offerings", "best sellers",
               "menu")),
    FieldSpec("banned_claims", "Never claims", "brand", "list",
              "Are there claims the brand must never make (e.g. \"organic\", \"cures\")? "
              "\"None\" is a fine answer.",
              "Claims or words the brand must never use, separated by semicolons; 'none' if "
              "there are none.",
              ("banned claims", "banned words", "claims to avoid", "never claim", "avoid",
               "banned", "don't say", "do not say", "never say"),
              may_be_empty=True),
    FieldSpec("region", "Region", "brand", "text",
              "Where is the business, or which region should the campaign cover?",
              "Where the business is or the region the campaign covers (city, country).",
              ("region", "location", "city", "area", "where", "based in", "located in")),
    FieldSpec("goal", "Goal", "campaign", "text",
              "What should this campaign achieve? A number helps (e.g. 300 new customers).",
              "What the campaign should achieve, in the person's words.",
              ("campaign goal", "goal", "aim", "objective", "target outcome")),
    FieldSpec("budget", "Budget", "campaign", "money",
              "What is the campaign's budget in US dollars (creator fees, seeding, ads)?",
              "The campaign's budget in US dollars, as a number (e.g. 4000).",
              ("budget", "spend", "campaign budget"), self_evident=True),
    FieldSpec("channels", "Channels", "campaign", "channels",
              "Which channels should the outreach to creators use: email, SMS, WhatsApp, "
              "Teams or Instagram DM?",
              "Outreach channels, any of: email, sms, whatsapp, teams, instagram_dm; "
              "separated by semicolons.",
              ("channels", "channel", "outreach channels", "outreach"), self_evident=True),
    FieldSpec("dates", "Dates", "campaign", "dates",
              "When should it run? Start and end dates, or the months.",
              "When the campaign runs: a start and end date or months, e.g. "
              "'2027-03-01 to 2027-04-15' or 'May 2027'.",
              ("dates", "date", "timing", "timeline", "when", "running", "schedule"),
              self_evident=True),
    FieldSpec("num_creators", "Creators", "campaign", "count",
              "How many creators should the shortlist hold?",
              "How many creators to work with, as a number (1-20); only when the person says.",
              ("creators", "number of creators", "influencers"), required=False,
              self_evident=True),
)

BY_NAME: dict[str, FieldSpec] = {f.name: f for f in FIELDS}
FieldName = Literal["business_name", "sells", "audience", "voice", "products", "banned_claims",
                    "region", "goal", "budget", "channels", "dates", "num_creators"]
BRAND_FIELDS = tuple(f.name for f in FIELDS if f.scope == "brand")
CAMPAIGN_FIELDS = tuple(f.name for f in FIELDS if f.scope == "campaign")


def spec(name: str) -> FieldSpec:
    return BY_NAME[name]
