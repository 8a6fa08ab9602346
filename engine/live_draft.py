"""The drafter's answer while it streams in (issue 16): a person watching a run with a real
model sees the draft grow instead of a spinner for 10-60 s.

The backend hands the answer so far to a `LiveDraftWriter`, which writes it (at most every
WRITE_EVERY_S) to the run's one LiveDraft row, in a short transaction of its own: never in the
step's transaction, so a kill mid-stream loses nothing committed. The Run page shows the row
only while the step that wrote it is still running; the committed version replaces it, and a
killed step's leftover is never shown as a version.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import pydantic_core
from pydantic import BaseModel
from sqlalchemy import bindparam, delete, select
from sqlalchemy.dialects import postgresql, sqlite

from db.models import LiveDraft, Run, Step, utcnow
from db.session import get_engine

WRITE_EVERY_S = 0.25
log = logging.getLogger(__name__)
LIVE_T = LiveDraft.__table__  # type: ignore[attr-defined]
STEP_T = Step.__table__  # type: ignore[attr-defined]
RUN_T = Run.__table__  # type: ignore[attr-defined]


def readable(raw: str) -> str:
    """The answer so far (JSON cut anywhere) as Markdown: each string field in order, lists as
    bullets; field names as small headings. Nothing when no field has started yet."""
    try:
        data = pydantic_core.from_json(raw, allow_partial="trailing-strings")
    except ValueError:
        return ""
    return _markdown(data).strip()


def _markdown(value: Any, name: str = "") -> str:
    if isinstance(value, str):
        return f"\n**{name.replace('_', ' ').capitalize()}**\n\n{value}\n" if name else value
    if isinstance(value, list):
        items = "\n".join(f"- {_markdown(v).strip()}" for v in value if v not in ("", None))
        return f"\n**{name.replace('_', ' ').capitalize()}**\n\n{items}\n" if name else items
    if isinstance(value, dict):
        return "".join(_markdown(v, k) for k, v in value.items())
    return ""


class LiveDraftWriter:
    """Called by the backend with the whole answer so far; writes it now and then."""

    def __init__(self, *, run_id: int, step_id: int | None, agent: str) -> None:
        self.run_id, self.step_id, self.agent = run_id, step_id, agent
        self._last = float("-inf")
        self._lock = threading.Lock()
        self.writes = 0

    def __call__(self, raw: str, final: bool = False) -> None:
        now = time.monotonic()
        if not final and now - self._last < WRITE_EVERY_S:
            return
        with self._lock:
            self._last = now
            self.writes += 1
            try:
                _upsert({"run_id": self.run_id, "step_id": self.step_id, "agent": self.agent,
                         "text": readable(raw), "chars": len(raw), "updated_at": utcnow()})
            except Exception:  # a view of work in progress must never fail the work
                log.warning("run %s: could not write the live draft", self.run_id,
                            exc_info=True)


def _upsert(row: dict[str, Any]) -> None:
    eng = get_engine()
    dialect = postgresql if eng.dialect.name == "postgresql" else sqlite
    stmt = dialect.insert(LIVE_T).values(**row)
    stmt = stmt.on_conflict_do_update(
        index_elements=[LIVE_T.c.run_id],
        set_={k: stmt.excluded[k] for k in row if k != "run_id"})
    with eng.begin() as c:
        c.execute(stmt)


class LiveView(BaseModel):
    text: str
    chars: int
    agent: str
    updated_at: Any


def live_draft(run_id: int) -> LiveView | None:
    """The draft streaming in for this run, while the step writing it still runs."""
    q = (select(LIVE_T.c.text, LIVE_T.c.chars, LIVE_T.c.agent, LIVE_T.c.updated_at)
         .join(STEP_T, STEP_T.c.id == LIVE_T.c.step_id)
         .where(LIVE_T.c.run_id == run_id, STEP_T.c.status == "running"))
    with get_engine().connect() as c:
        row = c.execute(q).first()
    if row is None:
        return None
    return LiveView(text=row[0], chars=row[1], agent=row[2], updated_at=row[3])


class LivePoll(BaseModel):
    """What the Run page's fast poll needs, from one statement: the run's version (changed:
    redraw the page from a fresh read) and the live row while its step runs."""

    version: int | None
    live: LiveView | None


# One statement per poll, four times a second per open Run page: the run's version and its live
# row (kept only while the step that wrote it runs), never the run's heavier read model.
_POLL = (
    select(RUN_T.c.version, LIVE_T.c.text, LIVE_T.c.chars, LIVE_T.c.agent, LIVE_T.c.updated_at,
           STEP_T.c.id)
    .select_from(RUN_T.outerjoin(LIVE_T, LIVE_T.c.run_id == RUN_T.c.id)
                 .outerjoin(STEP_T, (STEP_T.c.id == LIVE_T.c.step_id)
                            & (STEP_T.c.status == "running")))
    .where(RUN_T.c.id == bindparam("run_id"))
)


def poll(run_id: int) -> LivePoll:
    """The run's version and the draft streaming in (None when no step of it is writing)."""
    with get_engine().connect() as c:
        row = c.execute(_POLL, {"run_id": run_id}).first()
    if row is None:
        return LivePoll(version=None, live=None)
    live = None if row[5] is None else LiveView(text=row[1], chars=row[2], agent=row[3],
                                                updated_at=row[4])
    return LivePoll(version=int(row[0]), live=live)


def clear(run_id: int) -> None:
    with get_engine().begin() as c:
        c.execute(delete(LIVE_T).where(LIVE_T.c.run_id == run_id))


class LiveScores:
    """The critics' scores as each one finishes (the review step commits them together), in
    the same row as the live draft: the Run page shows them one by one while the step runs."""

    def __init__(self, *, run_id: int, step_id: int | None, critics: list[str]) -> None:
        self.run_id, self.step_id = run_id, step_id
        self._done: dict[str, str] = {}
        self._critics = critics
        self._lock = threading.Lock()

    def wrap(self, name: str, call: Any) -> Any:
        """`call` (a critic's run_agent), reporting its scores when it returns."""

        def scored() -> Any:
            out = call()
            self.done(name, out)
            return out

        return scored

    def done(self, name: str, out: Any) -> None:
        review = out.to_review() if hasattr(out, "to_review") else out
        scores = ", ".join(f"{s.name} {s.value:.2f}" for s in getattr(review, "scores", []))
        with self._lock:
            self._done[name] = scores or "done"
            lines = [f"- **{c.replace('_', ' ')}**: "
                     + (self._done[c] if c in self._done else "_scoring…_")
                     for c in self._critics]
            try:
                _upsert({"run_id": self.run_id, "step_id": self.step_id, "agent": "critics",
                         "text": "\n".join(lines), "chars": 0, "updated_at": utcnow()})
            except Exception:  # a view of work in progress must never fail the work
                log.warning("run %s: could not write the live scores", self.run_id,
                            exc_info=True)
