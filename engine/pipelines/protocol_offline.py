"""Offline (deterministic) Drafter, Safety Guardian and Clinical Critic for protocols.
Placeholder: a minimal composition; see the tests for the behaviour it must have."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.checks.safety import screen_protocol
from engine.pipelines.base import DraftTask, NoteOut, Review, ReviewTask, ScoreOut

if TYPE_CHECKING:
    from engine.pipelines.protocol import ProtocolDraft


def draft_protocol(task: DraftTask) -> ProtocolDraft:
    from engine.pipelines.protocol import ProtocolDraft

    intent = task.input.get("intent", "")
    return ProtocolDraft(
        title="Thought record",
        purpose=f"This exercise helps you with: {intent}",
        steps=[
            "Notice the moment your feelings shift and write down the situation.",
            "Write the thought that went through your mind.",
            "List the evidence for and against the thought.",
            "Write a more balanced thought and rate how you feel now.",
        ],
        reflection=["What did you notice?", "What would you tell a friend?"],
        safety_note="If you feel unsafe, call or text 988 or talk to your clinician.",
    )


def review_safety(task: ReviewTask) -> Review:
    screen = screen_protocol(task.content)
    notes = [NoteOut(target="drafter", priority="critical", text=f"Remove: {f.text}")
             for f in screen.flags]
    return Review(scores=[ScoreOut(name="safety", value=screen.safety_score)], notes=notes,
                  verdict=None)


def review_clinical(task: ReviewTask) -> Review:
    has_steps = "## Steps" in task.content
    return Review(
        scores=[ScoreOut(name="empathy", value=0.75), ScoreOut(name="clinical",
                                                               value=0.8 if has_steps else 0.4)],
        notes=[],
        verdict=None,
    )
