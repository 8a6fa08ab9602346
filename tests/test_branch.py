"""Branching: a new run starts from any version of another, with lineage both ways, changed
parameters and guidance; the Run page's controls start one and link parent and children."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlmodel import func, select
from streamlit.testing.v1 import AppTest

from db.models import LLMCall, Run
from db.session import session_scope
from engine import branch, service, views
from engine.errors import ApprovalBlocked, InvalidInput, NotFound
from engine.interfaces.cli import main
from engine.llm.offline.backend import OfflineBackend
from engine.loop.leases import claim_run
from engine.loop.supervisor import Supervisor
from tests.factories import INTENT
from ui.branch import changed_params, lineage_links

UNSAFE = "\n\n## Extra\n\nStop taking your medication when you feel calmer.\n"


def drive(run_id: int) -> str:
    assert claim_run(run_id, "w")
    return Supervisor(OfflineBackend(), "w").run_until_idle(run_id)


@pytest.fixture
def parent(db_url: str) -> int:
    run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee",
                               params={"max_iterations": 4})
    assert drive(run_id) == "awaiting_review"
    return run_id


def runs() -> int:
    with session_scope() as s:
        return s.exec(select(func.count()).select_from(Run)).one()


def test_branch_starts_from_the_version_and_keeps_lineage_both_ways(parent: int) -> None:
    p = views.get_run(parent)
    source = p.drafts[0]
    child = branch.branch_run(run_id=parent, draft_id=source.id, actor="dr. kim")
    d = views.get_run(child)
    assert (d.status, d.next_node, d.parent_run_id, d.parent_draft_id) == (
        "queued", "review", parent, source.id)
    assert d.input == p.input and d.max_iterations == 4 and d.created_by == "dr. kim"
    first = d.drafts[0]
    assert (first.version, first.author, first.content) == (
        1, f"branch of run {parent} v1", source.content)
    assert [(a.actor, a.action, a.comment) for a in d.actions] == [
        ("dr. kim", "branch", f"from run {parent} v1")]

    assert drive(child) == "awaiting_review"
    d = views.get_run(child)
    assert d.drafts[0].scores, "the critics scored the copied version first"
    with session_scope() as s:
        first_agent = s.exec(select(LLMCall.agent).where(LLMCall.run_id == child)
                             .order_by(LLMCall.id)).first()
    assert first_agent in {"safety_guardian", "clinical_critic"}

    kids = branch.children_of(parent)
    assert [(k.run_id, k.draft_version, k.created_by) for k in kids] == [(child, 1, "dr. kim")]
    up = branch.lineage(child).parent
    assert up is not None and (up.run_id, up.draft_version) == (parent, 1)
    assert branch.lineage(parent).parent is None
    links = lineage_links(branch.lineage(child))
    assert links[0][0] == parent and f"run #{parent} v1" in links[0][1]


def test_changed_params_are_laid_over_the_parents(parent: int) -> None:
    p = views.get_run(parent)
    child = branch.branch_run(run_id=parent, draft_id=p.drafts[-1].id, actor="dr. kim",
                              params={"thresholds": {"clinical": 0.95}, "budget_usd": 2.5})
    d = views.get_run(child)
    assert d.thresholds["clinical"] == 0.95 and d.thresholds["safety"] == 0.8
    assert d.max_iterations == 4 and d.budget_usd == 2.5
    assert not any(k.startswith("_") for k in d.params)
    before = runs()
    with pytest.raises(InvalidInput, match="unknown threshold"):
        branch.branch_run(run_id=parent, draft_id=p.drafts[-1].id, actor="dr. kim",
                          params={"thresholds": {"brand_voice": 0.9}})
    with pytest.raises(InvalidInput, match="between 0 and 1"):
        branch.branch_run(run_id=parent, draft_id=p.drafts[-1].id, actor="dr. kim",
                          params={"thresholds": {"safety": 2}})
    with pytest.raises(NotFound):
        branch.branch_run(run_id=parent, draft_id=99_999, actor="dr. kim")
    with pytest.raises(NotFound):
        branch.branch_run(run_id=99_999, draft_id=p.drafts[-1].id, actor="dr. kim")
    with pytest.raises(InvalidInput, match="who you are"):
        branch.branch_run(run_id=parent, draft_id=p.drafts[-1].id, actor="")
    assert runs() == before, "nothing is written when a branch is refused"


def test_guidance_goes_to_the_drafter_first(parent: int) -> None:
    p = views.get_run(parent)
    guidance = "Make it suitable for teenagers and keep every step under twenty words."
    child = branch.branch_run(run_id=parent, draft_id=p.current_draft_id or 0, actor="dr. kim",
                              guidance=guidance)
    d = views.get_run(child)
    assert d.next_node == "draft"
    assert [(n.author, n.target, n.priority, n.text) for n in d.notes] == [
        ("dr. kim", "drafter", "critical", guidance)]
    assert drive(child) == "awaiting_review"
    d = views.get_run(child)
    assert [x.author for x in d.drafts][:2] == [f"branch of run {parent} v{p.current.version}",
                                                "drafter"]
    with session_scope() as s:
        first = s.exec(select(LLMCall).where(LLMCall.run_id == child).order_by(LLMCall.id)).first()
    assert first is not None and first.agent == "drafter"
    assert guidance in first.request["messages"][1]["content"]
    assert d.actions[0].comment.endswith(guidance)  # type: ignore[union-attr]


def test_a_flagged_version_carries_its_flags_and_the_gate(parent: int) -> None:
    p = views.get_run(parent)
    service.edit(run_id=parent, actor="dr. kim", content=p.current.content + UNSAFE)  # type: ignore[union-attr]
    drive(parent)
    flagged = views.get_run(parent).current
    assert flagged is not None and flagged.author == "dr. kim"
    child = branch.branch_run(run_id=parent, draft_id=flagged.id, actor="dr. lee",
                              params={"max_iterations": 1})
    copy = views.get_run(child).drafts[0]
    assert copy.author_kind == "human" and any(f.category == "medication" for f in copy.flags)
    with session_scope() as s:  # force the copy to be what a person reviews
        run = s.get(Run, child)
        run.status, run.next_node = "awaiting_review", None  # type: ignore[union-attr]
        s.add(run)
    with pytest.raises(ApprovalBlocked):
        service.approve(run_id=child, actor="dr. lee")


def test_cli_branch(parent: int, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["branch", str(parent), "--version", "1", "--actor", "dr. kim",
                 "--max-iterations", "2"])
    out = capsys.readouterr().out
    assert code == 0 and out.startswith(f"run-id: {parent + 1} (branched from run {parent})")
    d = views.get_run(parent + 1)
    assert d.parent_run_id == parent and d.max_iterations == 2 and d.status == "awaiting_review"


def test_changed_params_only_keeps_what_differs(parent: int) -> None:
    d = views.get_run(parent)
    same = changed_params(d, max_iterations=d.max_iterations, thresholds=dict(d.thresholds),
                          prompts={"drafter": "keep"})
    assert same == {}
    moved = changed_params(d, max_iterations=7, thresholds={**d.thresholds, "safety": 0.9},
                           prompts={"drafter": 3, "clinical_critic": "keep"})
    assert moved == {"max_iterations": 7, "thresholds": {"safety": 0.9},
                     "prompts": {"drafter": 3}}


RUN_PAGE_STUB = """
import streamlit as st
from engine.views import get_run
from ui.branch import render_branch_controls
detail = get_run(int(st.query_params["run"]))
st.title(f"Run {detail.id}")
render_branch_controls(detail, detail.current)
"""


def test_run_page_controls_start_a_branch_and_link_both_ways(parent: int,
                                                             tmp_path: Path) -> None:
    # A stand-in for the Run page (another module's), calling the controls as it will.
    (tmp_path / "pages").mkdir()
    (tmp_path / "pages" / "run.py").write_text(RUN_PAGE_STUB)
    (tmp_path / "app.py").write_text(
        "import streamlit as st\nst.navigation([st.Page('pages/run.py', title='Run')]).run()\n")
    at = AppTest.from_file(str(tmp_path / "app.py"), default_timeout=60)
    at.session_state["reviewer"] = "dr. kim"
    at.query_params["run"] = str(parent)
    at.run()
    assert not at.exception
    version = views.get_run(parent).current.version  # type: ignore[union-attr]
    assert at.expander[0].label == f"Start a new run from v{version}"
    at.text_area[0].set_value("Shorter, please.")
    at.number_input[0].set_value(3)
    at.button[0].click().run()
    assert not at.exception and not at.error
    child = parent + 1
    assert at.title[0].value == f"Run {child}", "went to the new run's page"
    d = views.get_run(child)
    assert d.parent_run_id == parent and d.max_iterations == 3
    assert d.notes[0].text == "Shorter, please."
    links = [p.label for p in at.get("page_link")]
    assert links == [f"Branched from run #{parent} v{version} · "
                     f"Help a university student manage exam panic (Awaiting review)"]
    at.query_params["run"] = str(parent)
    at.run()
    assert [p.label for p in at.get("page_link")] == [
        f"Branch run #{child} from v{version} by dr\\. kim (Queued)"]
