"""Issue 16 item 6 and issue 15's live progress: a queued run's place in line and expected wait
(from recent runs' durations, in plain words), on the queue and the Run page; a running run
says which agent is doing what, for how long, each step as it lands; a stopped run shows no
progress box above its outcome."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from sqlmodel import select
from streamlit.testing.v1 import AppTest

from db.models import Run, Step, utcnow
from db.session import session_scope
from engine import service
from engine.llm.offline.backend import OfflineBackend
from engine.loop.leases import claim_next, claim_run
from engine.loop.worker import Worker
from engine.queue_wait import QueuePlace, about, last_burst_seconds, ordinal, queue_places
from tests.factories import INTENT

APP = str(Path(__file__).resolve().parent.parent / "app.py")


@pytest.fixture(autouse=True)
def _no_inapp_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DRAFTROOM_INAPP_WORKER", "0")


def start(n: int) -> list[int]:
    return [service.start_run(kind="protocol", input=INTENT, actor="dr. lee") for _ in range(n)]


def finished_run_taking(seconds: float) -> int:
    """A run driven to review whose steps are then dated to have taken `seconds` in all, as a
    slow model's would."""
    run_id = start(1)[0]
    assert Worker(backend=OfflineBackend(), concurrency=1).run_given(run_id)
    with session_scope() as s:
        steps = s.exec(select(Step).where(Step.run_id == run_id).order_by(Step.seq)).all()
        t = utcnow() - timedelta(seconds=seconds + 60)
        per = seconds / len(steps)
        for st in steps:
            st.started_at, st.finished_at = t, t + timedelta(seconds=per)
            t += timedelta(seconds=per)
            s.add(st)
    return run_id


def test_words() -> None:
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "101st",
        "111th"]
    assert [about(s) for s in (1, 12, 40, 59, 61, 150, 3600 * 3)] == [
        "5 s", "10 s", "40 s", "60 s", "1 min", "2 min", "3 h"]
    assert QueuePlace(position=1, driving=0, run_seconds=None).sentence() == \
        "1st in line · next to start"
    assert QueuePlace(position=3, driving=2, run_seconds=None).sentence() == \
        "3rd in line · 2 runs ahead being worked on"
    # Two slots busy with 20 s runs: the 3rd waits for one round and a half (about 30 s).
    assert QueuePlace(position=3, driving=2, run_seconds=20).sentence() == \
        "3rd in line · about 30 s"


def test_a_persons_pause_is_not_part_of_a_runs_duration() -> None:
    t0 = utcnow()
    steps = [(t0, t0 + timedelta(seconds=10)),
             (t0 + timedelta(seconds=10), t0 + timedelta(seconds=12)),
             # a day later, after a person sent it back: the last burst is 4 s
             (t0 + timedelta(days=1), t0 + timedelta(days=1, seconds=3)),
             (t0 + timedelta(days=1, seconds=3), t0 + timedelta(days=1, seconds=4))]
    assert last_burst_seconds(steps) == 4
    assert last_burst_seconds(steps[:2]) == 12


def test_places_follow_the_order_workers_claim_in_and_waits_the_recent_runs(
        db_any: str) -> None:
    for _ in range(3):
        finished_run_taking(40)
    ids = start(5)
    assert claim_next("w1") == ids[0] and claim_next("w2") == ids[1]  # two being driven
    places = queue_places()
    assert [places[i].position for i in ids[2:]] == [1, 2, 3]
    assert all(p.driving == 2 and p.run_seconds == pytest.approx(40, abs=1)
               for p in places.values())
    assert places[ids[2]].sentence() == "1st in line · about 20 s"
    assert places[ids[4]].sentence() == "3rd in line · about 60 s"
    assert set(queue_places([ids[3]])) == {ids[3]}
    assert queue_places([ids[0]]) == {}, "a run being driven has no place in line"


def _page(run_id: int) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["reviewer"] = "Dr. Lee"
    at.run()
    at.query_params["run"] = str(run_id)
    return at.switch_page("pages/run.py").run()


def _text(at: AppTest) -> str:
    return "\n".join([m.value for m in at.markdown] + [c.value for c in at.caption])


def test_the_queue_and_the_run_page_say_a_queued_runs_place(db_url: str) -> None:
    finished_run_taking(40)
    ids = start(3)
    claim_next("w1")
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["reviewer"] = "Dr. Lee"
    at.run().switch_page("pages/queue.py").run()
    assert not at.exception
    cards = " ".join(m.value for m in at.markdown)  # the note is a card's last line
    assert ":gray[1st in line · about 20 s]" in cards and ":gray[2nd in line · about 60 s]" in cards
    page = _page(ids[2])
    assert "**Queued** · 2nd in line · about 60 s" in _text(page)


def test_a_running_run_says_who_is_doing_what_and_each_step_done(db_url: str) -> None:
    run_id = start(1)[0]
    worker = Worker(backend=OfflineBackend(), concurrency=1, worker_id="w")
    assert worker.run_given(run_id) == "awaiting_review"
    service.request_revision(run_id=run_id, actor="dr. lee", comment="Make the steps shorter")
    assert claim_run(run_id, "w")
    with session_scope() as s:  # the revision's draft step, opened and still running
        run = s.get(Run, run_id)
        assert run is not None
        s.add(Step(run_id=run_id, seq=4, node="draft", stage=run.stage,
                   iteration=run.iteration, worker="w", started_at=utcnow()))
    text = _text(_page(run_id))
    assert "**Drafter is writing v2**" in text
    assert "**Drafter** is writing v2" in text and "so far" in text
    # Steps of the first burst (before the person's act) are the Steps tab's, not this box's.
    assert "wrote v1" not in text


def test_each_step_lands_in_the_progress_box_and_nothing_stays_once_it_stops(
        db_url: str) -> None:
    run_id = start(1)[0]
    worker = Worker(backend=OfflineBackend(), concurrency=1, worker_id="w")
    assert claim_run(run_id, "w")
    sup = worker.supervisor
    assert sup.advance(run_id)  # the draft step done, the review next
    text = _text(_page(run_id))
    assert "**Drafter** wrote v1 \\(" in text
    while sup.advance(run_id):
        pass
    text = _text(_page(run_id))
    assert "Queued" not in text and "round 1 of" not in text
    assert "wrote v1" not in text
