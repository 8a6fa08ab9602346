"""The tamper-evident audit trail, approval policies (the two-person rule) and assignment,
through the services and the command line."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlmodel import select

from db.models import HumanAction, Run
from db.session import get_engine, session_scope
from engine import service, views
from engine.approval_policy import get_policy, set_policy
from engine.assignment import assign, assigned_to_me
from engine.audit_chain import verify_all, verify_run
from engine.errors import InvalidInput, PermissionDenied
from engine.identity import grant
from engine.interfaces.cli import main
from engine.run_state import RunStatus
from tests.factories import reviewed_protocol_run


def _acts(run_id: int) -> list[HumanAction]:
    with session_scope() as s:
        return list(s.exec(select(HumanAction).where(HumanAction.run_id == run_id)
                           .order_by(HumanAction.id)))


# -- the audit chain ----------------------------------------------------------------------------


def _run_with_acts() -> int:
    run_id = reviewed_protocol_run()
    assign(run_id=run_id, actor="dr. lee", assignee="Dr. Kim")
    service.request_revision(run_id=run_id, actor="dr. kim", comment="Shorter, please.")
    return run_id


def test_every_act_is_chained_and_verifies(db_any: str) -> None:
    run_id = _run_with_acts()
    acts = _acts(run_id)
    assert [a.action for a in acts] == ["assign", "revise"]
    assert acts[0].prev_hash is None and acts[1].prev_hash == acts[0].hash
    with session_scope() as s:
        assert verify_run(s, run_id) is None
        assert s.get(Run, run_id).audit_head == acts[-1].hash
        report = verify_all(s)
    assert report.ok and report.acts == 2


@pytest.mark.parametrize("edit", [
    "UPDATE humanaction SET comment = 'Looks fine.' WHERE id = :id",
    "UPDATE humanaction SET actor = 'someone else' WHERE id = :id",
    "UPDATE humanaction SET verified = true WHERE id = :id",
    "DELETE FROM humanaction WHERE id = :id",
])
def test_a_hand_edited_row_is_caught_by_audit_verify(db_any: str, edit: str, capsys) -> None:  # type: ignore[no-untyped-def]
    run_id = _run_with_acts()
    first, second = _acts(run_id)
    target = first.id if "DELETE" not in edit else second.id
    assert main(["audit", "verify"]) == 0
    with get_engine().begin() as c:
        c.execute(text(edit), {"id": target})
    capsys.readouterr()
    assert main(["audit", "verify"]) == 1
    out = capsys.readouterr().out
    assert f"run {run_id}" in out and "BROKEN" in out
    if "DELETE" in edit:
        assert "last act is missing" in out
    else:
        assert f"act 1 (id {first.id})" in out and "edited" in out


def test_resealing_an_edited_row_breaks_the_next_link(db_any: str) -> None:
    from engine.audit_chain import act_hash

    run_id = _run_with_acts()
    first, second = _acts(run_id)
    forged = act_hash(run_id=run_id, draft_id=first.draft_id, actor="mallory", verified=True,
                      action=first.action, comment=first.comment, at=first.at, prev_hash=None)
    with get_engine().begin() as c:
        c.execute(text("UPDATE humanaction SET actor='mallory', verified=true, hash=:h "
                       "WHERE id=:id"), {"h": forged, "id": first.id})
    with session_scope() as s:
        found = verify_run(s, run_id)
    assert found is not None and found.act_id == second.id and "link" in found.why


# -- the two-person rule ------------------------------------------------------------------------


@pytest.fixture
def two_person(db_any: str) -> None:
    grant(actor="Ada Admin", person="Ada Admin", role="admin")
    for name in ("Dr. Lee", "Dr. Kim", "Dr. Roe"):
        grant(actor="ada admin", person=name, role="clinician")
    grant(actor="ada admin", person="Olu Ops", role="ops")
    set_policy(actor="ada admin", kind="protocol", roles=["clinician"], approvals=2)


def test_two_person_rule_through_the_service(two_person: None) -> None:
    run_id = reviewed_protocol_run()
    did = service.approve(run_id=run_id, actor="Dr. Lee")
    d = views.get_run(run_id)
    assert d.status == RunStatus.REVIEW and d.approved_draft_id is None
    with pytest.raises(InvalidInput, match="already approved"):
        service.approve(run_id=run_id, actor="dr.  LEE")
    with pytest.raises(PermissionDenied, match="approval policy needs clinician"):
        service.approve(run_id=run_id, actor="Olu Ops")
    service.approve(run_id=run_id, actor="Dr. Kim")
    d = views.get_run(run_id)
    assert d.status == RunStatus.APPROVED and d.approved_draft_id == did
    assert [a.action for a in d.actions] == ["approve_partial", "approve"]


def test_the_author_of_the_version_cannot_be_the_second_approver(two_person: None) -> None:
    run_id = reviewed_protocol_run()
    service.edit(run_id=run_id, actor="Dr. Kim", content="# Breathe\n\nA calmer text. Call 988.")
    with session_scope() as s:
        run = s.get(Run, run_id)
        run.status, run.next_node = RunStatus.REVIEW, None  # as if the critics re-scored it
        s.add(run)
    service.approve(run_id=run_id, actor="Dr. Lee")
    with pytest.raises(InvalidInput, match="You wrote this version"):
        service.approve(run_id=run_id, actor="Dr. Kim")
    service.approve(run_id=run_id, actor="Dr. Roe")
    assert views.get_run(run_id).status == RunStatus.APPROVED


def test_a_new_review_round_starts_the_count_again(two_person: None) -> None:
    run_id = reviewed_protocol_run()
    service.approve(run_id=run_id, actor="Dr. Lee")
    assign(run_id=run_id, actor="Dr. Lee", assignee="role:clinician")  # does not reset
    service.approve(run_id=run_id, actor="Dr. Kim")
    assert views.get_run(run_id).status == RunStatus.APPROVED


def test_two_person_rule_through_the_cli(two_person: None, capsys) -> None:  # type: ignore[no-untyped-def]
    run_id = reviewed_protocol_run()
    assert main(["approve", str(run_id), "--actor", "Dr. Lee"]) == 0
    out = capsys.readouterr().out
    assert "1 of 2 approvals" in out and "awaiting_review" in out
    assert main(["approve", str(run_id), "--actor", "Dr. Lee"]) == 2
    assert "already approved" in capsys.readouterr().err
    assert main(["approve", str(run_id), "--actor", "Dr. Kim"]) == 0
    assert "run is approved" in capsys.readouterr().out
    assert main(["policy", "show", "protocol"]) == 0
    assert "two people approve (clinician)" in capsys.readouterr().out


def test_policy_is_data_and_bad_policies_are_refused(db_any: str) -> None:
    assert get_policy("protocol").roles == ["clinician"] and get_policy("protocol").approvals == 1
    with pytest.raises(InvalidInput, match="unknown role"):
        set_policy(actor="x", kind="protocol", roles=["surgeon"], approvals=1)
    with pytest.raises(InvalidInput, match="less than or equal to 2"):
        set_policy(actor="x", kind="protocol", roles=["clinician"], approvals=3)
    assert get_policy("protocol").approvals == 1  # nothing stored


# -- sign-in configured: typed names are refused ------------------------------------------------


def test_with_sign_in_configured_typed_names_may_not_act(db_any: str, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    run_id = reviewed_protocol_run()
    monkeypatch.setenv("DRAFTROOM_REQUIRE_SIGNIN", "1")
    for act in (lambda: service.approve(run_id=run_id, actor="dr_smith"),
                lambda: service.reject(run_id=run_id, actor="dr_smith"),
                lambda: assign(run_id=run_id, actor="dr_smith", assignee="dr. kim")):
        with pytest.raises(PermissionDenied, match="typed, not signed in"):
            act()
    assert _acts(run_id) == []
    service.approve(run_id=run_id, actor="Dr. Smith", verified=True)
    assert views.get_run(run_id).actions[-1].verified


# -- assignment ---------------------------------------------------------------------------------


def test_assign_to_a_person_or_a_role_and_reassign(two_person: None, capsys) -> None:  # type: ignore[no-untyped-def]
    run_id = reviewed_protocol_run()
    assert main(["assign", str(run_id), "--to", "role:clinician", "--actor", "Olu Ops"]) == 0
    assert assigned_to_me("Dr. Roe") == [run_id] and assigned_to_me("Olu Ops") == []
    assign(run_id=run_id, actor="Olu Ops", assignee="Dr. Kim")
    assert assigned_to_me("dr. kim") == [run_id] and assigned_to_me("Dr. Roe") == []
    with pytest.raises(InvalidInput, match="has no role"):
        assign(run_id=run_id, actor="Olu Ops", assignee="Stranger")
    with pytest.raises(InvalidInput, match="Unknown role"):
        assign(run_id=run_id, actor="Olu Ops", assignee="role:surgeon")
    trail = [(a.action, a.comment) for a in views.get_run(run_id).actions]
    assert trail == [("assign", "nobody -> any clinician"),
                     ("assign", "any clinician -> dr. kim")]


# -- exports say who and how --------------------------------------------------------------------


def test_exports_name_the_approvers_the_policy_and_the_override(two_person: None) -> None:
    from engine.exports.formats import export

    run_id = reviewed_protocol_run()
    draft = views.get_run(run_id).current
    assert "DRAFT - NOT APPROVED" in export(views.get_run(run_id), "markdown")
    unsafe = draft.content + "\n\nStop taking your medication when you feel calmer.\n"  # type: ignore[union-attr]
    service.edit(run_id=run_id, actor="Dr. Roe", content=unsafe)
    with session_scope() as s:
        run = s.get(Run, run_id)
        run.status, run.next_node = RunStatus.REVIEW, None  # as if the critics re-scored it
        s.add(run)
    service.approve(run_id=run_id, actor="Dr. Lee", verified=True,
                    override_reason="Discussed with the prescriber; client is supervised.")
    md = export(views.get_run(run_id), "markdown")
    assert md.startswith("> **DRAFT - NOT APPROVED**") and md.count("DRAFT - NOT APPROVED") == 2
    assert "Approvals so far (1 of 2): Dr. Lee (verified)" in md
    service.approve(run_id=run_id, actor="Dr. Kim", override_reason="Agree with Dr. Lee.")
    md = export(views.get_run(run_id), "markdown")
    assert "DRAFT" not in md
    assert "- Approved by Dr. Lee (verified) on " in md
    assert "- Approved by Dr. Kim (unverified) on " in md
    assert ("- Approval policy met: protocol: two people approve (clinician); the second is "
            "neither the first approver nor the version's author (2 of 2 approvals)") in md
    assert ("- Override of an open flag by Dr. Lee: Discussed with the prescriber; client is "
            "supervised.") in md
    assert "- Override of an open flag by Dr. Kim: Agree with Dr. Lee." in md


def test_the_run_page_shows_the_trail_verified_then_broken(db_url: str) -> None:
    from streamlit.testing.v1 import AppTest

    from tests.test_pages import APP

    run_id = _run_with_acts()

    def page() -> str:
        at = AppTest.from_file(APP, default_timeout=60)
        at.session_state["reviewer"] = "dr. lee"
        at.run()
        at.query_params["run"] = str(run_id)
        at.switch_page("pages/run.py").run()
        assert not at.exception, [e.value for e in at.exception]
        return "\n".join(str(e.value) for kind in ("caption", "error", "markdown")
                         for e in getattr(at, kind))

    shown = page()
    assert "Audit trail verified" in shown and "Assigned to **dr\\. kim**" in shown
    with get_engine().begin() as c:
        c.execute(text("UPDATE humanaction SET comment = 'nothing' WHERE action = 'revise'"))
    shown = page()
    assert "Audit trail broken at act 2" in shown and "Audit trail verified" not in shown


def test_a_campaign_stage_needs_both_approvers_before_it_moves_on(db_url: str) -> None:
    from engine.exports.formats import export
    from tests.test_campaign_pipeline import drive, start

    set_policy(actor="admin", kind="campaign", roles=["marketer"], approvals=2)
    run_id = start()
    drive(run_id)
    service.approve(run_id=run_id, actor="Mo Marketer")
    d = views.get_run(run_id)
    assert (d.status, d.stage) == (RunStatus.REVIEW, "brief")  # one of two: nothing moved
    md = export(views.get_run(run_id), "markdown")
    assert "DRAFT - NOT APPROVED" in md and "- Brief: not approved" in md
    service.approve(run_id=run_id, actor="Ann Other", verified=True)
    assert views.get_run(run_id).next_node == "advance"
    md = export(views.get_run(run_id), "markdown")
    assert ("- Brief: v1 approved by Mo Marketer (unverified), Ann Other (verified) on ") in md
    assert "(2 of 2 approvals)" in md


def test_with_sign_in_configured_the_app_takes_no_typed_name(db_url: str) -> None:
    from streamlit.testing.v1 import AppTest

    from tests.test_pages import APP

    at = AppTest.from_file(APP, default_timeout=60)
    at.secrets["auth"] = {"redirect_uri": "http://localhost:8501/oauth2callback",
                          "cookie_secret": "x" * 32, "client_id": "c", "client_secret": "s",
                          "server_metadata_url": "https://id.example.org/.well-known/openid"}
    at.session_state["reviewer"] = "dr_smith"  # typed earlier, or remembered by a cookie
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert not [t for t in at.sidebar.text_input if t.key == "reviewer_input"]
    assert any(b.label == "Sign in" for b in at.sidebar.button)
    assert "typed names are not accepted" in " ".join(c.value for c in at.sidebar.caption)
    start = next(b for b in at.button if b.label == "Start drafting")
    assert start.disabled
