"""Small builders for engine tests."""

from __future__ import annotations

import random

from engine.pipelines.base import NoteOut, Review, ScoreOut
from engine.pipelines.protocol.models import ProtocolDraft

INTENT = {"intent": "Help a university student manage exam panic", "audience": "adult students"}


DEFAULT_TITLE = "Exam panic: paced breathing"
STEPS = (  # each but the third works with the request's exam panic (request coverage binds)
    "Sit comfortably when exam panic starts and notice your breath without changing it.",
    "Breathe in slowly through your nose for a count of four, as you would before an exam.",
    "Breathe out gently through your mouth for a count of six.",
    "Repeat for two minutes, noticing how the panic in your body settles.",
    "Rest one hand on your belly in the exam hall and feel it rise as you breathe in.",
    "Let your shoulders drop a little more with every breath out, until the panic eases.",
    "Name five things you can see around the exam room, slowly, one by one.",
    "Press your feet into the floor under the exam desk and notice where they touch it.",
    "Say to yourself: this panic is strong, and it will pass.",
    "Picture the first question of the exam and keep breathing slowly.",
)


def _steps_for(title: str) -> list[str]:
    """Four of the steps, picked by the title: drafts with different titles differ in their
    text as a real revision does (the loop does not count a near-identical one as progress)."""
    return random.Random(title).sample(STEPS, 4)  # seeded by the text: the same every run


def protocol_draft(
    title: str = DEFAULT_TITLE, extra_step: str | None = None
) -> ProtocolDraft:
    steps = list(STEPS[:4]) if title == DEFAULT_TITLE else _steps_for(title)
    if extra_step:
        steps.append(extra_step)
    return ProtocolDraft(
        title=title,
        purpose="It is understandable to feel panic before exams; this helps you slow down.",
        steps=steps,
        reflection=["What did you notice in your body?", "When could you use this again?"],
        safety_note="This is not a substitute for professional care. If you feel unsafe, "
        "call or text 988 or contact your clinician.",
    )


def review(
    scores: dict[str, float],
    notes: list[tuple[str, str, str]] | None = None,
    verdict: str | None = None,
) -> Review:
    return Review(
        scores=[ScoreOut(name=k, value=v) for k, v in scores.items()],
        notes=[NoteOut(target=t, priority=p, text=x) for t, p, x in (notes or [])],  # type: ignore[arg-type]
        verdict=verdict,  # type: ignore[arg-type]
    )


GOOD_SAFETY = {"safety": 0.95}
GOOD_CLINICAL = {"empathy": 0.85, "clinical": 0.9}


def reviewed_protocol_run(actor: str = "dr. lee") -> int:
    """A protocol run waiting for review with one agent draft (v1), from a scripted model."""
    from engine import service
    from engine.loop.leases import claim_run
    from engine.loop.supervisor import Supervisor
    from engine.run_state import RunStatus
    from tests.utils.scripted import ScriptedModel

    run_id = service.start_run(kind="protocol", input=INTENT, actor=actor)
    model = ScriptedModel({"drafter": [protocol_draft()],
                           "safety_guardian": [review(GOOD_SAFETY)],
                           "clinical_critic": [review(GOOD_CLINICAL)]})
    assert claim_run(run_id, "w1")
    assert Supervisor(model, "w1").run_until_idle(run_id) == RunStatus.REVIEW
    return run_id
