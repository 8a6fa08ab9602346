"""What each (server, model) accepts, learned once and kept in the database for every worker.

A server that refuses `response_format: json_schema` (or `temperature`, or `max_tokens`, or
has no moderation endpoint) refuses it every time: paying for the same refusal at every call
(and the SDK's retries of it) made a small model's first draft take 14.5 s over 7 requests.
The backend asks `Capabilities` before sending a feature whose support is unknown, sends it
once, and records the answer here; the Settings page lists the rows and can forget them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime

from pydantic import BaseModel
from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError

from db.models import ModelCapability, utcnow
from db.session import get_engine

CAP_T = ModelCapability.__table__  # type: ignore[attr-defined]

FEATURES = {
    "json_schema": "structured outputs (response_format json_schema)",
    "json_object": "JSON mode (response_format json_object)",
    "temperature": "a temperature other than the default",
    "max_tokens": "max_tokens (reasoning models take max_completion_tokens)",
    "max_completion_tokens": "max_completion_tokens (older servers take max_tokens)",
    "moderation": "the moderation endpoint (/moderations)",
    "stream": "streamed answers (stream)",
    "stream_options": "usage in streamed answers (stream_options)",
}

REFRESH_S = 30.0
"""How long a worker trusts what it read: a row forgotten on the Settings page is asked
about again within this time."""


class CapabilityRow(BaseModel):
    id: int
    base_url: str
    model: str
    feature: str
    supported: bool
    detail: str | None
    learned_at: datetime

    @property
    def what(self) -> str:
        return FEATURES.get(self.feature, self.feature)


class Capabilities:
    """In-memory view of what one server and model can do. `db=False` keeps it in memory only
    (a backend built by hand in a test); otherwise every process shares the database's rows."""

    def __init__(self, base_url: str, model: str, *, db: bool = True) -> None:
        self.base_url = base_url
        self.model = model
        self.db = db
        self._known: dict[str, bool] = {}
        self._read_at = float("-inf")
        self._lock = threading.Lock()
        self._probing: dict[str, threading.Lock] = {}

    def get(self, feature: str) -> bool | None:
        """True / False when known, None when never tried."""
        self._refresh()
        return self._known.get(feature)

    def allows(self, feature: str) -> bool:
        """Send the feature unless it is known to be refused."""
        return self.get(feature) is not False

    @contextmanager
    def probing(self, feature: str) -> Iterator[bool | None]:
        """Hold while the first request with an unknown feature is out, so concurrent calls in
        this process (the critics) wait for its answer instead of each being refused.
        Yields what is known once the lock is held (re-read from the database)."""
        if self._known.get(feature) is not None:
            yield self._known[feature]
            return
        with self._lock:
            lock = self._probing.setdefault(feature, threading.Lock())
        with lock:
            self._read_at = float("-inf")  # another worker may have learned it meanwhile
            yield self.get(feature)

    def learn(self, feature: str, supported: bool, detail: str | None = None) -> None:
        if self._known.get(feature) == supported:
            return
        self._known[feature] = supported
        if self.db:
            remember(self.base_url, self.model, feature, supported, detail)

    def _refresh(self) -> None:
        if not self.db or time.monotonic() - self._read_at < REFRESH_S:
            return
        with get_engine().connect() as c:
            rows = c.execute(
                select(CAP_T.c.feature, CAP_T.c.supported).where(
                    CAP_T.c.base_url == self.base_url, CAP_T.c.model == self.model
                )
            ).all()
        self._known = {f: bool(s) for f, s in rows}
        self._read_at = time.monotonic()


def remember(base_url: str, model: str, feature: str, supported: bool, detail: str | None) -> None:
    """Insert or update one row; two workers learning the same thing at once is fine."""
    values = {
        "base_url": base_url,
        "model": model,
        "feature": feature,
        "supported": supported,
        "detail": (detail or None) and detail[:1000],
        "learned_at": utcnow(),
    }
    where = (CAP_T.c.base_url == base_url, CAP_T.c.model == model, CAP_T.c.feature == feature)
    with get_engine().begin() as c:
        c.execute(delete(CAP_T).where(*where))
        try:
            with c.begin_nested():
                c.execute(CAP_T.insert().values(**values))
        except IntegrityError:
            pass  # another worker wrote the same answer between our delete and insert


def list_capabilities() -> list[CapabilityRow]:
    with get_engine().connect() as c:
        rows = c.execute(
            select(CAP_T).order_by(CAP_T.c.base_url, CAP_T.c.model, CAP_T.c.feature)
        ).mappings()
        return [CapabilityRow.model_validate(dict(r)) for r in rows]


def forget(*, ids: list[int] | None = None) -> int:
    """Forget some rows (by id), or all of them: the next call asks the server again."""
    stmt = delete(CAP_T)
    if ids is not None:
        stmt = stmt.where(CAP_T.c.id.in_(ids))
    with get_engine().begin() as c:
        return c.execute(stmt).rowcount or 0
