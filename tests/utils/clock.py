"""A clock that moves only when a test says so (engine/loop/clock.py): lease expiry without
waiting on the wall clock."""

from __future__ import annotations

from datetime import datetime, timedelta

from db.models import utcnow


class ManualClock:
    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or utcnow()

    def now(self) -> datetime:
        return self._now

    def advance(self, seconds: float) -> None:
        self._now += timedelta(seconds=seconds)
