"""A revision that swings back to an older version (A, B, A) with that version's scores is a
stall, not progress: before, only a repeat of the previous version was, and a model alternating
between two texts ran to the iteration limit (session 6's note, "noticed and left")."""

from __future__ import annotations

from typing import Any

import pytest

from engine import service, views
from engine.llm.factory import backend_from_env
from engine.loop.worker import Worker
from engine.run_state import HaltReason
from testkit.fake_openai import running
from testkit.protocol_team import ProtocolTeam

INTENT = "Paced breathing for exam panic in a student who freezes in the exam hall"


class Swinging(ProtocolTeam):
    """A drafter that answers each revision by going back to the text before: A, B, A, B."""

    def __call__(self, request: dict[str, Any]) -> dict[str, Any] | None:
        answer = super().__call__(request)
        system = request["messages"][0]["content"]
        if answer is None or "You are the Drafter" not in system:
            return answer
        user = request["messages"][-1]["content"]
        version = "B" if "(A)" in user else "A"  # the prompt holds the previous draft
        answer["title"] = f"Paced breathing for exam panic ({version})"
        answer["steps"] = STEPS[version]
        return answer


STEPS = {"A": ["In the exam hall, breathe in for four.", "Breathe out for six.",
               "Repeat for two minutes.", "Notice how exam panic eases in the hall."],
         "B": ["Before the exam starts, sit back and drop your shoulders.",
               "Count five things you can see in the exam hall.",
               "Breathe slowly while you read the first question twice.",
               "Write one line of the answer you are surest of, then go on."]}


@pytest.mark.parametrize("swing", [True, False])
def test_a_revision_that_goes_back_to_an_older_text_stalls(
        db_url: str, monkeypatch: pytest.MonkeyPatch, swing: bool) -> None:
    team = Swinging([0.5]) if swing else ProtocolTeam([0.5], follow_request=True)
    with running(responder=team) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-swing-000000")
        monkeypatch.setenv("DRAFTROOM_BACKEND", "openai")
        run_id = service.start_run(kind="protocol", input={"intent": INTENT},
                                   params={"max_iterations": 6}, actor="tester")
        Worker(backend=backend_from_env(), worker_id="w-swing").run_given(run_id)
    d = views.get_run(run_id)
    if swing:  # v3 is v1 again with v1's scores: stalled there, not at v6
        assert d.halt_reason == HaltReason.STALLED
        assert max(v.version for v in d.drafts) == 3
        assert any("goes back to v1" in n.text for n in d.notes)
    else:  # a drafter that changes its text each time is not stopped by this rule
        assert d.halt_reason == HaltReason.MAX_ITERATIONS
        assert max(v.version for v in d.drafts) == 6
