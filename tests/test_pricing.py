"""Cost arithmetic: cached tokens are billed once at their rate; an unknown model is unpriced
(None), never $0; a new price applies from its date on and rewrites no recorded cost."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import select

from db.models import LLMCall, ModelPrice
from db.session import session_scope
from engine import identity, ops, ops_settings, service
from engine.errors import InvalidInput, PermissionDenied
from engine.loop.leases import claim_run
from engine.loop.supervisor import Supervisor
from engine.pricing import DEFAULT_PRICES, PRICE_BOOK, Price, call_cost, pick_price
from tests.factories import GOOD_CLINICAL, GOOD_SAFETY, INTENT, protocol_draft, review
from tests.utils.scripted import ScriptedModel

# ScriptedModel's usage: 1000 prompt tokens of which 200 cached, 500 completion tokens.
MINI_CALL = (800 * 0.40 + 200 * 0.10 + 500 * 1.60) / 1e6


@pytest.fixture(autouse=True)
def _prices_apply_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # In production a new price waits ten seconds for every worker to re-read the table;
    # this process re-reads it at once (add_price invalidates its cache).
    monkeypatch.setattr(ops_settings, "PROPAGATION", timedelta(0))


def one_review_cycle(model: str = "gpt-4.1-mini") -> tuple[int, ScriptedModel]:
    """A protocol run that meets its thresholds first time: three calls (drafter, critics)."""
    scripted = ScriptedModel({
        "drafter": [protocol_draft()],
        "safety_guardian": [review(GOOD_SAFETY)],
        "clinical_critic": [review(GOOD_CLINICAL)],
    }, model=model)
    run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
    assert claim_run(run_id, "w1")
    Supervisor(scripted, "w1").run_until_idle(run_id)
    return run_id, scripted


def costs(run_id: int) -> list[float | None]:
    with session_scope() as s:
        return [c.cost_usd for c in s.exec(select(LLMCall).where(LLMCall.run_id == run_id)
                                           .order_by(LLMCall.id))]


def test_cached_tokens_are_counted_once_at_the_cached_rate() -> None:
    p = Price(input_per_m=2.00, cached_input_per_m=0.50, output_per_m=8.00)
    # 1000 prompt tokens include 400 cached: 600 at the input rate, 400 at the cached rate.
    assert call_cost(p, prompt=1000, cached=400, completion=100) == pytest.approx(
        (600 * 2.00 + 400 * 0.50 + 100 * 8.00) / 1e6)
    assert call_cost(p, prompt=1000, cached=0, completion=0) == pytest.approx(0.002)
    # More cached than prompt (a confused server) cannot make the input cost negative.
    assert call_cost(p, prompt=100, cached=500, completion=0) == pytest.approx(100 * 0.50 / 1e6)


def test_unknown_model_is_unpriced_not_free(db_url: str) -> None:
    assert call_cost(None, prompt=1000, cached=0, completion=10) is None
    with session_scope() as s:
        assert PRICE_BOOK.price(s, "mystery-model-9000") is None
    run_id, _ = one_review_cycle(model="mystery-model-9000")
    assert costs(run_id) == [None, None, None]
    f = ops.last_days(1)
    total = ops.totals(f)
    assert total.calls == 3 and total.unpriced == 3 and total.cost_usd == 0.0
    row = ops.breakdown(f, "model").iloc[0]
    assert row["model"] == "mystery-model-9000" and row["cost_usd"] != row["cost_usd"]  # NaN


def test_the_offline_backend_is_priced_at_zero_not_unpriced(db_url: str) -> None:
    with session_scope() as s:
        assert PRICE_BOOK.price(s, "offline-v1") == Price(0.0, 0.0, 0.0)


def test_seeded_prices_are_the_current_openai_ones(db_url: str) -> None:
    rows = {r.model: r for r in ops_settings.list_prices()}
    assert set(DEFAULT_PRICES) <= set(rows)
    mini = rows["gpt-4.1-mini"]
    assert (mini.input_per_m, mini.cached_input_per_m, mini.output_per_m) == (0.40, 0.10, 1.60)
    assert mini.in_force
    gpt5 = rows["gpt-5"]
    assert (gpt5.input_per_m, gpt5.cached_input_per_m, gpt5.output_per_m) == (1.25, 0.125, 10.0)


def test_a_dated_model_name_uses_its_base_price() -> None:
    rows = [ModelPrice(model="gpt-4.1-mini", input_per_m=0.4, cached_input_per_m=0.1,
                       output_per_m=1.6)]
    at = datetime.now(UTC)
    assert pick_price(rows, "gpt-4.1-mini-2025-04-14", at) == Price(0.4, 0.1, 1.6)
    assert pick_price(rows, "gpt-4.1-mini-fast", at) is None


def test_a_price_change_applies_from_its_date_and_rewrites_no_history(db_url: str) -> None:
    first, _ = one_review_cycle()
    assert costs(first) == pytest.approx([MINI_CALL] * 3)

    ops_settings.add_price(model="gpt-4.1-mini", input_per_m=1.0, cached_input_per_m=0.5,
                       output_per_m=4.0, actor="ops")
    second, _ = one_review_cycle()
    new_call = (800 * 1.0 + 200 * 0.5 + 500 * 4.0) / 1e6
    assert costs(second) == pytest.approx([new_call] * 3)
    assert costs(first) == pytest.approx([MINI_CALL] * 3)  # recorded costs stand
    assert ops.totals(ops.last_days(1)).cost_usd == pytest.approx(3 * MINI_CALL + 3 * new_call)

    history = [r for r in ops_settings.list_prices() if r.model == "gpt-4.1-mini"]
    assert [(r.input_per_m, r.in_force) for r in history] == [(1.0, True), (0.4, False)]


def test_a_scheduled_price_waits_for_its_date(db_url: str) -> None:
    later = datetime.now(UTC) + timedelta(days=3)
    ops_settings.add_price(model="gpt-4.1-mini", input_per_m=9.0, cached_input_per_m=9.0,
                       output_per_m=9.0, actor="ops", effective_from=later)
    run_id, _ = one_review_cycle()
    assert costs(run_id) == pytest.approx([MINI_CALL] * 3)
    with session_scope() as s:
        assert PRICE_BOOK.price(s, "gpt-4.1-mini", later + timedelta(seconds=1)) == Price(
            9.0, 9.0, 9.0)
    # The cached lookup too: the old price until the new one starts, then the new one.
    assert PRICE_BOOK.lookup("gpt-4.1-mini") == DEFAULT_PRICES["gpt-4.1-mini"]
    assert PRICE_BOOK.lookup("gpt-4.1-mini", later - timedelta(seconds=1)) == (
        DEFAULT_PRICES["gpt-4.1-mini"])
    assert PRICE_BOOK.lookup("gpt-4.1-mini", later) == Price(9.0, 9.0, 9.0)
    assert PRICE_BOOK.lookup("gpt-4.1-mini", later + timedelta(days=9)) == Price(9.0, 9.0, 9.0)
    assert not next(r for r in ops_settings.list_prices() if r.input_per_m == 9.0).in_force


def test_a_price_starts_late_enough_for_every_worker_to_see_it(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ops_settings, "PROPAGATION", timedelta(seconds=10))
    before = datetime.now(UTC)
    row = ops_settings.add_price(model="gpt-4.1", input_per_m=1, cached_input_per_m=1,
                             output_per_m=1, actor="ops")
    assert row.effective_from >= before + timedelta(seconds=10) and not row.in_force


def test_history_cannot_be_rewritten_through_the_price_table(db_url: str) -> None:
    with pytest.raises(InvalidInput, match="past"):
        ops_settings.add_price(model="gpt-4.1", input_per_m=1, cached_input_per_m=1,
                           output_per_m=1, actor="ops",
                           effective_from=datetime.now(UTC) - timedelta(days=2))
    later = datetime.now(UTC) + timedelta(days=5)
    ops_settings.add_price(model="gpt-4.1", input_per_m=1, cached_input_per_m=1, output_per_m=1,
                       actor="ops", effective_from=later)
    with pytest.raises(InvalidInput, match="after"):  # before the scheduled one
        ops_settings.add_price(model="gpt-4.1", input_per_m=2, cached_input_per_m=1,
                           output_per_m=1, actor="ops", effective_from=later - timedelta(days=1))
    for bad in ({"model": ""}, {"model": "two words"}, {"input_per_m": -1},
                {"output_per_m": 5000}):
        args = {"model": "x-model", "input_per_m": 1.0, "cached_input_per_m": 0.5,
                "output_per_m": 2.0, "actor": "ops", **bad}
        with pytest.raises(InvalidInput):
            ops_settings.add_price(**args)  # type: ignore[arg-type]


def test_a_new_model_gets_priced_from_now_on(db_url: str) -> None:
    run_id, _ = one_review_cycle(model="llama3.1:8b")
    ops_settings.add_price(model="llama3.1:*", input_per_m=0.05, cached_input_per_m=0.05,
                       output_per_m=0.05, actor="ops")
    later, _ = one_review_cycle(model="llama3.1:8b")
    assert costs(run_id) == [None, None, None]  # still unpriced: they were, when made
    assert costs(later) == pytest.approx([1500 * 0.05 / 1e6] * 3)


def test_only_ops_or_admin_may_change_prices_once_roles_exist(db_url: str) -> None:
    identity.grant(actor="root", person="root", role="admin")
    identity.grant(actor="root", person="dr. lee", role="clinician")
    identity.grant(actor="root", person="olu", role="ops")
    with pytest.raises(PermissionDenied):
        ops_settings.add_price(model="gpt-4.1", input_per_m=1, cached_input_per_m=1,
                           output_per_m=1, actor="dr. lee")
    ops_settings.add_price(model="gpt-4.1", input_per_m=1, cached_input_per_m=1, output_per_m=1,
                       actor="olu")
