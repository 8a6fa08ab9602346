"""A loop that makes no progress stops: a revision that changes neither the text nor any score
halts the run as "stalled" (not after the iteration limit of identical versions), and a
revision that repeats its previous version is never counted as progress: it never reports
"thresholds met", whatever the critics say of it."""

from __future__ import annotations

import pytest
from sqlmodel import select

from db.models import Note
from db.session import session_scope
from engine import service, views
from engine.interfaces.cli import main as cli
from engine.loop.leases import claim_run
from engine.loop.supervisor import Supervisor
from engine.run_state import halt_label
from tests.factories import GOOD_CLINICAL, GOOD_SAFETY, INTENT, protocol_draft, review
from tests.utils.scripted import ScriptedModel

ALL_ONES = {"thresholds": {"safety": 1.0, "empathy": 1.0, "clinical": 1.0}, "max_iterations": 8}


def drive(run_id: int, model: ScriptedModel) -> str:
    assert claim_run(run_id, "w")
    return Supervisor(model, "w").run_until_idle(run_id)


def same_answers(n: int) -> ScriptedModel:
    """A drafter that writes the same text every time, critics that say the same of it."""
    return ScriptedModel({"drafter": [protocol_draft() for _ in range(n)],
                          "safety_guardian": [review(GOOD_SAFETY) for _ in range(n)],
                          "clinical_critic": [review(GOOD_CLINICAL) for _ in range(n)]})


def test_a_stall_halts_with_its_own_reason_and_show_says_so(db_url: str, capsys) -> None:  # type: ignore[no-untyped-def]
    run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee", params=ALL_ONES)
    assert drive(run_id, same_answers(8)) == "awaiting_review"
    d = views.get_run(run_id)
    assert d.halt_reason == "stalled"
    assert len(d.drafts) == 2, "one repeat is enough to see the loop is stuck"
    assert d.steps[-1].detail.startswith("stalled")
    with session_scope() as s:
        notes = s.exec(select(Note).where(Note.run_id == run_id, Note.author == "supervisor")).all()
    assert [n.priority for n in notes] == ["critical"] and "repeats v1" in notes[0].text
    assert cli(["show", str(run_id)]) == 0
    out = capsys.readouterr().out
    assert "stalled" in out and halt_label("stalled") in out


@pytest.mark.parametrize("second", [
    protocol_draft(),  # byte-identical
    protocol_draft().model_copy(update={"title": "Exam  panic:   paced breathing "}),
])
def test_a_repeat_after_a_persons_comment_is_not_thresholds_met(db_url: str, second) -> None:  # type: ignore[no-untyped-def]
    run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
    model = same_answers(1)
    assert drive(run_id, model) == "awaiting_review"
    assert views.get_run(run_id).halt_reason == "thresholds_met"
    service.request_revision(run_id=run_id, actor="dr. lee",
                             comment="Make it specific to elevators")
    model = ScriptedModel({"drafter": [second], "safety_guardian": [review(GOOD_SAFETY)],
                           "clinical_critic": [review(GOOD_CLINICAL)]})
    drive(run_id, model)
    d = views.get_run(run_id)
    assert len(d.drafts) == 2
    assert d.halt_reason == "stalled", "the comment was ignored: that is not thresholds met"


def test_a_repeat_whose_scores_moved_is_revised_not_passed(db_url: str) -> None:
    run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
    drive(run_id, same_answers(1))
    service.request_revision(run_id=run_id, actor="dr. lee", comment="Add a step with a friend")
    answered = protocol_draft(extra_step="Ride one floor in an elevator with a friend.")
    model = ScriptedModel({
        "drafter": [protocol_draft(), answered],
        "safety_guardian": [review({"safety": 0.99}), review(GOOD_SAFETY)],
        "clinical_critic": [review(GOOD_CLINICAL), review(GOOD_CLINICAL)],
    })
    assert drive(run_id, model) == "awaiting_review"
    model.assert_consumed()
    d = views.get_run(run_id)
    assert len(d.drafts) == 3 and d.halt_reason == "thresholds_met"
    decisions = [s.detail for s in d.steps if s.node == "decide"]
    assert decisions[1] == "revise: the revision did not change the text"
    # The drafter was told, above the critics' notes, that its revision changed nothing.
    last_task = model.calls[-3].task
    assert "repeats v1" in last_task.notes[0].text and last_task.notes[0].priority == "critical"


def test_a_repeat_of_a_version_that_ignored_a_comment_keeps_its_cap_and_stalls(db_url: str
                                                                                ) -> None:
    """v2 changes the text but ignores the comment (capped); v3 repeats v2. Before, the cap
    was dropped on every repeat, so v3 showed clinical 1.00 beside "Not addressed" and the
    loop ran a fourth version; now v3 keeps v2's cap and the run stops there as stalled."""
    run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
    drive(run_id, same_answers(1))
    comment = "Add a step about riding one floor in an elevator with a friend"
    service.request_revision(run_id=run_id, actor="dr. lee", comment=comment)
    other = protocol_draft(extra_step="Notice your breathing for a minute.")
    model = ScriptedModel({
        "drafter": [other, other, other],
        "safety_guardian": [review(GOOD_SAFETY)] * 3,
        "clinical_critic": [review(GOOD_CLINICAL)] * 3,
    })
    assert drive(run_id, model) == "awaiting_review"
    d = views.get_run(run_id)
    assert len(d.drafts) == 3 and d.halt_reason == "stalled"
    assert d.current.not_addressed == [comment]  # type: ignore[union-attr]
    assert d.current.scores["clinical"] <= 0.5  # type: ignore[union-attr]
