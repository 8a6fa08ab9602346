"""The clock leases are measured by, injectable: a worker, its supervisor and the lease
statements all ask `clock.now()`, so a test moves time on instead of waiting for a lease to
run out (tests/utils/clock.py's ManualClock)."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from db.models import utcnow


class Clock(Protocol):
    def now(self) -> datetime:
        """The current time, timezone-aware (UTC)."""
        ...


class SystemClock:
    """The wall clock."""

    def now(self) -> datetime:
        return utcnow()


SYSTEM_CLOCK: Clock = SystemClock()

__all__ = ["SYSTEM_CLOCK", "Clock", "SystemClock"]
