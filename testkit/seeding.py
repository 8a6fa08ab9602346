"""When the demo data of a test ends, so that what it checks does not depend on the day."""

from __future__ import annotations

from datetime import UTC, datetime


def month_safe_end(now: datetime | None = None) -> datetime:
    """Now, or noon on the 4th of this month if that is later.

    seed-demo's monthly budgets follow this month's spend (85% and 105% of it) and its calls end
    two hours before `end`: early on the 1st this month has no spend yet, so no budget, no alert
    and no meter; CI would fail on those days only. Data a few days ahead of the clock is
    harmless to the pages' checks."""
    now = now or datetime.now(UTC)
    return max(now, now.replace(day=4, hour=12, minute=0, second=0, microsecond=0))
