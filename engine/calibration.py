"""Can we trust the critics? Each critic's scores (per prompt version) set against what people
then did with the very version it scored: approved it as is, approved it over a flag
(overridden), edited it (and how much they kept, Draft.edit_ratio), sent it back, rejected
it. A critic people agree with scores the versions they approve high and the ones they send
back or reject low.

Two SQL queries, whatever the size of the database: one GROUP BY for the table and chart, one
ORDER BY ... LIMIT for the versions where critic and people disagreed most. Only agents'
versions count (a critic scoring a person's own edit says nothing about the critic)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel
from sqlalchemy import text

from db.session import get_engine

__all__ = ["OUTCOMES", "CalibrationRow", "Disagreement", "calibration", "disagreements"]

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
   WHERE a.draft_id IS NOT NULL
     AND (a.action LIKE 'approve%' OR a.action IN ('revise', 'reject'))
  UNION ALL
  SELECT h.parent_id, 'edited', h.edit_ratio
    FROM draft h
   WHERE h.author_kind = 'human' AND h.parent_id IS NOT NULL
"""

# The critic's prompt version for a score: the newest its calls in that run used (a run
# keeps its prompts unless someone saves a new version mid-run), from one GROUP BY over the
# calls joined once (a lookup per score row cost three times as much).
_PROMPTS = """
  LEFT JOIN (SELECT run_id, agent, MAX(prompt_version) AS pv FROM llmcall
              GROUP BY run_id, agent) p ON p.run_id = d.run_id AND p.agent = s.source
"""

_PEOPLE = """
  CASE o.outcome WHEN 'approved' THEN 1.0 WHEN 'overridden' THEN 1.0
                 WHEN 'edited' THEN COALESCE(o.kept, 0.5) ELSE 0.0 END
"""

_ROWS = f"""
SELECT s.source AS critic, s.name AS score, d.kind AS kind, p.pv AS prompt_version,
       o.outcome AS outcome, s.value AS value, o.kept AS kept,
       ABS(s.value - {_PEOPLE}) AS disagreement, d.run_id AS run_id, d.version AS version,
       d.title AS title
  FROM ({_OUTCOMES}) o
  JOIN (SELECT dd.id, dd.run_id, dd.version, r.kind, r.title FROM draft dd
          JOIN run r ON r.id = dd.run_id WHERE dd.author_kind = 'agent') d ON d.id = o.draft_id
  JOIN score s ON s.draft_id = d.id
  {_PROMPTS}
 WHERE s.source <> '' AND s.source <> 'checks'
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


def calibration() -> list[CalibrationRow]:
    """Per critic, score, kind, prompt version and outcome: how many versions, their mean
    score, how much of the edited ones people kept, and the mean disagreement."""
    with get_engine().connect() as conn:
        rows = conn.execute(text(_GROUPS)).mappings().all()
    order = {o: i for i, o in enumerate(OUTCOMES)}
    out = [CalibrationRow.model_validate(dict(r)) for r in rows]
    return sorted(out, key=lambda r: (r.critic, r.score, r.kind, r.prompt_version or 0,
                                      order[r.outcome]))


def disagreements(limit: int = 10, kind: str | None = None) -> list[Disagreement]:
    """The scored versions (of one kind of run, or all) where critic and people disagreed
    most, worst first."""
    with get_engine().connect() as conn:
        # A bare NULL parameter has no type PostgreSQL can infer: filter only when asked.
        sql = _WORST.format(where="WHERE kind = :kind" if kind else "")
        rows = conn.execute(text(sql), {"limit": limit, "kind": kind}).mappings().all()
    return [Disagreement.model_validate(dict(r)) for r in rows]
