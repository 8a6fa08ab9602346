"""Model prices (USD per 1M tokens) and the cost of one call.

Prices live in the ModelPrice table (seeded from DEFAULT_PRICES) so that ops can edit them;
a call's cost is computed when it is recorded, with the price in force then, so changing a
price never rewrites history. A model with no price is "unpriced" (None), never $0."""

from __future__ import annotations

import fnmatch
import threading
import time
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, select

from db.models import ModelPrice, utcnow
from db.session import get_engine, session_scope


@dataclass(frozen=True)
class Price:
    input_per_m: float
    cached_input_per_m: float
    output_per_m: float


# Standard tier, per 1M tokens: input / cached input / output.
DEFAULT_PRICES: dict[str, Price] = {
    "gpt-4.1": Price(2.00, 0.50, 8.00),
    "gpt-4.1-mini": Price(0.40, 0.10, 1.60),
    "gpt-4.1-nano": Price(0.10, 0.025, 0.40),
    "gpt-4o": Price(2.50, 1.25, 10.00),
    "gpt-4o-mini": Price(0.15, 0.075, 0.60),
    "gpt-5": Price(1.25, 0.125, 10.00),
    "gpt-5-mini": Price(0.25, 0.025, 2.00),
    "gpt-5-nano": Price(0.05, 0.005, 0.40),
    "o4-mini": Price(1.10, 0.275, 4.40),
    # The offline backend runs on this machine: it costs nothing, and says so.
    "offline-*": Price(0.0, 0.0, 0.0),
}


def call_cost(price: Price | None, *, prompt: int, cached: int, completion: int) -> float | None:
    """USD for one call; cached tokens are part of `prompt` and are billed once, at their rate."""
    if price is None:
        return None
    cached = min(max(cached, 0), max(prompt, 0))
    uncached = max(prompt, 0) - cached
    return (
        uncached * price.input_per_m
        + cached * price.cached_input_per_m
        + max(completion, 0) * price.output_per_m
    ) / 1_000_000


def _matches(pattern: str, model: str) -> bool:
    return pattern == model or fnmatch.fnmatchcase(model, pattern)


def pick_price(rows: list[ModelPrice], model: str, at: datetime) -> Price | None:
    """The row in force at `at`: an exact name beats a pattern; the latest start wins.
    Dated model names ("gpt-4.1-mini-2025-04-14") fall back to their base name."""
    live = [r for r in rows if r.effective_from <= at]
    for candidate in (model, _undated(model)):
        exact = [r for r in live if r.model == candidate]
        pattern = [r for r in live if r.model != candidate and _matches(r.model, candidate)]
        for group in (exact, pattern):
            if group:
                r = max(group, key=lambda r: r.effective_from)
                return Price(r.input_per_m, r.cached_input_per_m, r.output_per_m)
    return None


def _undated(model: str) -> str:
    parts = model.split("-")
    if len(parts) >= 4 and all(p.isdigit() for p in parts[-3:]):
        return "-".join(parts[:-3])
    return model


class PriceBook:
    """Reads the price table at most every few seconds; prices change rarely, calls often."""

    def __init__(self, ttl_seconds: float = 5.0) -> None:
        self._ttl = ttl_seconds
        self._rows: list[ModelPrice] = []
        self._loaded = 0.0
        self._source: object = None  # the engine (database) the rows came from
        self._by_model: dict[str, list[ModelPrice]] = {}  # the rows that can match a model
        # model -> (the latest start among its rows, the price from then on): a call at or
        # after it is priced without going through the rows (None: no rows, never a price).
        self._settled: dict[str, tuple[datetime | None, Price | None]] = {}
        self._lock = threading.Lock()

    def price(self, session: Session, model: str, at: datetime | None = None) -> Price | None:
        with self._lock:
            # Keyed by database too: a process that switches DATABASE_URL (the tests, a
            # script over two databases) must never price calls with another one's table.
            bind = session.get_bind()
            source = getattr(bind, "engine", bind)  # a session on a connection: its engine
            if time.monotonic() - self._loaded > self._ttl or source != self._source:
                rows = list(session.exec(select(ModelPrice)).all())
                if not rows and seed_prices(session):
                    session.commit()
                    rows = list(session.exec(select(ModelPrice)).all())
                self._rows = rows
                self._by_model = {}
                self._settled = {}
                self._loaded = time.monotonic()
                self._source = source
            rows = self._by_model.get(model)
            if rows is None:
                # Matching names and patterns once per model; only the dates are left per call.
                names = {model, _undated(model)}
                rows = [r for r in self._rows if any(_matches(r.model, n) for n in names)]
                self._by_model[model] = rows
                latest = max((r.effective_from for r in rows), default=None)
                self._settled[model] = (
                    latest, pick_price(rows, model, latest) if latest is not None else None)
        return pick_price(rows, model, at or utcnow())

    def lookup(self, model: str, at: datetime | None = None) -> Price | None:
        """`price` in this process's database, reading the table (in a session of its own)
        only when the cached rows are stale: recording a call then needs no session."""
        with self._lock:
            fresh = (time.monotonic() - self._loaded <= self._ttl
                     and self._source is get_engine())
            rows = self._by_model.get(model) if fresh else None
            settled = self._settled.get(model) if rows is not None else None
        if rows is None:
            with session_scope() as s:
                return self.price(s, model, at)
        at = at or utcnow()
        if settled is not None and (settled[0] is None or at >= settled[0]):
            return settled[1]  # every row has started: the same price as at the latest start
        return pick_price(rows, model, at)

    def invalidate(self) -> None:
        with self._lock:
            self._loaded = 0.0


PRICE_BOOK = PriceBook()


def seed_prices(session: Session) -> int:
    """Fill an empty price table with DEFAULT_PRICES; returns rows added."""
    if session.exec(select(ModelPrice).limit(1)).first() is not None:
        return 0
    for model, p in DEFAULT_PRICES.items():
        session.add(
            ModelPrice(
                model=model,
                input_per_m=p.input_per_m,
                cached_input_per_m=p.cached_input_per_m,
                output_per_m=p.output_per_m,
            )
        )
    return len(DEFAULT_PRICES)
