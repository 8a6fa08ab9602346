"""The Start, Review queue and Run pages in Streamlit's AppTest, with the offline backend.
The in-app worker is off: each test drives runs itself with Worker.run_once()."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from db.models import Run
from db.session import session_scope
from engine import service
from engine.loop.worker import Worker
from engine.pipelines.protocol.models import MAX_INTENT
from engine.run_list import list_runs
from engine.run_state import RunStatus
from engine.views import get_run
from testkit.queue_cards import card_links
from ui.run_view import tab_key

APP = str(Path(__file__).resolve().parent.parent / "app.py")
ME = "Dr. Lee"
FLAGGED = ("# Sleep plan\n\n## Steps\n\n1. Keep a regular bedtime.\n"
           "2. Stop taking your medication if it makes you drowsy.\n\n"
           "## Safety note\n\nIf you feel unsafe, call or text 988.\n")


@pytest.fixture(autouse=True)
def _db(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("DRAFTROOM_INAPP_WORKER", "0")
    yield


def app(who: str | None = ME) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=30)
    if who:
        at.session_state["reviewer"] = who
    return at.run()


def open_run(run_id: int, who: str | None = ME, *, tab: str | None = None) -> AppTest:
    """The Run page of `run_id`; with `tab`, that tab opened (only the open tab is drawn)."""
    at = app(who)
    at.query_params["run"] = str(run_id)
    if tab is not None:
        at.session_state[tab_key(run_id)] = tab
    return at.switch_page("pages/run.py").run()


def drive() -> None:
    """Let a worker take every queued run to its next halt."""
    worker = Worker()
    while worker.run_once() is not None:
        pass


def new_run(intent: str = "Help a student manage exam panic") -> int:
    run_id = service.start_run(kind="protocol", actor="seed",
                               input={"intent": intent, "audience": "students"})
    drive()
    return run_id


def flagged_run() -> int:
    run_id = new_run()
    service.edit(run_id=run_id, actor="seed", content=FLAGGED)
    drive()
    return run_id


def submit(at: AppTest, label: str) -> AppTest:
    buttons = [b for b in at.button if b.label == label]
    assert buttons, f"no button {label!r}; have {[b.label for b in at.button]}"
    return buttons[0].click().run()


def texts(at: AppTest) -> str:
    parts = [e.value for kind in ("markdown", "caption", "info", "warning", "error", "success")
             for e in getattr(at, kind)]
    return "\n".join(str(p) for p in parts)


def assert_ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


# -- app shell ---------------------------------------------------------------------------------


def test_sidebar_says_who_which_backend_and_which_database(db_url: str) -> None:
    at = app()
    assert_ok(at)
    side = "\n".join(str(c.value) for c in at.sidebar.caption)
    assert "Offline backend: deterministic templates and rules, no model calls" in side
    assert db_url.removeprefix("sqlite:///") in side
    assert "In-app worker off" in side
    assert at.sidebar.text_input(key="reviewer_input").value == ME


def test_reviewer_name_typed_in_the_sidebar_is_kept_across_pages() -> None:
    at = app(who=None)
    assert "Needed before you start" in "\n".join(str(c.value) for c in at.sidebar.caption)
    at.sidebar.text_input(key="reviewer_input").set_value("  Ana Ruiz ").run()
    assert at.session_state["reviewer"] == "Ana Ruiz"
    # (AppTest reruns a page of an app with a pages/ folder without its entrypoint, so the
    # sidebar is checked on a fresh run rather than after the page switches.)
    at.switch_page("pages/queue.py").run()
    at.switch_page("pages/start.py").run()
    assert at.session_state["reviewer"] == "Ana Ruiz"
    assert not next(b for b in at.button if b.label == "Start drafting").disabled


# -- start ---------------------------------------------------------------------------------------


def test_start_form_creates_a_run_and_opens_its_page() -> None:
    at = app()
    at.text_area(key="p_intent").set_value("Help a student manage exam panic")
    at.text_input(key="p_audience").set_value("university students")
    at.selectbox(key="p_type").set_value("paced_breathing")
    at.slider(key="p_th_safety").set_value(0.9)
    at.number_input(key="p_max_iter").set_value(3)
    submit(at, "Start drafting")
    assert_ok(at)
    runs = list_runs()
    assert len(runs) == 1
    assert at.query_params["run"] == str(runs[0].id)
    assert at.title[0].value == "Help a student manage exam panic"
    assert "Queued" in texts(at)  # the page shows progress before any worker took it

    detail = get_run(runs[0].id)
    assert detail.input["exercise_type"] == "paced_breathing"
    assert detail.thresholds["safety"] == 0.9 and detail.max_iterations == 3
    assert detail.created_by == ME

    drive()
    at.run()
    assert_ok(at)
    assert "Waiting for your review" in texts(at)
    assert any(b.label.startswith("Approve v") for b in at.button)


@pytest.mark.parametrize(("intent", "message"), [
    ("", "Intent is required"),
    ("  ", "Intent is required"),
    # One over the limit: the form's counter (max_chars) stops the person at it; the service
    # still refuses it from any other caller (test_service_refuses_an_intent_over_the_limit).
])
def test_invalid_input_is_shown_on_the_form_and_nothing_is_created(intent: str,
                                                                   message: str) -> None:
    at = app()
    at.text_area(key="p_intent").set_value(intent)
    submit(at, "Start drafting")
    assert_ok(at)
    errors = [e.value for e in at.error]
    assert any(message in e for e in errors), errors
    assert any("Nothing was started" in e for e in errors)
    assert list_runs() == []
    assert "run" not in at.query_params


def test_service_refuses_an_intent_over_the_limit() -> None:
    from engine.errors import InvalidInput

    with pytest.raises(InvalidInput, match=f"at most {MAX_INTENT} characters"):
        service.start_run(kind="protocol", actor=ME,
                          input={"intent": "x" * (MAX_INTENT + 1), "audience": "adults"})
    assert list_runs() == []


def test_start_needs_a_reviewer_name() -> None:
    at = app(who=None)
    button = next(b for b in at.button if b.label == "Start drafting")
    assert button.disabled
    assert "Enter your name" in texts(at)


def test_campaign_choice_draws_the_campaign_form_or_says_it_is_missing() -> None:
    at = app()
    at.segmented_control(key="start_kind").set_value("Campaign").run()
    assert_ok(at)
    import importlib.util

    if importlib.util.find_spec("ui.campaign_form") is None:
        assert "Campaigns are not available yet" in texts(at)
    else:
        assert not any(b.label == "Start drafting" for b in at.button)


# -- review queue -------------------------------------------------------------------------------


def test_queue_lists_awaiting_review_first_with_scores_and_links() -> None:
    done = new_run("Plan pleasant activities for a low week")
    service.approve(run_id=done, actor=ME)
    waiting = new_run("Help a student manage exam panic")
    queued = service.start_run(kind="protocol", actor="seed",
                               input={"intent": "Wind down before sleep", "audience": "adults"})
    at = app()
    at.switch_page("pages/queue.py").run()
    assert_ok(at)
    headers = [h.value for h in at.subheader]
    assert [h.split(" ", 1)[1] for h in headers] == [
        "Needs a person (1)", "Working (1)", "Finished (1)"]
    order = _links(at)
    assert order == [f"run={waiting}", f"run={queued}", f"run={done}"]
    body = texts(at)
    assert ":green-badge[safety" in body  # latest scores on each card
    assert "Awaiting review" in body and "Approved" in body


def _links(at: AppTest) -> list[str]:
    """The query strings of the run links on the page, in order."""
    return [c.query_string for c in card_links(at)]


def test_queue_filters_by_search_kind_and_status() -> None:
    a = new_run("Help a student manage exam panic")
    b = new_run("Wind down before sleep")
    service.approve(run_id=b, actor="Someone Else")
    at = app()
    at.switch_page("pages/queue.py").run()
    at.text_input(key="q_search").set_value("exam").run()
    assert _links(at) == [f"run={a}"]
    at.text_input(key="q_search").set_value("").run()
    at.multiselect(key="q_status").set_value([RunStatus.APPROVED]).run()
    assert _links(at) == [f"run={b}"]
    at.multiselect(key="q_status").set_value([]).run()
    at.selectbox(key="q_reviewer").set_value("Someone Else").run()
    assert _links(at) == [f"run={b}"]
    at.selectbox(key="q_reviewer").set_value("anyone").run()
    at.segmented_control(key="q_kind").set_value("campaign").run()
    assert _links(at) == []
    assert "No run matches these filters" in texts(at)


# -- run page -----------------------------------------------------------------------------------


def test_run_page_without_or_with_an_unknown_id() -> None:
    at = app()
    at.switch_page("pages/run.py").run()
    assert_ok(at)
    assert "No runs yet" in texts(at)
    at = open_run(999)
    assert "Run 999 does not exist." in [e.value for e in at.error]


def test_run_page_shows_draft_scores_history_notes_and_steps() -> None:
    run_id = new_run()
    at = open_run(run_id)
    assert_ok(at)
    detail = get_run(run_id)
    cur = detail.current
    assert cur is not None
    assert at.subheader[0].value == f"Draft v{cur.version}"
    labels = {m.label: m.value for m in at.metric}
    assert set(labels) >= {"safety", "empathy", "clinical"}
    assert labels["safety"] == f"{cur.scores['safety']:.2f}"
    assert [t.label for t in at.tabs] == ["Score history", "Versions & diff", "Blackboard",
                                           "Audit trail", "Steps"]
    # Every Markdown element is drawn without HTML.
    assert all(not m.proto.allow_html for m in at.markdown)


def test_run_page_draws_only_the_open_tab() -> None:
    """A long run's version table, audit trail and steps are drawn when their tab is opened,
    not on every load of the page (only Score history's chart on first paint)."""
    run_id = new_run()
    at = open_run(run_id)
    assert_ok(at)
    assert [c.key for c in at.get("plotly_chart")] == [f"scores_{run_id}"]
    assert not at.dataframe  # no versions, audit or steps grid drawn behind closed tabs
    at = open_run(run_id, tab="Steps")
    assert_ok(at)
    assert not at.get("plotly_chart")
    steps = at.dataframe[0].value
    assert list(steps["#"]) == [s.seq for s in reversed(get_run(run_id).steps)]
    at = open_run(run_id, tab="Versions & diff")
    assert_ok(at)
    assert list(at.dataframe[0].value["Version"]) == [
        f"v{d.version}" for d in reversed(get_run(run_id).drafts)]


def test_approve_click_approves_and_records_the_act() -> None:
    run_id = new_run()
    at = open_run(run_id)
    version = get_run(run_id).current.version  # type: ignore[union-attr]
    submit(at, f"Approve v{version}")
    assert_ok(at)
    detail = get_run(run_id)
    assert detail.status == RunStatus.APPROVED
    assert [(a.actor, a.action) for a in detail.actions] == [(ME, "approve")]
    assert [s.value for s in at.success if s.value.startswith("Approved")][0].startswith(
        "Approved by Dr")  # said once, by the status banner
    assert not any(b.label.startswith("Approve v") for b in at.button)
    assert any(b.label == "Export approved draft (Markdown)" for b in at.get("download_button"))


def test_revise_click_sends_it_back_with_the_comment() -> None:
    run_id = new_run()
    before = len(get_run(run_id).drafts)
    at = open_run(run_id)
    at.text_area(key=f"revise_comment_{run_id}").set_value("Add a step for the night before.")
    submit(at, "Request revision")
    assert_ok(at)
    detail = get_run(run_id)
    assert detail.status == RunStatus.QUEUED
    assert detail.actions[-1].action == "revise"
    assert "Sent back to the drafter" in texts(at)
    assert any(b.label == "Cancel run" for b in at.button)  # queued: a person may call it off
    drive()
    detail = get_run(run_id)
    assert len(detail.drafts) > before and detail.status == RunStatus.REVIEW


def test_revise_needs_a_comment() -> None:
    run_id = new_run()
    at = open_run(run_id)
    submit(at, "Request revision")
    assert "A comment is required." in [e.value for e in at.error]
    assert get_run(run_id).status == RunStatus.REVIEW


def test_refused_approval_on_a_flagged_draft_then_override() -> None:
    run_id = flagged_run()
    detail = get_run(run_id)
    cur = detail.current
    assert cur is not None and any(f.blocking for f in cur.flags)
    at = open_run(run_id)
    body = texts(at)
    assert ":red-background[Stop taking your medication if it makes you drowsy\\.]" in body
    assert any("Medication" in e.value for e in at.error)  # the flag, quoted
    submit(at, f"Approve v{cur.version}")
    assert_ok(at)
    assert any("Give an override reason" in e.value for e in at.error)
    assert get_run(run_id).status == RunStatus.REVIEW

    at.text_area(key=f"approve_reason_{run_id}_{cur.id}").set_value(
        "Reviewed with the prescriber; the line is quoted from their plan.")
    submit(at, f"Approve v{cur.version}")
    assert_ok(at)
    detail = get_run(run_id)
    assert detail.status == RunStatus.APPROVED
    assert detail.actions[-1].action == "approve_override"
    assert detail.actions[-1].comment.startswith("Reviewed with the prescriber")  # type: ignore[union-attr]


def test_edit_in_place_saves_a_new_version_by_the_person() -> None:
    run_id = new_run()
    cur = get_run(run_id).current
    assert cur is not None
    at = open_run(run_id)
    at.toggle(key=f"editing_{run_id}").set_value(True).run()
    box = at.text_area(key=f"edit_text_{run_id}_{cur.id}")
    assert box.value == cur.content
    box.set_value(cur.content + "\n\nRemember one calm moment.")
    submit(at, f"Save as v{cur.version + 1}")
    assert_ok(at)
    detail = get_run(run_id)
    new = detail.current
    assert new is not None and new.version == cur.version + 1
    assert (new.author, new.author_kind) == (ME, "human")
    assert not at.toggle(key=f"editing_{run_id}").value  # back to reading
    drive()
    at.run()
    assert "a person's edit was re-scored" in texts(at)


def test_acts_are_disabled_until_the_reviewer_is_named() -> None:
    run_id = new_run()
    at = open_run(run_id, who=None)
    assert "Enter your name" in texts(at)
    acts = [b for b in at.button if b.label.startswith(("Approve v", "Request revision"))]
    assert acts and all(b.disabled for b in acts)
    assert at.toggle(key=f"editing_{run_id}").disabled


def test_an_act_on_a_run_that_changed_meanwhile_is_refused_with_a_reload() -> None:
    run_id = new_run()
    at = open_run(run_id)
    version = get_run(run_id).current.version  # type: ignore[union-attr]
    # Another reviewer, in another tab, sends it back.
    service.request_revision(run_id=run_id, actor="Other", comment="Shorter, please.")
    submit(at, f"Approve v{version}")
    assert_ok(at)
    assert any("This run changed since you opened it" in w.value for w in at.warning)
    assert get_run(run_id).status == RunStatus.QUEUED  # nothing overwritten
    at.run()  # the page reloads itself while the run works: the refusal must stay
    assert any("This run changed since you opened it" in w.value for w in at.warning)
    submit(at, "Reload")
    assert not any("This run changed" in w.value for w in at.warning)
    assert any(b.label == "Cancel run" for b in at.button)


def test_a_refusal_shown_on_one_run_does_not_follow_the_person_to_another() -> None:
    first, second = new_run(), new_run()
    at = open_run(first)
    version = get_run(first).current.version  # type: ignore[union-attr]
    service.request_revision(run_id=first, actor="Other", comment="Shorter, please.")
    submit(at, f"Approve v{version}")
    assert any("This run changed since you opened it" in w.value for w in at.warning)
    at.query_params["run"] = str(second)
    at.run()
    assert_ok(at)
    assert not any("This run changed" in w.value for w in at.warning)


# A queued run's Cancel (it replaced Halt there): tests/test_cancel_queued.py.


def test_retry_a_failed_run() -> None:
    run_id = new_run()
    with session_scope() as s:
        run = s.get(Run, run_id)
        assert run is not None
        run.status, run.error, run.next_node = RunStatus.FAILED, "model timed out", "draft"
        s.add(run)
    at = open_run(run_id)
    assert any("model timed out" in e.value for e in at.error)
    submit(at, "Retry the failed step")
    assert_ok(at)
    assert get_run(run_id).status == RunStatus.QUEUED
    assert get_run(run_id).actions[-1].action == "retry"


def test_html_in_a_draft_is_rendered_as_text_not_markup() -> None:
    run_id = new_run()
    service.edit(run_id=run_id, actor="seed",
                 content="# Plan\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n")
    drive()
    at = open_run(run_id)
    drafts = [m for m in at.markdown if "<script>alert(1)</script>" in m.value]
    assert drafts and all(not m.proto.allow_html for m in at.markdown)



def test_acts_the_reviewers_role_does_not_allow_are_greyed_out_with_the_reason() -> None:
    from engine.identity import grant

    run_id = new_run()
    grant(actor="root", person="root", role="admin")
    grant(actor="root", person=ME, role="ops")
    at = open_run(run_id)
    approve = next(b for b in at.button if b.label.startswith("Approve v"))
    assert approve.disabled
    assert at.toggle(key=f"editing_{run_id}").disabled
    assert any("approve needs clinician or admin" in i.value for i in at.info)
    grant(actor="root", person=ME, role="clinician")
    at.run()
    assert not next(b for b in at.button if b.label.startswith("Approve v")).disabled


def test_campaign_run_page_shows_its_stages_and_uses_the_campaign_view() -> None:
    pytest.importorskip("ui.campaign_view")
    from engine.pipelines.campaign.brands import list_brands

    brand = list_brands()[0]
    run_id = service.start_run(kind="campaign", actor="seed", input={
        "brand_id": brand.id, "brand_name": brand.name, "goal": "More weekend visitors",
        "audience": "Students nearby", "budget": 1000, "channels": ["email", "sms"],
        "num_creators": 2})
    drive()
    at = open_run(run_id)
    assert_ok(at)
    detail = get_run(run_id)
    stages = next(m.value for m in at.markdown if m.value.startswith("**Stages**"))
    assert all(s.replace("_", " ") in stages for s in detail.stages)
    assert ":blue-badge[:material/arrow_forward:" in stages  # the current stage


def test_a_working_run_shows_its_step_and_iteration_and_polls() -> None:
    from db.models import Step
    from engine.loop.leases import claim_next

    run_id = service.start_run(kind="protocol", actor="seed",
                               input={"intent": "Wind down before sleep", "audience": "adults"})
    assert claim_next("test-worker") == run_id
    with session_scope() as s:
        s.add(Step(run_id=run_id, seq=1, node="draft", status="done", iteration=0,
                   detail="v1 written by drafter (480 chars)"))
        s.add(Step(run_id=run_id, seq=2, node="review", status="running", iteration=1))
        run = s.get(Run, run_id)
        assert run is not None
        run.iteration = 1
        s.add(run)
    at = open_run(run_id)
    assert_ok(at)
    body = texts(at)
    # Who is doing what (ui/run_progress.py), and each step of this burst as it landed.
    assert "**Safety guardian and Clinical critic are scoring v1** · round 1 of at most 5" in body
    assert "**Drafter** wrote v1 \\(480 characters\\)" in body
    assert any(b.label == "Halt" for b in at.button)
