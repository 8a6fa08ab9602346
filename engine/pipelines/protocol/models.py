"""The protocol pipeline's data: its input, the Drafter's structured output and the critics'
structured outputs for a real model (named fields, so a model cannot invent score names)."""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel, Field, field_validator

from engine.checks.crisis import checked_region
from engine.pipelines.base import NoteOut, Review, ScoreOut
from engine.text import clean_text

ExerciseType = Literal[
    "thought_record",
    "cognitive_restructuring",
    "behavioural_activation",
    "graded_exposure",
    "worry_postponement",
    "problem_solving",
    "paced_breathing",
    "sleep_routine",
]
EXERCISE_TYPES: tuple[str, ...] = get_args(ExerciseType)

MAX_INTENT = 2000
MAX_AUDIENCE = 300


class ProtocolInput(BaseModel):
    intent: str = Field(min_length=3, max_length=MAX_INTENT)
    """What the exercise should help with, in the clinician's words."""
    audience: str = Field(default="adults", min_length=2, max_length=MAX_AUDIENCE)
    exercise_type: ExerciseType | None = None
    """Leave empty to let the drafter choose from the intent."""
    region: str | None = None
    """Whose crisis lines the safety note gives (engine/checks/crisis.py: "us", "uk", ...);
    service.start_run fills in the clinic's default (Settings) when the starter names none."""

    @field_validator("intent", "audience", mode="before")
    @classmethod
    def _strip(cls, v: object) -> object:
        return clean_text(v) if isinstance(v, str) else v

    @field_validator("region")
    @classmethod
    def _region(cls, v: str | None) -> str | None:
        return checked_region(v)


class ProtocolDraft(BaseModel):
    """The Drafter's structured output."""

    title: str
    purpose: str
    steps: list[str]
    reflection: list[str]
    safety_note: str


class SafetyReviewOut(BaseModel):
    """The Safety Guardian's structured output for a real model: named fields, so a model
    cannot invent score names."""

    safety: float
    """1 = safe for a client to use as written; 0 = harmful."""
    notes: list[NoteOut]

    def to_review(self) -> Review:
        return Review(scores=[ScoreOut(name="safety", value=self.safety)], notes=self.notes,
                      verdict=None)


class ClinicalReviewOut(BaseModel):
    """The Clinical Critic's structured output for a real model."""

    empathy: float
    """Warm, validating, non-judgemental second-person language, in [0, 1]."""
    clinical: float
    """Recognised technique, complete sections, actionable steps, readable, in [0, 1]."""
    notes: list[NoteOut]

    def to_review(self) -> Review:
        return Review(scores=[ScoreOut(name="empathy", value=self.empathy),
                              ScoreOut(name="clinical", value=self.clinical)],
                      notes=self.notes, verdict=None)
