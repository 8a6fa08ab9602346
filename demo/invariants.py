"""What the engine enforces, checked over a whole database: each check returns the runs (or
rows) that break it, so a seeded database (demo/seed.py) or any other can be held to it.

- spend: a run's cost is the sum of its calls' costs, and within its budget (the agents check
  the budget before every call, so a run stops at it: "budget_reached");
- decisions: "thresholds met" only when the current version's scores meet every threshold,
  "max iterations" only at the limit, approved runs have an approved version and an approval;
- names: stages, agents, score names and step nodes are those the pipelines and the loop
  define (views.get_run lists any other as unknown);
- prompts: a call that names a saved prompt version names one saved before the call;
- the audit trail: every act sealed and linked to the run's previous one."""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlmodel import Session

from engine.audit_chain import verify_all
from engine.loop.decide import max_iterations_for, thresholds_for
from engine.pipelines.registry import PIPELINES
from engine.views import LOOP_NODES

EPS = 1e-6


def violations(conn: Connection) -> dict[str, list[Any]]:
    """Every broken invariant by name, with what breaks it (empty lists when all hold)."""
    return {
        "cost is the sum of the calls": _cost_sums(conn),
        "spend within budget": _rows(conn, "SELECT id FROM run WHERE budget_usd IS NOT NULL "
                                           f"AND cost_usd > budget_usd + {EPS}"),
        "thresholds met only when the scores meet them": _thresholds_met(conn),
        "max iterations only at the limit": _max_iterations(conn),
        "approved runs have their version and an approval": _rows(conn, """
            SELECT r.id FROM run r WHERE r.status = 'approved' AND (r.approved_draft_id IS NULL
              OR NOT EXISTS (SELECT 1 FROM humanaction a WHERE a.run_id = r.id
                             AND a.action IN ('approve', 'approve_override')))"""),
        "names the pipelines define": _names(conn),
        "audit trails verify": _audit(conn),
        "prompt versions saved before use": _rows(conn, """
            SELECT c.id FROM llmcall c WHERE c.prompt_version IS NOT NULL AND NOT EXISTS (
              SELECT 1 FROM promptversion p WHERE p.agent = c.agent
                AND p.version = c.prompt_version AND p.created_at <= c.started_at)"""),
    }


def _audit(conn: Connection) -> list[str]:
    """Every run's chain of acts (engine/audit_chain.py): each sealed and linked."""
    with Session(bind=conn) as s:
        return [f"run {b.run_id} act {b.position}: {b.why}" for b in verify_all(s).broken]


def _rows(conn: Connection, sql: str) -> list[Any]:
    return [r[0] for r in conn.execute(text(sql))]


def _cost_sums(conn: Connection) -> list[int]:
    return _rows(conn, f"""
        SELECT r.id FROM run r LEFT JOIN (SELECT run_id, sum(coalesce(cost_usd, 0)) AS s
          FROM llmcall GROUP BY run_id) c ON c.run_id = r.id
        WHERE abs(r.cost_usd - coalesce(c.s, 0)) > {EPS}""")


def _stage(kind: str, stage: str) -> Any:
    pipeline = PIPELINES.get(kind)
    return next((s for s in pipeline.stages if s.name == stage), None) if pipeline else None


def _thresholds_met(conn: Connection) -> list[int]:
    scores: dict[int, dict[str, float]] = defaultdict(dict)
    runs = conn.execute(text("SELECT id, kind, stage, params, current_draft_id FROM run "
                             "WHERE halt_reason = 'thresholds_met'")).all()
    for draft_id, name, value in conn.execute(text(
            "SELECT s.draft_id, s.name, s.value FROM score s JOIN run r "
            "ON r.current_draft_id = s.draft_id WHERE r.halt_reason = 'thresholds_met'")):
        scores[draft_id][name] = value
    bad = []
    for run_id, kind, stage, params, draft_id in runs:
        spec = _stage(kind, stage)
        wanted = thresholds_for(spec, _json(params)) if spec else {}
        got = scores.get(draft_id, {})
        if spec is None or any(got.get(n, -1.0) < t - EPS for n, t in wanted.items()):
            bad.append(run_id)
    return bad


def _max_iterations(conn: Connection) -> list[int]:
    bad = []
    for run_id, kind, stage, params, iteration in conn.execute(text(
            "SELECT id, kind, stage, params, iteration FROM run "
            "WHERE halt_reason = 'max_iterations'")):
        spec = _stage(kind, stage)
        if spec is None or iteration < max_iterations_for(spec, _json(params)):
            bad.append(run_id)
    return bad


def _names(conn: Connection) -> list[str]:
    """Stage, agent, score and step-node names no pipeline or loop node defines."""
    stages = {(k, s.name) for k, p in PIPELINES.items() for s in p.stages}
    agents = {(k, a.name) for k, p in PIPELINES.items() for s in p.stages
              for a in (s.drafter, *s.critics)}
    scores = {(k, n) for k, p in PIPELINES.items() for s in p.stages for n in s.thresholds}
    checks = {
        "run stage": ("SELECT DISTINCT kind, stage FROM run", stages),
        "draft stage": ("SELECT DISTINCT r.kind, d.stage FROM draft d JOIN run r "
                        "ON r.id = d.run_id", stages),
        "step stage": ("SELECT DISTINCT r.kind, s.stage FROM step s JOIN run r "
                       "ON r.id = s.run_id", stages),
        "call stage": ("SELECT DISTINCT kind, stage FROM llmcall", stages),
        "draft author": ("SELECT DISTINCT r.kind, d.author FROM draft d JOIN run r "
                         "ON r.id = d.run_id WHERE d.author_kind = 'agent'", agents),
        "call agent": ("SELECT DISTINCT kind, agent FROM llmcall", agents),
        "score": ("SELECT DISTINCT r.kind, s.name FROM score s JOIN draft d ON d.id = s.draft_id "
                  "JOIN run r ON r.id = d.run_id", scores),
    }
    out = [f"{what} {kind}/{name}" for what, (sql, known) in checks.items()
           for kind, name in conn.execute(text(sql)) if (kind, name) not in known]
    out += [f"step node {node}" for (node,) in conn.execute(text("SELECT DISTINCT node FROM step"))
            if node not in LOOP_NODES]
    return out


def _json(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else json.loads(value or "{}")

