"""Can we trust the critics? Each critic's scores (per prompt version) set against what people
then did with the very version it scored: approved it as is, approved it over a flag
(overridden), edited it (and how much they kept, Draft.edit_ratio), sent it back, rejected
it. A critic people agree with scores the versions they approve high and the ones they send
back or reject low.

Two SQL queries, whatever the size of the database: one GROUP BY for the table and chart, one
ORDER BY ... LIMIT for the versions where critic and people disagreed most. Only agents'
versions count (a critic scoring a person's own edit says nothing about the critic).

Both read what people did since a date (`since`; the page's default is the last 7 days):
the acts in that window by a covering index on their time, the people's own versions by one on
(author kind, time), and each score's prompt version by one seek into the calls of its run
(migration 0013), so the work grows with the window, not with the history."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel
from sqlalchemy import DateTime, TextClause, bindparam, text

from db.session import get_engine

__all__ = ["OUTCOMES", "CalibrationRow", "Disagreement", "calibration", "data_version",
           "disagreements"]

Outcome = Literal["approved", "overridden", "edited", "sent back", "rejected"]
OUTCOMES: tuple[Outcome, ...] = ("approved", "overridden", "edited", "sent back", "rejected")
PEOPLE_SAY = {"approved": 1.0, "overridden": 1.0, "sent back": 0.0, "rejected": 0.0}
"""What each outcome says of the version, on the critics' 0-1 scale; an edit says how much of
it the person kept (its edit ratio; 0.5 when not measured)."""

# Each agent version's outcome: the first approval, send-back or rejection recorded on it, or
# the person's version made from it. A draft can have several (sent back, then...): each
# counts, as each is a person's judgement of that text.
_OUTCOMES = """
  SELECT a.draft_id AS draft_id,
         CASE WHEN a.action LIKE 'approve%override' THEN 'overridden'
              WHEN a.action LIKE 'approve%' THEN 'approved'
              WHEN a.action = 'revise' THEN 'sent back'
              ELSE 'rejected' END AS outcome,
         NULL AS kept
    FROM humanaction a
   WHERE a.at >= :since AND a.draft_id IS NOT NULL
     AND (a.action LIKE 'approve%' OR a.action IN ('revise', 'reject'))
  UNION ALL
  SELECT h.parent_id, 'edited', h.edit_ratio
    FROM draft h
   WHERE h.author_kind = 'human' AND h.created_at >= :since AND h.parent_id IS NOT NULL
"""

# The critic's prompt version for a score: the newest its calls in that run used (a run
# keeps its prompts unless someone saves a new version mid-run): one seek into the covering
# index ix_llmcall_run_agent per score. (A GROUP BY over every call, joined once, read the
# whole call log: 1,000,000 rows for a page that shows a month.)
_PROMPT = """(SELECT MAX(c.prompt_version) FROM llmcall c
                WHERE c.run_id = d.run_id AND c.agent = s.source)"""

_PEOPLE = """
  CASE o.outcome WHEN 'approved' THEN 1.0 WHEN 'overridden' THEN 1.0
                 WHEN 'edited' THEN COALESCE(o.kept, 0.5) ELSE 0.0 END
"""

# The window's outcomes drive the joins: CROSS JOIN fixes SQLite's join order (PostgreSQL
# plans it as any inner join). Left to itself, SQLite started from every agent-written draft
# (by ix_draft_author_kind) and every score of theirs: 1.4M rows for a 30-day window.
_ROWS = f"""
SELECT s.source AS critic, s.name AS score, r.kind AS kind, {_PROMPT} AS prompt_version,
       o.outcome AS outcome, s.value AS value, o.kept AS kept,
       ABS(s.value - {_PEOPLE}) AS disagreement, d.run_id AS run_id, d.version AS version,
       r.title AS title
  FROM ({_OUTCOMES}) o
  CROSS JOIN draft d
  CROSS JOIN run r
  CROSS JOIN score s
 WHERE d.id = o.draft_id AND d.author_kind = 'agent' AND r.id = d.run_id
   AND s.draft_id = d.id AND s.source <> '' AND s.source <> 'checks'
"""

_GROUPS = f"""
SELECT critic, score, kind, prompt_version, outcome, COUNT(*) AS versions,
       AVG(value) AS mean_score, AVG(kept) AS mean_kept, AVG(disagreement) AS disagreement
  FROM ({_ROWS}) x
 GROUP BY critic, score, kind, prompt_version, outcome
"""

_WORST = f"""
SELECT run_id, version, title, critic, score, prompt_version, value, outcome, kept,
       disagreement
  FROM ({_ROWS}) x
 {{where}}
 ORDER BY disagreement DESC, run_id DESC, version DESC
 LIMIT :limit
"""


class CalibrationRow(BaseModel):
    critic: str
    score: str
    """The score's name (a critic may give several: clinical, empathy)."""
    kind: str
    prompt_version: int | None
    """The critic's prompt version; None = its default prompt."""
    outcome: Outcome
    versions: int
    mean_score: float
    mean_kept: float | None
    """For edits: the mean share of the version the people kept (1.0 unchanged)."""
    disagreement: float
    """Mean |score - what people said| (PEOPLE_SAY; an edit: the share kept)."""


class Disagreement(BaseModel):
    run_id: int
    version: int
    title: str
    critic: str
    score: str
    prompt_version: int | None
    value: float
    outcome: Outcome
    kept: float | None
    disagreement: float


EPOCH = datetime(1970, 1, 1)
"""`since` for "everything": a bound date keeps one query shape on both databases."""


def _query(sql: str) -> TextClause:
    # Bound as the columns' own type: SQLite compares the stored text form, PostgreSQL a
    # timestamp.
    return text(sql).bindparams(bindparam("since", type_=DateTime()))


def _since(since: datetime | None) -> datetime:
    """Naive UTC, as the columns store it."""
    if since is None:
        return EPOCH
    return since.astimezone(UTC).replace(tzinfo=None) if since.tzinfo else since


def data_version() -> tuple[int, int]:
    """What the figures depend on changes only with a new act or a new version (scores are
    written before anyone can act on a version): the newest of each, two lookups at the end
    of their primary keys. A cache keyed on it is never stale and costs nothing to check."""
    with get_engine().connect() as conn:
        acts = conn.execute(text("SELECT MAX(id) FROM humanaction")).scalar()
        drafts = conn.execute(text("SELECT MAX(id) FROM draft")).scalar()
    return int(acts or 0), int(drafts or 0)


def calibration(since: datetime | None = None) -> list[CalibrationRow]:
    """Per critic, score, kind, prompt version and outcome: how many versions, their mean
    score, how much of the edited ones people kept, and the mean disagreement; over what
    people did since `since` (UTC; None: ever)."""
    with get_engine().connect() as conn:
        rows = conn.execute(_query(_GROUPS), {"since": _since(since)}).mappings().all()
    order = {o: i for i, o in enumerate(OUTCOMES)}
    out = [CalibrationRow.model_validate(dict(r)) for r in rows]
    return sorted(out, key=lambda r: (r.critic, r.score, r.kind, r.prompt_version or 0,
                                      order[r.outcome]))


def disagreements(limit: int = 10, kind: str | None = None,
                  since: datetime | None = None) -> list[Disagreement]:
    """The scored versions (of one kind of run, or all) where critic and people disagreed
    most, worst first; over what people did since `since` (UTC; None: ever)."""
    with get_engine().connect() as conn:
        # A bare NULL parameter has no type PostgreSQL can infer: filter only when asked.
        sql = _WORST.format(where="WHERE kind = :kind" if kind else "")
        rows = conn.execute(_query(sql), {"limit": limit, "kind": kind,
                                          "since": _since(since)}).mappings().all()
    return [Disagreement.model_validate(dict(r)) for r in rows]
