"""The Run page over data this version of the code does not define (a stage, an agent, a score
name, a step node or a kind written by another version, or by hand): it draws what it can and
says what it does not know, instead of a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from db.models import Draft, LLMCall, Note, Run, Score, Step
from db.session import session_scope
from engine.run_state import RunStatus
from engine.text import content_hash
from engine.views import get_run

APP = str(Path(__file__).resolve().parent.parent / "app.py")


def odd_run(kind: str, stage: str) -> int:
    """A run awaiting review in `stage`, its draft by an agent no pipeline has, scored on a
    name no critic gives, with a step of a node the loop does not have."""
    with session_scope() as s:
        run = Run(kind=kind, title="Autumn menu launch", status=RunStatus.REVIEW, stage=stage,
                  next_node=None, halt_reason="thresholds_met", created_by="seed",
                  input={"brand_name": "Alma Cafe"}, cost_usd=0.02)
        s.add(run)
        s.flush()
        text = "# Messages\n\nCome in for the new autumn menu."
        draft = Draft(run_id=run.id, version=1, stage=stage, author="Copy Chief",
                      content=text, content_hash=content_hash(text))
        s.add(draft)
        s.flush()
        s.add(Score(draft_id=draft.id, name="sparkle", value=0.8, source="Copy Chief"))
        s.add(Note(run_id=run.id, draft_id=draft.id, author="Copy Chief", target="writer",
                   priority="urgent", text="Shorter."))
        s.add(Step(run_id=run.id, seq=1, node="brainstorm", stage=stage, status="done",
                   draft_id=draft.id))
        s.add(LLMCall(run_id=run.id, agent="Copy Chief", backend="offline", model="m",
                      stage=stage, kind=kind))
        run.current_draft_id = draft.id
        return int(run.id or 0)


@pytest.mark.parametrize(("kind", "stage"), [("campaign", "messages"),
                                             ("protocol", "strategy"),
                                             ("newsletter", "draft")])
def test_run_page_shows_a_run_it_does_not_understand_and_says_so(
        db_url: str, kind: str, stage: str) -> None:
    run_id = odd_run(kind, stage)
    detail = get_run(run_id)
    if kind == "newsletter":
        assert detail.unknown == [f"kind: {kind} (no pipeline of this name, so no stages, "
                                  "thresholds or agents to compare the run with)"]
    else:
        assert detail.thresholds == {} and detail.unknown == [
            f"stage: {stage}", "agent: Copy Chief", "score: sparkle", "step node: brainstorm"]
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["reviewer"] = "Dr. Lee"
    at.run()
    at.query_params["run"] = str(run_id)
    at.switch_page("pages/run.py").run()
    assert not at.exception, [e.value for e in at.exception]
    warned = " ".join(str(w.value) for w in at.warning)
    assert "does not know" in warned, warned
    if kind != "newsletter":
        for name in (stage, "Copy Chief", "sparkle", "brainstorm"):
            assert name in warned
    assert "Come in for the new autumn menu." in " ".join(str(m.value) for m in at.markdown)
    if kind == "newsletter":  # no pipeline to act with: the stored text, and no acts
        assert not [b for b in at.button if b.label.startswith("Approve")]
        return
    for tab in ("Score history", "Versions & diff", "Blackboard", "Audit trail", "Steps"):
        assert tab in [t.label for t in at.tabs]


def test_a_run_the_pipelines_made_has_nothing_unknown(db_url: str) -> None:
    from engine import service
    from engine.loop.worker import Worker

    run_id = service.start_run(kind="protocol", actor="seed",
                               input={"intent": "Help a student manage exam panic",
                                      "audience": "students"})
    while Worker().run_once() is not None:
        pass
    assert get_run(run_id).unknown == []
