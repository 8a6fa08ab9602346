"""Conversational intake (issue 18 item 1): an onboarding agent collects the business card and
the campaign goal in a chat; an extractor records every value with the message it came from;
the person's confirmation is the agent's completion signal, and only then is the brand saved
and the campaign started. fields.py is the spec of what is collected; card.py the models
(ConfirmedCard is what later agents read); service.py what pages and the CLI call."""

from engine.intake.card import (
    BusinessCard,
    CampaignGoal,
    CompletionSignal,
    ConfirmedCard,
    ExtractionRecord,
)

__all__ = ["BusinessCard", "CampaignGoal", "CompletionSignal", "ConfirmedCard",
           "ExtractionRecord"]
