"""Prompt versions: which text a call uses (per-run override, then the active version, then
the code default) and which version the LLMCall records; saving and activating; the
comparison of versions on outcomes against a direct computation; the Prompts page."""

from __future__ import annotations

import threading
from pathlib import Path
from statistics import mean

import pytest
from sqlalchemy import update
from sqlmodel import select
from streamlit.testing.v1 import AppTest

from db.models import Draft, LLMCall, PromptVersion, Run, Score, Step
from db.session import session_scope
from engine import prompt_versions as pv
from engine import service
from engine.errors import InvalidInput, NotFound
from engine.llm.offline.backend import OfflineBackend
from engine.loop.leases import claim_run
from engine.loop.supervisor import Supervisor
from engine.pipelines.protocol.critics import SAFETY_PROMPT
from engine.pipelines.protocol.spec import DRAFTER_PROMPT, THRESHOLDS
from engine.pipelines.registry import PIPELINES
from tests.factories import INTENT
from ui.prompt_figures import comparison_figure, comparison_rows

ROOT = Path(__file__).resolve().parent.parent


def drive(run_id: int) -> str:
    assert claim_run(run_id, "w")
    return Supervisor(OfflineBackend(), "w").run_until_idle(run_id)


def start(params: dict | None = None, intent: str = INTENT["intent"]) -> int:
    run_id = service.start_run(kind="protocol", input={**INTENT, "intent": intent},
                               actor="dr. lee", params=params)
    assert drive(run_id) == "awaiting_review"
    return run_id


def calls(run_id: int, agent: str) -> list[tuple[int | None, str]]:
    """(recorded prompt version, system prompt sent) of every call of `agent` in the run."""
    with session_scope() as s:
        rows = s.exec(select(LLMCall).where(LLMCall.run_id == run_id, LLMCall.agent == agent)
                      .order_by(LLMCall.id)).all()
        return [(c.prompt_version, c.request["messages"][0]["content"]) for c in rows]


def test_resolution_order_and_attribution(db_url: str) -> None:
    first = start()
    assert set(calls(first, "drafter")) == {(None, DRAFTER_PROMPT)}

    assert pv.save_version(agent="drafter", text="Drafter v1: warm and brief.", actor="dr. lee",
                           activate=True) == 1
    assert pv.save_version(agent="drafter", text="Drafter v2: add a worksheet.",
                           actor="dr. kim") == 2  # saved, not active
    active = start()
    assert set(calls(active, "drafter")) == {(1, "Drafter v1: warm and brief.")}
    # Other agents are untouched by the drafter's versions.
    assert set(calls(active, "safety_guardian")) == {(None, SAFETY_PROMPT)}

    by_number = start({"prompts": {"drafter": 2}})
    assert set(calls(by_number, "drafter")) == {(2, "Drafter v2: add a worksheet.")}

    own_text = start({"prompts": {"drafter": "A text just for this run."}})
    assert set(calls(own_text, "drafter")) == {(None, "A text just for this run.")}

    pv.activate(agent="drafter", version=pv.CODE_DEFAULT, actor="dr. lee")
    back = start()
    assert set(calls(back, "drafter")) == {(None, DRAFTER_PROMPT)}


def test_save_and_activate_keep_exactly_one_active(db_url: str) -> None:
    for i in range(1, 4):
        pv.save_version(agent="clinical_critic", text=f"Critic prompt {i}", actor="dr. lee")
    assert [v.version for v in pv.list_versions("clinical_critic")] == [3, 2, 1, 0]
    assert pv.list_versions("clinical_critic")[-1].active  # nothing saved is active yet

    def active() -> list[int]:
        with session_scope() as s:
            return list(s.exec(select(PromptVersion.version).where(
                PromptVersion.agent == "clinical_critic", PromptVersion.active == True)))  # noqa: E712

    pv.activate(agent="clinical_critic", version=2, actor="dr. lee")
    assert active() == [2]
    threads = [threading.Thread(target=pv.activate,
                                kwargs={"agent": "clinical_critic", "version": v,
                                        "actor": "dr. lee"}) for v in (1, 3, 2, 1, 3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(active()) == 1
    pv.save_version(agent="clinical_critic", text="Critic prompt 4", actor="dr. kim",
                    activate=True)
    assert active() == [4]
    assert pv.get_version("clinical_critic", 4).author == "dr. kim"

    with pytest.raises(InvalidInput, match="same as the latest"):
        pv.save_version(agent="clinical_critic", text="  Critic prompt 4 \n", actor="x")
    with pytest.raises(InvalidInput, match="empty"):
        pv.save_version(agent="clinical_critic", text="   ", actor="x")
    with pytest.raises(InvalidInput, match="who you are"):
        pv.save_version(agent="clinical_critic", text="new", actor=" ")
    with pytest.raises(NotFound, match="no prompt version 9"):
        pv.activate(agent="clinical_critic", version=9, actor="x")
    with pytest.raises(NotFound, match="no agent"):
        pv.list_versions("nobody")
    assert active() == [4]


def test_diff_between_any_two_versions(db_url: str) -> None:
    pv.save_version(agent="drafter", text="Line one.\nLine two.\nLine three.", actor="a")
    pv.save_version(agent="drafter", text="Line one.\nLine 2, kinder.\nLine three.", actor="b")
    diff = pv.diff_versions("drafter", 1, 2)
    assert diff[:2] == ["--- v1", "+++ v2"]
    assert "-Line two." in diff and "+Line 2, kinder." in diff and " Line one." in diff
    from_code = pv.diff_versions("drafter", 0, 1)
    assert from_code[0] == "--- code default"
    assert f"-{DRAFTER_PROMPT.splitlines()[0]}" in from_code
    assert pv.diff_versions("drafter", 2, 2) == []


def _seed() -> dict[str, int]:
    """Runs with the code default, v1 and v2 of the drafter and one per-run text, with
    approvals, a rejection, one run left open, and known call costs."""
    runs = {"code_a": start(intent="Help a student manage exam panic")}
    service.approve(run_id=runs["code_a"], actor="dr. lee")
    pv.save_version(agent="drafter", text="Drafter v1", actor="dr. lee", activate=True)
    runs["v1_a"] = start(intent="Help an adult who worries at night")
    runs["v1_b"] = start(intent="Help a new parent with low mood")
    service.approve(run_id=runs["v1_a"], actor="dr. lee")
    service.reject(run_id=runs["v1_b"], actor="dr. lee", comment="Not for this clinic")
    pv.save_version(agent="drafter", text="Drafter v2", actor="dr. kim", activate=True)
    runs["v2_a"] = start(intent="Help someone avoid avoiding the supermarket")
    runs["v2_open"] = start(intent="Help a student who cannot sleep before exams")
    service.approve(run_id=runs["v2_a"], actor="dr. kim")
    runs["text"] = start({"prompts": {"drafter": "A one-off text"}}, intent="Help with anger")
    with session_scope() as s:
        ids = list(s.exec(select(LLMCall.id)))
        for i in ids:
            s.execute(update(LLMCall).where(LLMCall.id == i).values(cost_usd=0.001 * (i % 7 + 1)))
    return runs


def _direct(agent: str, stages: tuple[str, ...] = ("draft",)) -> dict[int, dict]:
    """The comparison computed in Python from the rows, one obvious step at a time."""
    with session_scope() as s:
        all_calls = list(s.exec(select(LLMCall)))
        runs = {r.id: r for r in s.exec(select(Run))}
        drafts = list(s.exec(select(Draft)))
        scores = list(s.exec(select(Score)))
        steps = list(s.exec(select(Step)))
    out: dict[int, dict] = {}
    for c in all_calls:
        if c.agent != agent:
            continue
        own = (runs[c.run_id].params.get("prompts") or {}).get(agent)
        key = c.prompt_version if c.prompt_version is not None else (
            pv.RUN_TEXT if isinstance(own, str) else pv.CODE_DEFAULT)
        out.setdefault(key, {"runs": set()})["runs"].add(c.run_id)
    for row in out.values():
        ids = row["runs"]
        agent_drafts = {d.id for d in drafts if d.run_id in ids and d.author_kind == "agent"
                        and d.stage in stages}
        mine = [sc for sc in scores if sc.draft_id in agent_drafts]
        row["mean"] = {n: mean(sc.value for sc in mine if sc.name == n)
                       for n in {sc.name for sc in mine}}
        passes = [st for st in steps if st.run_id in ids and st.node == "decide"
                  and st.stage in stages and (st.detail or "").startswith("thresholds met")]
        firsts = [min((st.seq, st.iteration) for st in passes if st.run_id == r)[1]
                  for r in {st.run_id for st in passes}]
        row["passed"] = len(firsts)
        row["iters"] = mean(firsts) if firsts else None
        row["approved"] = sum(runs[r].status == "approved" for r in ids)
        row["rejected"] = sum(runs[r].status == "rejected" for r in ids)
        row["cost"] = sum(c.cost_usd or 0 for c in all_calls if c.run_id in ids)
    return out


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def any_db(request: pytest.FixtureRequest) -> str:
    """SQLite, and PostgreSQL where the suite can start one: the per-run-text group is read
    with each dialect's own JSON function."""
    try:
        return str(request.getfixturevalue("db_url" if request.param == "sqlite" else "pg_url"))
    except pytest.FixtureLookupError:
        pytest.skip("no PostgreSQL fixture in this suite")


def _assert_matches(got: dict[int, pv.VersionOutcome], want: dict[int, dict]) -> None:
    assert set(want) <= set(got)
    for key, w in want.items():
        o = got[key]
        assert o.runs == len(w["runs"])
        assert o.mean_scores.keys() == w["mean"].keys()
        for name, value in w["mean"].items():
            assert o.mean_scores[name] == pytest.approx(value)
        assert o.runs_passed == w["passed"]
        assert o.mean_iterations_to_pass == pytest.approx(w["iters"])
        assert (o.approved, o.rejected) == (w["approved"], w["rejected"])
        assert o.cost_usd == pytest.approx(w["cost"])
        decided = w["approved"] + w["rejected"]
        assert o.approval_rate == (pytest.approx(w["approved"] / decided) if decided else None)
        assert o.cost_per_approved == (pytest.approx(w["cost"] / w["approved"])
                                       if w["approved"] else None)


def test_comparison_matches_a_direct_computation(any_db: str) -> None:
    runs = _seed()
    got = {o.version: o for o in pv.compare_versions("drafter")}
    want = _direct("drafter")
    assert set(got) == {2, 1, pv.CODE_DEFAULT, pv.RUN_TEXT}
    assert [o.label for o in pv.compare_versions("drafter")] == [
        "v2", "v1", "code default", "per-run text"]
    assert got[2].active and not got[1].active and not got[pv.CODE_DEFAULT].active
    assert got[2].runs == 2 and got[1].runs == 2 and got[pv.CODE_DEFAULT].runs == 1
    _assert_matches(got, want)
    assert got[1].approval_rate == 0.5 and got[2].approval_rate == 1.0
    assert got[pv.RUN_TEXT].approved == 0 and got[pv.RUN_TEXT].cost_per_approved is None
    # Critics were never versioned: all their runs sit with the code default.
    critic = pv.compare_versions("safety_guardian")
    assert [(o.version, o.runs) for o in critic] == [(pv.CODE_DEFAULT, len(runs))]

    outcomes = pv.compare_versions("drafter")
    fig = comparison_figure(outcomes, THRESHOLDS)
    bars = {t.meta["score"]: t for t in fig.data if t.meta["role"] == "score"}
    assert set(bars) == {"safety", "empathy", "clinical"}
    for name, trace in bars.items():
        assert list(trace.x) == [o.label for o in outcomes if o.runs]
        assert list(trace.y) == pytest.approx([o.mean_scores[name] for o in outcomes if o.runs])
    lines = {t.meta["score"]: t.y[0] for t in fig.data if t.meta["role"] == "threshold"}
    assert lines == THRESHOLDS
    approval = next(t for t in fig.data if t.meta["role"] == "approval_rate")
    assert list(approval.y) == [o.approval_rate for o in outcomes if o.runs]
    cost = next(t for t in fig.data if t.meta["role"] == "cost_per_approved")
    assert list(cost.y) == [o.cost_per_approved for o in outcomes if o.runs]
    rows = comparison_rows(outcomes, THRESHOLDS)
    assert rows[0]["Version"] == "v2 (active)" and rows[0]["Runs"] == 2
    assert rows[1]["Approval rate"] == 0.5
    assert rows[0]["Mean safety"] == pytest.approx(got[2].mean_scores["safety"])


def test_comparison_with_no_runs_lists_every_version(db_url: str) -> None:
    pv.save_version(agent="drafter", text="Drafter v1", actor="dr. lee")
    outcomes = pv.compare_versions("drafter")
    assert [(o.label, o.runs, o.approval_rate) for o in outcomes] == [
        ("v1", 0, None), ("code default", 0, None)]
    fig = comparison_figure(outcomes, THRESHOLDS)
    assert fig.layout.annotations[-1].text.startswith("No run has used")


def test_prompts_page_saves_activates_and_compares(db_url: str,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # No in-app worker thread: it would outlive this test and claim other tests' runs.
    monkeypatch.setenv("DRAFTROOM_INAPP_WORKER", "0")
    start()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.session_state["reviewer"] = "dr. lee"
    at.run()
    at.switch_page("pages/prompts.py").run()
    assert not at.exception
    assert "active: **the default in code**" in at.markdown[0].value
    assert not at.text_area  # only the open tab (Versions) is drawn
    at.session_state["pr_tab"] = "Edit"
    at.run()
    at.text_area[0].set_value("You are the Drafter. Be brief and warm.")
    at.button[0].click().run()
    assert not at.exception
    info = pv.agent_info("drafter")
    assert info.active_version == 1 and pv.get_version("drafter", 1).author == "dr. lee"
    assert "active: **v1**" in at.markdown[0].value
    # Back to the code default from the Versions tab.
    at.session_state["pr_tab"] = "Versions"
    at.run()
    at.selectbox(key="pr_view_drafter").set_value(0).run()
    at.button(key="pr_activate_drafter_0").click().run()
    assert pv.agent_info("drafter").active_version is None
    assert not at.dataframe  # the comparison runs only in its own tab (lazy: issue 15)
    at.session_state["pr_tab"] = "Compare on outcomes"
    at.run()
    assert at.dataframe  # the comparison table is drawn
    at.session_state["pr_tab"] = "Diff"
    at.run()
    assert any("+You are the Drafter. Be brief and warm." in c.value for c in at.code)


def test_campaign_agents_are_compared_in_the_stages_they_work_in(db_url: str) -> None:
    from engine.pipelines.campaign.brands import list_brands

    brand = list_brands()[0]
    data = {"brand_id": brand.id, "brand_name": brand.name, "goal": "Fill weekend brunch",
            "audience": "Students nearby", "budget": 3000, "channels": ["email", "sms"],
            "num_creators": 2}
    pv.save_version(agent="brief_writer", text="Brief writer v1", actor="mia", activate=True)
    for approve_stages in (0, 1, 2):
        run_id = service.start_run(kind="campaign", input=data, actor="mia")
        assert drive(run_id) == "awaiting_review"
        for _ in range(approve_stages):  # approve a stage; the next one is drafted
            service.approve(run_id=run_id, actor="mia")
            assert drive(run_id) == "awaiting_review"
    brief = {o.version: o for o in pv.compare_versions("brief_writer")}
    assert brief[1].runs == 3 and brief[pv.CODE_DEFAULT].runs == 0
    _assert_matches(brief, _direct("brief_writer", ("brief",)))
    stages = tuple(st.name for st in PIPELINES["campaign"].stages)
    evaluator = {o.version: o for o in pv.compare_versions("evaluator")}
    assert evaluator[pv.CODE_DEFAULT].runs == 3
    _assert_matches(evaluator, _direct("evaluator", stages))
