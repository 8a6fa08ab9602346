"""What the extractor is given and what it returns, on both backends: the offline rules
(rules.py) and a model's structured output (extractor.py) fill the same ExtractionOut, and
every value then goes through the same readers (normalise.py)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from engine.intake.fields import FieldName


class ExtractedValue(BaseModel):
    field: FieldName
    value: str
    """The value as the person gave it (an amount, a list separated by semicolons, dates)."""
    source: Literal["user_input", "inference"]
    """user_input: the person said it for this field; inference: read from context (their
    answer to the question asked, a kind of business named in passing)."""


class ExtractionOut(BaseModel):
    values: list[ExtractedValue]
    """Every field value in the person's last message; a field given twice is listed twice."""
    confirms: bool
    """True only when the card was shown for confirmation and the person agrees with it as it
    is (no change in the same message)."""
    brand: str | None
    """An existing brand the person asks to use (its id or name); null otherwise."""


class IntakeTask(BaseModel):
    """One user message and what the extractor needs around it."""

    message: str
    asked: list[str] = Field(default_factory=list)
    """The fields the agent's last message asked for."""
    known: dict[str, Any] = Field(default_factory=dict)
    """The card so far (field -> value)."""
    inferred: list[str] = Field(default_factory=list)
    """Fields in `known` that were inferred, not said for the field (a business's kind read
    as what it sells): a value the person then gives for them replaces it."""
    awaiting_confirmation: bool = False
    brand_picked: bool = False
    recent: list[str] = Field(default_factory=list)
    """The last few messages before this one ("agent: ...", "user: ..."), oldest first."""
