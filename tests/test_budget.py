"""Budgets: a run stops before a call that would take it over its budget, waits for review
marked "budget reached", and goes on once a person raises the budget; the default run
budget and the monthly budgets live in settings."""

from __future__ import annotations

import pytest
from sqlmodel import select

from db.models import LLMCall, Run, Step
from db.session import session_scope
from engine import ops_settings, service, views
from engine.errors import InvalidInput, PermissionDenied
from engine.loop.leases import claim_run
from engine.loop.supervisor import Supervisor
from tests.factories import GOOD_CLINICAL, GOOD_SAFETY, INTENT, protocol_draft, review
from tests.utils.scripted import ScriptedModel

# gpt-4.1-mini, 1000 prompt tokens (200 cached) and 500 completion tokens per scripted call.
CALL_COST = (800 * 0.40 + 200 * 0.10 + 500 * 1.60) / 1e6  # $0.00114
# Before each call the supervisor estimates it at the prompt's size plus 1200 output tokens
# (about $0.0021 here): $0.003 lets the drafter's call through, not a critic's after it.
TINY = 0.003


def drive(model: ScriptedModel, run_id: int) -> str:
    assert claim_run(run_id, "w1")
    return Supervisor(model, "w1").run_until_idle(run_id)


def spent(run_id: int) -> tuple[int, float]:
    with session_scope() as s:
        calls = s.exec(select(LLMCall).where(LLMCall.run_id == run_id)).all()
        return len(calls), sum(c.cost_usd or 0 for c in calls)


def test_a_run_stops_before_exceeding_its_budget_and_resumes_when_raised(db_url: str) -> None:
    model = ScriptedModel({
        "drafter": [protocol_draft()],
        "safety_guardian": [review(GOOD_SAFETY)],
        "clinical_critic": [review(GOOD_CLINICAL)],
    })
    run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee",
                               params={"budget_usd": TINY})
    assert drive(model, run_id) == "awaiting_review"
    d = views.get_run(run_id)
    assert d.halt_reason == "budget_reached"
    assert model.agents_called() == ["drafter"]  # no critic was called
    n, cost = spent(run_id)
    assert n == 1 and cost == pytest.approx(CALL_COST) and cost <= TINY
    assert d.current is not None and d.current.version == 1  # the draft is kept
    with session_scope() as s:
        stopped = s.exec(select(Step).where(Step.run_id == run_id).order_by(Step.seq)).all()[-1]
    assert stopped.node == "review" and stopped.status == "stopped"
    assert "budget reached" in (stopped.error or "")

    service.set_budget(run_id=run_id, actor="dr. lee", budget_usd=1.0)
    with session_scope() as s:
        assert s.get(Run, run_id).status == "queued"  # type: ignore[union-attr]
    assert drive(model, run_id) == "awaiting_review"
    model.assert_consumed()
    d = views.get_run(run_id)
    assert d.halt_reason == "thresholds_met"
    n, cost = spent(run_id)
    assert n == 3 and cost == pytest.approx(3 * CALL_COST)
    assert d.cost_usd == pytest.approx(3 * CALL_COST)
    assert [a.action for a in d.actions] == ["budget"]


def test_an_unpriced_model_is_never_stopped_by_a_budget_it_cannot_measure(db_url: str) -> None:
    model = ScriptedModel({
        "drafter": [protocol_draft()],
        "safety_guardian": [review(GOOD_SAFETY)],
        "clinical_critic": [review(GOOD_CLINICAL)],
    }, model="llama3.1:8b")
    run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee",
                               params={"budget_usd": TINY})
    assert drive(model, run_id) == "awaiting_review"
    assert views.get_run(run_id).halt_reason == "thresholds_met"
    assert spent(run_id) == (3, 0)


def test_the_default_run_budget_comes_from_settings_and_a_start_can_override_it(
        db_url: str) -> None:
    assert ops_settings.default_run_budget_usd() is None
    ops_settings.set_default_run_budget(usd=0.75, actor="ops")
    default = ops_settings.default_run_budget_usd()
    assert default == 0.75
    plain = service.start_run(kind="protocol", input=INTENT, actor="dr. lee",
                              default_budget_usd=default)
    own = service.start_run(kind="protocol", input=INTENT, actor="dr. lee",
                            params={"budget_usd": 5.0}, default_budget_usd=default)
    assert views.get_run(plain).budget_usd == 0.75
    assert views.get_run(own).budget_usd == 5.0
    ops_settings.set_default_run_budget(usd=None, actor="ops")
    assert ops_settings.default_run_budget_usd() is None


def test_budget_settings_are_validated(db_url: str) -> None:
    for bad in (-1.0, 0.0, 2_000_000.0):
        with pytest.raises(InvalidInput):
            ops_settings.set_monthly_budget(kind="protocol", usd=bad, actor="ops")
    with pytest.raises(InvalidInput, match="Unknown kind"):
        ops_settings.set_monthly_budget(kind="podcast", usd=10, actor="ops")
    with pytest.raises(InvalidInput, match="who you are"):
        ops_settings.set_default_run_budget(usd=1.0, actor="  ")
    ops_settings.set_monthly_budget(kind="campaign", usd=250.0, actor="ops")
    assert ops_settings.get_ops_settings().monthly_budgets == {"protocol": None, "campaign": 250.0}


def test_only_ops_or_admin_may_set_monthly_budgets_once_roles_exist(db_url: str) -> None:
    from engine import identity

    identity.grant(actor="root", person="root", role="admin")
    identity.grant(actor="root", person="sam", role="marketer")
    identity.grant(actor="root", person="olu", role="ops")
    with pytest.raises(PermissionDenied):
        ops_settings.set_monthly_budget(kind="campaign", usd=10, actor="sam")
    ops_settings.set_monthly_budget(kind="campaign", usd=10, actor="olu")
    ops_settings.set_default_run_budget(usd=1, actor="root")


def test_the_settings_default_budget_applies_to_every_start(db_url: str) -> None:
    from engine import service, views
    from engine.ops_settings import get_ops_settings, set_default_run_budget

    assert get_ops_settings().default_run_budget_usd is None
    set_default_run_budget(usd=0.5, actor="ops")
    run_id = service.start_run(kind="protocol", input={"intent": "Exam panic"}, actor="a")
    assert views.get_run(run_id).budget_usd == 0.5
    run_id = service.start_run(kind="protocol", input={"intent": "Exam panic"}, actor="a",
                               params={"budget_usd": 2.0})
    assert views.get_run(run_id).budget_usd == 2.0
