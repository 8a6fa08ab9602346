"""Identity and roles: everyone may act until the first role is set; then clinicians approve
protocols, marketers campaigns, ops keep runs healthy but never approve, admins do all; a
refused act writes nothing; every act names its actor and whether a login verified them."""

from __future__ import annotations

import pytest
from sqlmodel import func, select

from db.models import Draft, HumanAction, Note, Run
from db.session import session_scope
from engine import identity, service, views
from engine.errors import InvalidInput, InvalidState, PermissionDenied
from engine.identity import allowed, can, grant, revoke, roles_of
from engine.run_state import RunStatus
from tests.factories import (
    INTENT,
    reviewed_protocol_run,
)


def rows() -> tuple[int, ...]:
    with session_scope() as s:
        return tuple(s.exec(select(func.count()).select_from(t)).one()
                     for t in (Run, Draft, Note, HumanAction))


@pytest.fixture
def staffed(db_any: str) -> None:
    grant(actor="Ada Admin", person="Ada Admin", role="admin")  # bootstrap: the first admin
    grant(actor="ada admin", person="Dr. Lee", role="clinician")
    grant(actor="ada admin", person="Mo Marketer", role="marketer")
    grant(actor="ada admin", person="Olu Ops", role="ops")


def test_rules_table() -> None:
    assert allowed({"clinician"}, "approve", "protocol")
    assert not allowed({"clinician"}, "approve", "campaign")
    assert allowed({"marketer"}, "approve", "campaign")
    assert not allowed({"marketer"}, "edit", "protocol")
    assert not allowed({"ops"}, "approve", "protocol")
    assert not allowed({"ops"}, "edit", "campaign")
    assert allowed({"ops"}, "halt", "protocol") and allowed({"ops"}, "retry", "campaign")
    assert allowed({"ops"}, "view_costs") and not allowed({"clinician"}, "view_costs")
    assert allowed({"clinician"}, "view_traces")
    assert allowed({"admin"}, "approve", "campaign") and allowed({"admin"}, "manage_roles")
    assert not allowed(set(), "approve", "protocol")
    with pytest.raises(ValueError, match="unknown action"):
        allowed({"admin"}, "launch_missiles")


def test_everyone_may_act_until_a_role_exists(db_any: str) -> None:
    run_id = reviewed_protocol_run()
    assert can("anyone at all", "approve", "protocol")
    service.approve(run_id=run_id, actor="anyone at all")
    assert views.get_run(run_id).status == RunStatus.APPROVED


def test_ops_cannot_approve_and_nothing_is_written(staffed: None) -> None:
    run_id = reviewed_protocol_run()
    before = rows()
    with pytest.raises(PermissionDenied) as exc:
        service.approve(run_id=run_id, actor="Olu Ops")
    assert "may not approve protocol runs" in str(exc.value)
    assert "your roles: ops" in str(exc.value) and "clinician" in str(exc.value)
    for act in (lambda: service.edit(run_id=run_id, actor="olu ops", content="# Mine"),
                lambda: service.request_revision(run_id=run_id, actor="olu ops", comment="x"),
                lambda: service.reject(run_id=run_id, actor="olu ops")):
        with pytest.raises(PermissionDenied):
            act()
    assert rows() == before and views.get_run(run_id).status == RunStatus.REVIEW


def test_clinicians_approve_protocols_marketers_do_not(staffed: None) -> None:
    run_id = reviewed_protocol_run()
    with pytest.raises(PermissionDenied, match="needs clinician or admin"):
        service.approve(run_id=run_id, actor="Mo Marketer")
    with pytest.raises(PermissionDenied, match="you have no role yet"):
        service.approve(run_id=run_id, actor="A Stranger")
    # Names match whatever their case and spacing.
    service.approve(run_id=run_id, actor="  DR.   LEE ", verified=True)
    act = views.get_run(run_id).actions[-1]
    assert act.action == "approve" and act.verified is True


def test_only_the_kinds_owner_may_start_a_run(staffed: None) -> None:
    with pytest.raises(PermissionDenied):
        service.start_run(kind="protocol", input=INTENT, actor="Mo Marketer")
    with pytest.raises(PermissionDenied):
        service.start_run(kind="protocol", input=INTENT, actor="Olu Ops")
    assert rows()[0] == 0
    assert service.start_run(kind="protocol", input=INTENT, actor="dr. lee")


def test_ops_may_halt_retry_and_change_budgets(staffed: None) -> None:
    run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
    service.set_budget(run_id=run_id, actor="Olu Ops", budget_usd=2.5)
    assert service.halt(run_id=run_id, actor="Olu Ops", comment="pausing spend") == \
        RunStatus.REVIEW
    acts = views.get_run(run_id).actions
    assert [(a.actor, a.action, a.verified) for a in acts] == [
        ("Olu Ops", "budget", False), ("Olu Ops", "halt", False)]


def test_admins_do_everything_and_manage_roles(staffed: None) -> None:
    run_id = reviewed_protocol_run()
    service.approve(run_id=run_id, actor="Ada Admin")
    with pytest.raises(PermissionDenied, match="manage roles"):
        grant(actor="dr. lee", person="dr. lee", role="admin")
    grant(actor="ada admin", person="dr. kim", role="clinician")
    assert roles_of("DR. KIM") == {"clinician"}
    revoke(actor="ada admin", person="dr. kim", role="clinician")
    assert roles_of("dr. kim") == frozenset()
    with pytest.raises(InvalidState, match="last admin"):
        revoke(actor="ada admin", person="ada admin", role="admin")
    with pytest.raises(InvalidInput, match="Unknown role"):
        grant(actor="ada admin", person="x", role="superuser")
    assert ("ada admin", "admin", "ada admin") in identity.list_roles()


def test_the_cli_refuses_with_the_reason(staffed: None, capsys: pytest.CaptureFixture[str]) -> None:
    from engine.interfaces.cli import main

    run_id = reviewed_protocol_run()
    assert main(["approve", str(run_id), "--actor", "Olu Ops", "--no-wait"]) == 2
    assert "Olu Ops may not approve protocol runs" in capsys.readouterr().err
    assert main(["approve", str(run_id), "--actor", "Dr. Lee", "--no-wait"]) == 0


def test_a_login_names_the_actor_and_verifies_them_a_typed_name_does_not() -> None:
    from engine.identity import who

    login = {"is_logged_in": True, "name": "Dr. Lee", "email": "lee@clinic.example"}
    assert who(login, typed="someone else") == identity.Identity("Dr. Lee", True)
    assert who({"is_logged_in": True, "email": "kim@clinic.example"}).name == "kim@clinic.example"
    assert who({"is_logged_in": False}, typed=" Ana ") == identity.Identity("Ana", False)
    assert who(None, typed="Ben").verified is False
