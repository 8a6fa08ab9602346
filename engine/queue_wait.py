"""Where a queued run stands (issue 16 item 6): its place in line and how long it will likely
wait, said plainly ("3rd in line · about 40 s") on the queue and the Run page.

The place follows the order workers claim in (engine/loop/leases.py: oldest first). The wait
comes from how long recent runs took once a worker had them (their last burst of steps: from
the first step opened to the last committed, without the time they waited for a person), and
from how many runs are being driven now: with runs waiting, every worker slot is busy (a free
one would have claimed), so the runs being driven are the slots, and one finishes every
`duration / slots` on average. A queued run with nothing being driven waits for a worker."""

from __future__ import annotations

import math
import statistics
from datetime import datetime, timedelta

from pydantic import BaseModel
from sqlalchemy import func, select

from db.models import Run, Step, utcnow
from db.session import get_engine
from engine.run_state import RunStatus

RECENT_RUNS = 20
"""How many recently finished runs the expected duration is taken over."""
RECENT_WINDOW = timedelta(hours=6)
"""Runs finished longer ago than this say little about today's model and load."""
BURST_GAP_S = 5.0
"""A pause between two steps longer than this is a person's turn, not the worker's."""

_RUN = Run.__table__  # type: ignore[attr-defined]
_STEP = Step.__table__  # type: ignore[attr-defined]


class QueuePlace(BaseModel):
    """One queued run's place in line and its expected wait."""

    position: int
    """1 = the next run a worker claims."""
    driving: int
    """Runs being driven now (by every worker)."""
    run_seconds: float | None
    """A recent run's typical time with a worker (median); None: none finished lately."""

    @property
    def wait_seconds(self) -> float | None:
        """Expected seconds until a worker takes this run; None when it cannot be told
        (no run being driven, or none finished lately to learn from)."""
        if self.run_seconds is None or not self.driving:
            return None
        rounds = math.ceil(self.position / self.driving)
        return max(0.0, self.run_seconds * (rounds - 0.5))  # the running ones are half done

    def sentence(self) -> str:
        """e.g. "3rd in line · about 40 s"."""
        place = f"{ordinal(self.position)} in line"
        if not self.driving:
            return f"{place} · next to start" if self.position == 1 else place
        wait = self.wait_seconds
        if wait is None:
            return f"{place} · {self.driving} run{'s' if self.driving != 1 else ''} ahead " \
                   "being worked on"
        return f"{place} · about {about(wait)}"


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def about(seconds: float) -> str:
    """A wait rounded as a person says it: 5 s steps under a minute, then minutes."""
    if seconds < 60:
        return f"{max(5, int(round(seconds / 5)) * 5)} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 90 else f"{round(seconds / 3600)} h"


def queue_places(run_ids: list[int] | None = None) -> dict[int, QueuePlace]:
    """Every queued run's place (or only `run_ids`'), in claim order."""
    with get_engine().connect() as c:
        queued = c.execute(select(_RUN.c.id).where(_RUN.c.status == RunStatus.QUEUED)
                           .order_by(_RUN.c.created_at, _RUN.c.id)).scalars().all()
        if not queued:
            return {}
        driving = int(c.execute(select(func.count()).select_from(_RUN)
                                .where(_RUN.c.status == RunStatus.RUNNING)).scalar() or 0)
    typical = recent_run_seconds()
    wanted = set(run_ids) if run_ids is not None else None
    return {rid: QueuePlace(position=i, driving=driving, run_seconds=typical)
            for i, rid in enumerate(queued, start=1) if wanted is None or rid in wanted}


def recent_run_seconds(now: datetime | None = None) -> float | None:
    """The median time recent runs took with a worker (their last burst of steps)."""
    since = (now or utcnow()) - RECENT_WINDOW
    with get_engine().connect() as c:
        recent = c.execute(
            select(_STEP.c.run_id).join(_RUN, _RUN.c.id == _STEP.c.run_id)
            .where(_STEP.c.finished_at >= since,
                   _RUN.c.status.not_in(list(RunStatus.ACTIVE)))
            .group_by(_STEP.c.run_id).order_by(func.max(_STEP.c.finished_at).desc())
            .limit(RECENT_RUNS)).scalars().all()
        if not recent:
            return None
        rows = c.execute(select(_STEP.c.run_id, _STEP.c.started_at, _STEP.c.finished_at)
                         .where(_STEP.c.run_id.in_(recent), _STEP.c.finished_at.is_not(None))
                         .order_by(_STEP.c.run_id, _STEP.c.seq)).all()
    by_run: dict[int, list[tuple[datetime, datetime]]] = {}
    for run_id, started, finished in rows:
        by_run.setdefault(run_id, []).append((started, finished))
    spans = [last_burst_seconds(steps) for steps in by_run.values()]
    return statistics.median(spans) if spans else None


def last_burst_seconds(steps: list[tuple[datetime, datetime]]) -> float:
    """Seconds from the first step of the last burst (steps with no pause longer than
    BURST_GAP_S between them) to the end of the last step."""
    first = len(steps) - 1
    while first > 0 and (steps[first][0] - steps[first - 1][1]).total_seconds() <= BURST_GAP_S:
        first -= 1
    return max(0.0, (steps[-1][1] - steps[first][0]).total_seconds())
