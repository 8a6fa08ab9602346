"""The Run page's Team and Memory tabs (AppTest, offline backend): the hierarchy, each stage's
thread with the lead's REVISE going back to the worker, artifacts with a diff, the memory
panels with their sources; a protocol run has neither tab."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from streamlit.testing.v1 import AppTest

from engine import service
from engine.memory import service as memory
from engine.memory.store import Scope
from tests.factories import INTENT
from tests.test_campaign_pipeline import ACTOR, approve_and_advance, drive, start
from tests.test_pages import open_run
from ui.markdown import escape_inline


@pytest.fixture(autouse=True)
def _db(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("DRAFTROOM_INAPP_WORKER", "0")
    yield


def _texts(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown) + "\n".join(c.value for c in at.caption)


def _outreach_run() -> int:
    run_id = start()
    drive(run_id)
    approve_and_advance(run_id)
    approve_and_advance(run_id)  # outreach: the lead sends the first attempt back
    return run_id


def test_the_team_tab_shows_the_hierarchy_the_thread_and_the_artifacts() -> None:
    run_id = _outreach_run()
    at = open_run(run_id, ACTOR, tab="Team")
    assert not at.exception
    labels = [t.label for t in at.tabs]
    at_steps = labels.index("Steps")
    assert labels[at_steps + 1:at_steps + 3] == ["Team", "Memory"]
    text = _texts(at)
    # The tree, from the messages: orchestrator > lead > each worker so far.
    assert "- **Orchestrator** · `orchestrator`" in text
    assert "    - **Marketing Lead** · `marketing_lead`" in text
    assert "        - **Outreach writer** · `outreach_writer`" in text
    assert "outreach\\_writer v1 (REVISE), outreach\\_writer v2 (PASS)" in text
    # The outreach thread (the current stage): the REVISE and the feedback to the worker.
    assert at.segmented_control(key=f"team_stage_{run_id}").value == "outreach"
    assert "the lead sent the work back 1 time" in text
    assert ":red-badge[:material/undo: REVISE]" in text
    assert any(m.value.startswith(":orange-badge[feedback] **Marketing Lead** → "
                                  "**Outreach writer** · attempt 2") for m in at.markdown)
    # Artifacts: the latest, diffed against the same worker's previous attempt.
    assert at.selectbox(key=f"team_art_{run_id}").value == "outreach_writer v2"
    assert at.selectbox(key=f"team_cmp_{run_id}_outreach_writer v2").value == \
        "outreach_writer v1"
    assert any(c.value.startswith("--- outreach_writer v1\n+++ outreach_writer v2")
               for c in at.code)
    # Another stage's thread, picked.
    at.segmented_control(key=f"team_stage_{run_id}").set_value("brief").run()
    assert not at.exception
    assert any(m.value.startswith(":blue-badge[task] **Orchestrator** → **Marketing Lead**")
               for m in at.markdown)
    assert "the lead sent the work back" not in _texts(at)


def test_the_memory_tab_shows_shared_and_private_memory_with_sources() -> None:
    memory.put(Scope.user(ACTOR), "profile", {"prefers": "first names"}, actor=ACTOR,
               replace=True)
    run_id = _outreach_run()
    at = open_run(run_id, ACTOR, tab="Memory")
    assert not at.exception
    frames = [df.value for df in at.dataframe]
    assert frames  # shared, per agent, the person's own, the call's context
    shared = next(v for v in frames if "business_card" in set(v.get("key", [])))
    row = shared[shared.key == "business_card"].iloc[0]
    assert "Alma Cafe" in row.value and row.source.startswith("brand profile #")
    assert "user_profile" in set(shared.key)
    scout = next(v for v in frames if "search_history" in set(v.get("key", [])))
    assert set(scout.key) >= {"attempts", "search_history", "rejected"}
    text = _texts(at)
    assert "Only creator_finder reads this; no other agent is given it." in text
    assert f"#### {escape_inline(ACTOR)}'s own memory" in text
    # What the last call was given: the lead's memory, as the Evaluator read it.
    assert "**evaluator** read as **marketing\\_lead**: `shared`, `agent:marketing_lead`" in text
    given = next(v for v in frames if "entry" in v.columns)
    assert "shared.business_card" in set(given.entry)
    assert "Alma Cafe" in given[given.entry == "shared.business_card"].iloc[0].value
    assert not [e for e in given.entry if e.startswith("private.") and "search" in e]


def test_a_protocol_run_has_no_team_tab() -> None:
    run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
    from tests.test_pages import drive as drive_all

    drive_all()
    at = open_run(run_id, "Dr. Lee")
    assert not at.exception
    assert "Team" not in [t.label for t in at.tabs]
    assert "Memory" not in [t.label for t in at.tabs]


def test_traces_nests_a_campaigns_calls_under_its_team() -> None:
    from tests.test_pages import app

    run_id = start()
    drive(run_id)
    at = app(ACTOR)
    at.query_params["run"] = str(run_id)
    at = at.switch_page("pages/traces.py").run()
    assert not at.exception
    box = next(e for e in at.expander if e.label.startswith("Calls by team member"))
    assert box.get("plotly_chart"), "the nested timeline"
    spec = json.loads(box.get("plotly_chart")[0].proto.spec)
    ys = [t["y"][0] for t in spec["data"] if t.get("type") == "bar"]
    assert "Orchestrator › Marketing Lead" in ys and "Marketing Lead › Brief writer" in ys


def test_a_short_diff_between_two_attempts_opens() -> None:
    """A person's comment, applied in the brief writer's second attempt: a short diff."""
    run_id = start()
    drive(run_id)
    service.request_revision(run_id=run_id, comment="Mention the student discount",
                             actor=ACTOR)
    drive(run_id)
    at = open_run(run_id, ACTOR, tab="Team")
    at.selectbox(key=f"team_art_{run_id}").set_value("brief_writer v2").run()
    assert not at.exception
    assert at.selectbox(key=f"team_cmp_{run_id}_brief_writer v2").value == "brief_writer v1"
    diff = next(c.value for c in at.code if c.value.startswith("--- brief_writer v1"))
    assert "\n+++ brief_writer v2" in diff and diff.count("\n") <= 24
