"""A comment that only says "Make sure ..." ("Make sure it mentions the crisis line") is
applied by the offline protocol drafter: what is missing is added, what is already there is
pointed to from the purpose, so the revision visibly answers the comment and the run does not
halt as stalled (before: the drafter changed nothing, the loop counted no progress)."""

from __future__ import annotations

import pytest

from engine import service, views
from engine.checks.feedback_coverage import answered, no_change
from engine.checks.safety import screen_protocol
from engine.llm.offline.backend import OfflineBackend
from engine.llm.offline.protocol.drafter import draft_protocol
from engine.loop.leases import claim_run
from engine.loop.supervisor import Supervisor
from engine.pipelines.base import DraftTask
from engine.pipelines.protocol.text import render_protocol

INTENT = "Help a university student manage exam panic"


def _draft(previous: str | None = None, feedback: list[str] | None = None) -> str:
    return render_protocol(draft_protocol(DraftTask(
        kind="protocol", stage="draft", input={"intent": INTENT, "audience": "adults"},
        iteration=2 if previous else 1, previous=previous, feedback=feedback or [])))


@pytest.mark.parametrize(("comment", "expect"), [
    ("Make sure it mentions the crisis line", "crisis line in the safety note section"),
    ("Make sure it mentions breathing", "breathing in the steps section"),
    ("Ensure it talks about sleep", "keep sleep in mind"),
    ("Make sure the steps include a break for water", "a break for water"),
])
def test_a_make_sure_comment_is_answered_visibly(comment: str, expect: str) -> None:
    first = _draft()
    revised = _draft(first, [comment])
    assert not no_change(first, revised)
    assert expect in revised.lower()
    assert "## Open points" not in revised
    assert answered(comment, first, revised)
    assert not screen_protocol(revised).flags
    assert _draft(revised, [comment]) == revised  # applied once, not on every revision


def test_a_make_sure_comment_does_not_stall_the_run(db_url: str) -> None:
    run_id = service.start_run(kind="protocol", actor="dr. lee",
                               input={"intent": INTENT, "audience": "adults"})
    assert claim_run(run_id, "w")
    Supervisor(OfflineBackend(), "w").run_until_idle(run_id)
    d = views.get_run(run_id)
    first = d.current.content  # type: ignore[union-attr]
    service.request_revision(run_id=run_id, actor="dr. lee", expected_version=d.version,
                             comment="Make sure it mentions the crisis line")
    assert claim_run(run_id, "w")
    Supervisor(OfflineBackend(), "w").run_until_idle(run_id)
    d = views.get_run(run_id)
    assert d.halt_reason != "stalled"
    assert d.current.content != first  # type: ignore[union-attr]
    assert "crisis line in the Safety note section" in d.current.content  # type: ignore[union-attr]
