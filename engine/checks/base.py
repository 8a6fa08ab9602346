"""What every deterministic check returns."""

from __future__ import annotations

from pydantic import BaseModel, Field


class FlagOut(BaseModel):
    category: str
    """What kind of problem, e.g. "self_harm", "medication", "sms_length"."""
    text: str
    """The offending sentence, exactly as it stands in the draft."""
    start: int
    """Character offset of `text` in the draft."""
    end: int
    check: str = "safety_screen"
    """Which check raised it."""
    reason: str = ""
    """Why, in a few words (e.g. which rule matched which words); not stored."""
    blocking: bool = True
    """A blocking flag binds the approval gate (an override reason is needed)."""


class ScreenResult(BaseModel):
    safety_score: float = Field(ge=0.0, le=1.0)
    flags: list[FlagOut] = Field(default_factory=list)


class CheckResult(BaseModel):
    """The deterministic floor for one draft: score caps and flags."""

    caps: dict[str, float] = Field(default_factory=dict)
    """Upper bounds on critic scores (final = min(critic, cap))."""
    flags: list[FlagOut] = Field(default_factory=list)
