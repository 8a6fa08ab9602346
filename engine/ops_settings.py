"""Ops settings (the Setting table): a monthly budget per kind and the default per-run budget;
and the price table's history, which only ever grows: a new price is a new row from a date
on, so every recorded call keeps the cost it was given."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from pydantic import BaseModel
from sqlalchemy.engine import Connection
from sqlmodel import Session, col, select

from db.models import ModelPrice, Setting, utcnow
from db.prepared import Prepared
from db.session import connection_of, session_scope
from engine.errors import InvalidInput
from engine.identity import require
from engine.pricing import PRICE_BOOK, seed_prices
from engine.text import clean_text

KINDS = ("protocol", "campaign")
MAX_BUDGET_USD = 1_000_000.0
MAX_RATE_PER_M = 1_000.0
# A form takes a moment to submit: "now" may be a little in the past when it arrives.
PAST_GRACE = timedelta(minutes=5)
# Other processes (workers) re-read the price table every few seconds (PriceBook): a price
# starts no sooner than this, so no call is ever priced against a table that disagrees.
PROPAGATION = timedelta(seconds=10)
_MONTHLY = "budget.monthly."
_RUN_DEFAULT = "budget.run_default"


class OpsSettings(BaseModel):
    monthly_budgets: dict[str, float | None]
    """USD per calendar month (UTC) per kind; None: no budget."""
    default_run_budget_usd: float | None
    """The budget a new run gets unless its starter sets one; None: unlimited."""


class PriceRow(BaseModel):
    id: int
    model: str
    """An exact model name or a glob pattern ("offline-*")."""
    input_per_m: float
    cached_input_per_m: float
    output_per_m: float
    effective_from: datetime
    in_force: bool
    """The row that prices this name now (later rows are scheduled, earlier ones history)."""


# -- budgets --------------------------------------------------------------------------------


_SETTINGS = Prepared(select(Setting.key, Setting.value))  # read on every start


def _read(s: Session | Connection) -> dict[str, object]:
    return {key: json.loads(value) for key, value in _SETTINGS.rows(connection_of(s))}


def get_ops_settings(session: Session | Connection | None = None) -> OpsSettings:
    if session is None:
        with session_scope() as s:
            return get_ops_settings(s)
    values = _read(session)
    return OpsSettings(
        monthly_budgets={k: _as_float(values.get(_MONTHLY + k)) for k in KINDS},
        default_run_budget_usd=_as_float(values.get(_RUN_DEFAULT)),
    )


def default_run_budget_usd(session: Session | Connection | None = None) -> float | None:
    """The budget service.start_run gives a run whose starter set none."""
    return get_ops_settings(session).default_run_budget_usd


def _as_float(v: object) -> float | None:
    return float(v) if isinstance(v, int | float) else None


def _budget(usd: float | None, what: str) -> float | None:
    if usd is None:
        return None
    if not 0 < float(usd) <= MAX_BUDGET_USD:
        raise InvalidInput(f"The {what} must be more than $0 and at most "
                           f"${MAX_BUDGET_USD:,.0f} (leave it empty for none).",
                           {"usd": "out of range"})
    return round(float(usd), 4)


def _write(key: str, value: float | None, actor: str) -> None:
    with session_scope() as s:
        require(actor, "view_costs", session=s)
        row = s.get(Setting, key) or Setting(key=key)
        row.value = json.dumps(value)
        row.updated_by = actor
        row.updated_at = utcnow()
        s.add(row)


def _actor(actor: str) -> str:
    who = clean_text(actor or "")
    if not who:
        raise InvalidInput("Say who you are (name in the sidebar) before changing settings.",
                           {"actor": "is required"})
    return who


def set_monthly_budget(*, kind: str, usd: float | None, actor: str) -> None:
    """Only ops or admin may (anyone while no role is set)."""
    if kind not in KINDS:
        raise InvalidInput(f"Unknown kind {kind!r}; kinds are {', '.join(KINDS)}.",
                           {"kind": "unknown"})
    _write(_MONTHLY + kind, _budget(usd, f"monthly {kind} budget"), _actor(actor))


def set_default_run_budget(*, usd: float | None, actor: str) -> None:
    _write(_RUN_DEFAULT, _budget(usd, "default run budget"), _actor(actor))


# -- prices ---------------------------------------------------------------------------------


def list_prices() -> list[PriceRow]:
    """Every row, by model then newest first; seeds the defaults into an empty table."""
    now = utcnow()
    with session_scope() as s:
        seed_prices(s)
        s.flush()
        rows = list(s.exec(select(ModelPrice).order_by(
            ModelPrice.model, col(ModelPrice.effective_from).desc())))
    live: dict[str, int] = {}
    for r in rows:
        if r.effective_from <= now and r.model not in live:
            live[r.model] = r.id or 0
    return [PriceRow(id=r.id or 0, model=r.model, input_per_m=r.input_per_m,
                     cached_input_per_m=r.cached_input_per_m, output_per_m=r.output_per_m,
                     effective_from=r.effective_from, in_force=live.get(r.model) == r.id)
            for r in rows]


def add_price(*, model: str, input_per_m: float, cached_input_per_m: float,
              output_per_m: float, actor: str, effective_from: datetime | None = None) -> PriceRow:
    """A new price for `model` (a name or a glob pattern) from `effective_from` (default: in
    PROPAGATION, ten seconds). Never in the past, and after the model's latest row: calls
    already recorded keep their cost, and the table keeps saying what was charged when."""
    who = _actor(actor)
    name = clean_text(model or "")
    if not name or len(name) > 120 or any(ch.isspace() for ch in name):
        raise InvalidInput("Give the model name (or a pattern such as gpt-5*), at most 120 "
                           "characters, without spaces.", {"model": "invalid"})
    rates = {"input": input_per_m, "cached input": cached_input_per_m, "output": output_per_m}
    for label, v in rates.items():
        if v is None or not 0 <= float(v) <= MAX_RATE_PER_M:
            raise InvalidInput(f"The {label} price must be between $0 and ${MAX_RATE_PER_M:,.0f} "
                               "per 1M tokens.", {label: "out of range"})
    now = utcnow()
    start = effective_from or now
    if start.tzinfo is None:
        start = start.replace(tzinfo=UTC)
    if start < now - PAST_GRACE:
        raise InvalidInput("A price cannot start in the past: calls already recorded keep the "
                           "cost they were given. Pick now or a later date.",
                           {"effective_from": "in the past"})
    start = max(start, now + PROPAGATION)
    with session_scope() as s:
        require(who, "view_costs", session=s)
        seed_prices(s)
        s.flush()
        latest = s.exec(select(ModelPrice.effective_from).where(ModelPrice.model == name)
                        .order_by(col(ModelPrice.effective_from).desc())).first()
        if latest is not None and _aware(latest) >= start:
            raise InvalidInput(f"{name} already has a price from {_aware(latest):%Y-%m-%d %H:%M} "
                               "UTC; a new one must start after it.",
                               {"effective_from": "not after the latest price"})
        row = ModelPrice(model=name, input_per_m=float(input_per_m),
                         cached_input_per_m=float(cached_input_per_m),
                         output_per_m=float(output_per_m), effective_from=start)
        s.add(row)
        s.flush()
        out = PriceRow(id=row.id or 0, model=name, input_per_m=row.input_per_m,
                       cached_input_per_m=row.cached_input_per_m, output_per_m=row.output_per_m,
                       effective_from=start, in_force=start <= utcnow())
    PRICE_BOOK.invalidate()
    return out


def _aware(dt: datetime) -> datetime:
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)
