"""The review form says each thing once, where it applies: the override box only when a flag
is open; one success message per act (no toast beside the banner, none repeating the status
banner); "Saved v3. The critics are re-scoring it." gone once the scoring ended; a flagged
version waiting for review gets an orange warning, not a blue info; and every text field
shows Streamlit's character counter (max_chars) with the service's own limit."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engine import service
from engine.pipelines.protocol.models import MAX_AUDIENCE, MAX_INTENT
from engine.service import MAX_COMMENT_CHARS, MAX_DRAFT_CHARS
from engine.views import get_run
from tests.test_pages import FLAGGED, app, drive, flagged_run, new_run, open_run, submit


@pytest.fixture(autouse=True)
def _db(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("DRAFTROOM_INAPP_WORKER", "0")
    yield


def _successes(at) -> list[str]:  # type: ignore[no-untyped-def]
    return [s.value for s in at.success]


def test_override_box_only_when_a_flag_is_open() -> None:
    clean = new_run()
    at = open_run(clean)
    assert not [t for t in at.text_area if "Override" in t.label]
    flagged = flagged_run()
    cur = get_run(flagged).current
    at = open_run(flagged)
    box = at.text_area(key=f"approve_reason_{flagged}_{cur.id}")  # type: ignore[union-attr]
    assert box.label == "Override reason (required)"
    assert box.proto.max_chars == MAX_COMMENT_CHARS


def test_approving_says_it_once() -> None:
    run_id = new_run()
    at = open_run(run_id)
    version = get_run(run_id).current.version  # type: ignore[union-attr]
    submit(at, f"Approve v{version}")
    assert not at.exception
    assert len(at.toast) == 0
    assert len(_successes(at)) == 1 and _successes(at)[0].startswith("Approved by Dr")


def test_sent_back_message_goes_when_the_work_it_announces_is_done() -> None:
    run_id = new_run()
    cur = get_run(run_id).current
    assert cur is not None
    at = open_run(run_id)
    at.toggle(key=f"editing_{run_id}").set_value(True).run()
    at.text_area(key=f"edit_text_{run_id}_{cur.id}").set_value(cur.content + "\n\nOne more line.")
    submit(at, f"Save as v{cur.version + 1}")
    assert _successes(at) == [f"Saved v{cur.version + 1}. The critics are re-scoring it."]
    assert len(at.toast) == 0
    at.run()  # the page's own reload while the critics work keeps it
    assert _successes(at) == [f"Saved v{cur.version + 1}. The critics are re-scoring it."]
    drive()  # scoring ends; the run waits for review again
    at.run()
    assert not any("re-scoring" in s for s in _successes(at))


def test_a_flagged_human_edit_waits_under_a_warning_not_an_info() -> None:
    run_id = new_run()
    service.edit(run_id=run_id, actor="Dr. Lee", content=FLAGGED)
    drive()
    detail = get_run(run_id)
    assert detail.halt_reason == "rescored" and detail.current.flags  # type: ignore[union-attr]
    at = open_run(run_id)
    assert not [i.value for i in at.info if "Waiting for your review" in i.value]
    warning = next(w.value for w in at.warning if "Waiting for your review" in w.value)
    assert "a person's edit was re-scored" in warning and "1 open flag" in warning


def test_text_fields_count_characters_as_the_person_types() -> None:
    run_id = new_run()
    cur = get_run(run_id).current
    at = open_run(run_id)
    assert at.text_area(key=f"revise_comment_{run_id}").proto.max_chars == MAX_COMMENT_CHARS
    assert at.text_input(key=f"reject_comment_{run_id}").proto.max_chars == MAX_COMMENT_CHARS
    at.toggle(key=f"editing_{run_id}").set_value(True).run()
    edit = at.text_area(key=f"edit_text_{run_id}_{cur.id}")  # type: ignore[union-attr]
    assert edit.proto.max_chars == MAX_DRAFT_CHARS

    start = app().switch_page("pages/start.py").run()
    assert start.text_area(key="p_intent").proto.max_chars == MAX_INTENT
    assert start.text_input(key="p_audience").proto.max_chars == MAX_AUDIENCE


def test_an_approved_protocol_offers_its_pdf_handout_on_the_run_page() -> None:
    run_id = new_run()
    at = open_run(run_id)
    labels = [b.label for b in at.get("download_button")]
    assert "Export handout (PDF)" not in labels  # not approved yet: no handout to print
    service.approve(run_id=run_id, actor="Dr. Lee")
    at = open_run(run_id)
    pdf = next(b for b in at.get("download_button") if b.label == "Export handout (PDF)")
    assert pdf.proto.deferred_file_id  # built when clicked (the e2e test downloads it)
