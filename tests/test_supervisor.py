"""The supervisor loop with a scripted model: every step committed, notes reach the drafter,
the thresholds, iteration budget and deterministic checks decide."""

from __future__ import annotations

import threading

import pytest
from sqlmodel import select

from db.models import Draft, LLMCall, Run, Score, Step
from db.session import session_scope
from engine import service, views
from engine.llm.base import AgentCall, LLMError
from engine.loop.leases import claim_run
from engine.loop.supervisor import Supervisor
from tests.factories import GOOD_CLINICAL, GOOD_SAFETY, INTENT, protocol_draft, review
from tests.utils.clock import ManualClock
from tests.utils.scripted import ScriptedModel


def drive(model: ScriptedModel, run_id: int) -> str:
    assert claim_run(run_id, "w1")
    return Supervisor(model, "w1").run_until_idle(run_id)


def start(**params) -> int:  # type: ignore[no-untyped-def]
    return service.start_run(kind="protocol", input=INTENT, actor="dr. lee", params=params)


def stored(run_id: int) -> tuple[list[Draft], list[Step], Run | None]:
    """What the database holds for the run: its drafts, its steps in order, the run row."""
    with session_scope() as s:
        drafts = list(s.exec(select(Draft).where(Draft.run_id == run_id)).all())
        steps = list(s.exec(select(Step).where(Step.run_id == run_id).order_by(Step.seq)).all())
        return drafts, steps, s.get(Run, run_id)


def test_thresholds_met_first_time_halts_for_review(db_url: str) -> None:
    model = ScriptedModel({
        "drafter": [protocol_draft()],
        "safety_guardian": [review(GOOD_SAFETY)],
        "clinical_critic": [review(GOOD_CLINICAL)],
    })
    run_id = start()
    assert drive(model, run_id) == "awaiting_review"
    model.assert_consumed()
    d = views.get_run(run_id)
    assert d.halt_reason == "thresholds_met"
    assert [s.node for s in d.steps] == ["draft", "review", "decide"]
    assert all(s.status == "done" and s.finished_at for s in d.steps)
    assert d.current and d.current.scores == {"safety": 0.95, "empathy": 0.85, "clinical": 0.9}
    with session_scope() as s:
        calls = s.exec(select(LLMCall).where(LLMCall.run_id == run_id)).all()
    assert sorted(c.agent for c in calls) == ["clinical_critic", "drafter", "safety_guardian"]
    # gpt-4.1-mini: 800 uncached x 0.40 + 200 cached x 0.10 + 500 out x 1.60 per 1M tokens.
    assert calls[0].cost_usd == pytest.approx((800 * 0.40 + 200 * 0.10 + 500 * 1.60) / 1e6)


def test_low_scores_revise_with_notes_addressed_to_the_drafter(db_url: str) -> None:
    model = ScriptedModel({
        "drafter": [protocol_draft("v1"), protocol_draft(
            "v2", extra_step="If you are in crisis, call the 988 crisis line.")],
        "safety_guardian": [
            review({"safety": 0.6}, [("drafter", "critical", "Add a crisis line."),
                                     ("clinical_critic", "info", "Not for the drafter.")]),
            review(GOOD_SAFETY),
        ],
        "clinical_critic": [review(GOOD_CLINICAL, [("broadcast", "warning", "Warmer tone.")]),
                            review(GOOD_CLINICAL)],
    })
    run_id = start()
    drive(model, run_id)
    model.assert_consumed()
    revision = [c for c in model.calls if c.agent == "drafter"][1]
    texts = [n.text for n in revision.task.notes]  # type: ignore[attr-defined]
    assert texts[0] == "Add a crisis line."  # critical first
    assert "Warmer tone." in texts and "Not for the drafter." not in texts
    assert "Add a crisis line." in revision.messages[1]["content"]
    d = views.get_run(run_id)
    assert [dr.version for dr in d.drafts] == [1, 2]
    assert d.iteration == 2 and d.halt_reason == "thresholds_met"


def test_max_iterations_halts_and_highlights_the_best_not_the_last(db_url: str) -> None:
    safety = [0.5, 0.79, 0.6]
    model = ScriptedModel({
        "drafter": [protocol_draft(f"v{i}") for i in range(1, 4)],
        "safety_guardian": [review({"safety": s}) for s in safety],
        "clinical_critic": [review(GOOD_CLINICAL) for _ in safety],
    })
    run_id = start(max_iterations=3)
    drive(model, run_id)
    d = views.get_run(run_id)
    assert d.halt_reason == "max_iterations" and d.iteration == 3
    best = d.draft(d.best_draft_id)
    assert best is not None and best.version == 2
    assert d.current is not None and d.current.version == 3


def test_deterministic_screen_binds_whatever_the_critic_says(db_url: str) -> None:
    unsafe = protocol_draft(extra_step="Stop taking your medication if the panic goes away.")
    model = ScriptedModel({
        "drafter": [unsafe, protocol_draft()],
        "safety_guardian": [review({"safety": 1.0}), review({"safety": 1.0})],
        "clinical_critic": [review(GOOD_CLINICAL), review(GOOD_CLINICAL)],
    })
    run_id = start()
    drive(model, run_id)
    d = views.get_run(run_id)
    v1 = d.drafts[0]
    assert v1.scores["safety"] < 0.8  # capped by the screen
    assert any(f.category == "medication" for f in v1.flags)
    med = next(f for f in v1.flags if f.category == "medication")
    assert v1.content[med.start:med.end] == med.text
    # The flag became a critical note for the drafter, which it got on revision.
    revision = [c for c in model.calls if c.agent == "drafter"][1]
    assert any(n.priority == "critical" and "medication" in n.text.lower()
               for n in revision.task.notes)  # type: ignore[attr-defined]
    assert d.current is not None and d.current.version == 2
    assert not [f for f in d.current.flags if f.blocking]


def test_critics_run_concurrently(db_url: str) -> None:
    both_in = threading.Barrier(2, timeout=5)

    def slow(scores: dict[str, float]):  # type: ignore[no-untyped-def]
        def answer(_call: AgentCall) -> object:  # type: ignore[type-arg]
            both_in.wait()  # fails (BrokenBarrierError) unless both critics are in flight at once
            return review(scores)
        return answer

    model = ScriptedModel({
        "drafter": [protocol_draft()],
        "safety_guardian": [slow(GOOD_SAFETY)],
        "clinical_critic": [slow(GOOD_CLINICAL)],
    })
    run_id = start()
    assert drive(model, run_id) == "awaiting_review"
    assert views.get_run(run_id).halt_reason == "thresholds_met"


def test_model_failure_fails_the_step_and_keeps_earlier_work(db_url: str) -> None:
    model = ScriptedModel({
        "drafter": [protocol_draft()],
        "safety_guardian": [LLMError("timeout", "The model at http://x did not answer in 60 s")],
        "clinical_critic": [review(GOOD_CLINICAL)],
    })
    run_id = start()
    assert drive(model, run_id) == "failed"
    d = views.get_run(run_id)
    assert "did not answer" in (d.error or "")
    assert len(d.drafts) == 1 and d.drafts[0].scores == {}
    assert d.steps[-1].status == "error"
    # A person retries: the failed review runs again; the draft is not rewritten.
    service.retry(run_id=run_id, actor="dr. lee")
    model.script["safety_guardian"] = [review(GOOD_SAFETY)]
    model.script["clinical_critic"] = [review(GOOD_CLINICAL)]
    assert drive(model, run_id) == "awaiting_review"
    d = views.get_run(run_id)
    assert len(d.drafts) == 1 and d.drafts[0].scores["safety"] == 0.95


def test_garbage_scores_are_clamped(db_url: str) -> None:
    model = ScriptedModel({
        "drafter": [protocol_draft()],
        "safety_guardian": [review({"safety": 7.0})],
        "clinical_critic": [review({"empathy": -3.0, "clinical": float("nan")})],
    })
    run_id = start(max_iterations=1)
    drive(model, run_id)
    scores = views.get_run(run_id).drafts[0].scores
    assert scores == {"safety": 1.0, "empathy": 0.0, "clinical": 0.0}


def test_halt_while_running_stops_after_the_current_step(db_url: str) -> None:
    entered, release = threading.Event(), threading.Event()

    def slow_draft(_call: AgentCall) -> object:  # type: ignore[type-arg]
        entered.set()
        release.wait(5)
        return protocol_draft()

    model = ScriptedModel({"drafter": [slow_draft]})
    run_id = start()
    t = threading.Thread(target=drive, args=(model, run_id))
    t.start()
    assert entered.wait(5)
    assert service.halt(run_id=run_id, actor="dr. lee") == "running"
    release.set()
    t.join(10)
    d = views.get_run(run_id)
    assert d.status == "awaiting_review" and d.halt_reason == "halted"
    assert len(d.drafts) == 1  # the step in flight finished and was kept
    assert [s.node for s in d.steps] == ["draft"]


def test_a_worker_that_lost_its_lease_cannot_commit(db_url: str) -> None:
    clock = ManualClock()  # leases run out when the test moves it on, not on the wall clock
    entered, release = threading.Event(), threading.Event()

    def slow_draft(_call: AgentCall) -> object:  # type: ignore[type-arg]
        entered.set()
        release.wait(5)
        return protocol_draft("from the old worker")

    old = ScriptedModel({"drafter": [slow_draft]})
    run_id = start()
    assert claim_run(run_id, "old", clock)
    t = threading.Thread(target=Supervisor(old, "old", clock=clock).run_until_idle,
                         args=(run_id,))
    t.start()
    assert entered.wait(5)
    assert not claim_run(run_id, "new", clock)  # the lease holds while it is fresh
    clock.advance(31)  # the lease runs out (no heartbeat: the supervisor alone does not beat)
    new = ScriptedModel({"drafter": [protocol_draft("from the new worker")],
                         "safety_guardian": [review(GOOD_SAFETY)],
                         "clinical_critic": [review(GOOD_CLINICAL)]})
    assert claim_run(run_id, "new", clock)
    Supervisor(new, "new", clock=clock).run_until_idle(run_id)
    release.set()
    t.join(10)
    drafts, steps, run = stored(run_id)
    assert [d.content.splitlines()[0] for d in drafts] == ["# from the new worker"]
    assert steps[0].status == "abandoned" and steps[0].worker == "old"
    assert run is not None and run.status == "awaiting_review"


def test_a_second_drive_of_the_same_worker_takes_over_and_the_first_commits_nothing(
        db_url: str) -> None:
    """A worker drives several runs at once under one lease owner: when one drive stalls past
    its lease and another drive of the same worker claims the run, the stalled one's commit
    finds its step abandoned and stops (it once reached the new drive's step number first and
    failed the run's drive with an IntegrityError)."""
    clock = ManualClock()

    def slow(entered: threading.Event, release: threading.Event, text: str):  # type: ignore[no-untyped-def]
        def draft(_call: AgentCall) -> object:  # type: ignore[type-arg]
            entered.set()
            release.wait(5)
            return protocol_draft(text)
        return draft

    first_in, first_go, second_in, second_go = (threading.Event() for _ in range(4))
    run_id = start()
    assert claim_run(run_id, "w1", clock)
    errors: list[BaseException] = []

    def first() -> None:
        try:
            Supervisor(ScriptedModel({"drafter": [slow(first_in, first_go, "first drive")]}),
                       "w1", clock=clock).run_until_idle(run_id)
        except BaseException as exc:  # noqa: BLE001 (the thread's error is the finding)
            errors.append(exc)

    t1 = threading.Thread(target=first)
    t1.start()
    assert first_in.wait(5)
    clock.advance(31)  # the first drive's lease runs out
    second = Supervisor(ScriptedModel({
        "drafter": [slow(second_in, second_go, "second drive")],
        "safety_guardian": [review(GOOD_SAFETY)], "clinical_critic": [review(GOOD_CLINICAL)],
    }), "w1", clock=clock)
    t2 = threading.Thread(target=second.claim_and_run, args=(run_id,))
    t2.start()
    assert second_in.wait(5)  # the second drive holds the run, its draft step open
    first_go.set()
    t1.join(10)
    assert errors == []
    second_go.set()
    t2.join(10)
    drafts, steps, run = stored(run_id)
    assert [d.content.splitlines()[0] for d in drafts] == ["# second drive"]
    assert steps[0].status == "abandoned"
    assert run is not None and run.status == "awaiting_review"


def test_scores_are_unique_per_version_even_when_reviewed_twice(db_url: str) -> None:
    model = ScriptedModel({
        "drafter": [protocol_draft()],
        "safety_guardian": [review(GOOD_SAFETY)],
        "clinical_critic": [review(GOOD_CLINICAL)],
    })
    run_id = start()
    drive(model, run_id)
    with session_scope() as s:
        n = len(s.exec(select(Score)).all())
    assert n == 3


def test_a_person_acting_while_a_review_runs_is_seen_at_its_commit_and_nothing_doubles(
        db_url: str) -> None:
    """The review's commit writes back the run row it opened the step with; a person's halt
    in between changed it, so the commit reads it again, keeps one set of scores and calls,
    and halts without deciding."""
    model = ScriptedModel({
        "drafter": [protocol_draft()],
        "safety_guardian": [review(GOOD_SAFETY)],
        "clinical_critic": [review(GOOD_CLINICAL)],
    })
    run_id = start()

    def halt_during_review(event) -> None:  # type: ignore[no-untyped-def]
        if event.node == "review" and event.status == "started":
            service.halt(run_id=run_id, actor="dr. lee", comment="wait")

    assert claim_run(run_id, "w1")
    status = Supervisor(model, "w1", on_event=halt_during_review).run_until_idle(run_id)
    assert status == "awaiting_review"
    d = views.get_run(run_id)
    assert d.halt_reason == "halted" and d.next_node == "decide"
    assert [(s.node, s.status) for s in d.steps] == [("draft", "done"), ("review", "done")]
    with session_scope() as s:
        scores = s.exec(select(Score).join(Draft).where(Draft.run_id == run_id)).all()
        calls = s.exec(select(LLMCall).where(LLMCall.run_id == run_id)).all()
    assert sorted(x.name for x in scores) == ["clinical", "empathy", "safety"]
    assert sorted(c.agent for c in calls) == ["clinical_critic", "drafter", "safety_guardian"]
