"""What one agent of a run may read, and the block it is given.

An agent reads the run's shared namespace (every agent does) and its own private namespace
("agent:<name>"), never another agent's: `for_agent` does not even load the others. What it
was given goes into its draft or review task's context, is rendered into its prompt, and is
recorded with each of its calls (`given`), so a reviewer can answer "why did it say that?"."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, Field
from sqlalchemy import select
from sqlalchemy.engine import Connection

from engine.config import setting
from engine.memory.store import SHARED, TABLE, Namespace, Scope, agent_namespace
from engine.redact import redact

CONTEXT_KEY = "memory"
"""Where a task's context holds what the agent was given from memory."""


class AgentMemory(BaseModel):
    """The memory one agent of a run is given."""

    agent: str
    namespaces: list[str]
    """The namespaces read: "shared" and "agent:<this agent>", never more."""
    shared: dict[str, Any] = Field(default_factory=dict)
    private: dict[str, Any] = Field(default_factory=dict)
    sources: dict[str, str] = Field(default_factory=dict)
    """"shared.business_card" -> where that value came from."""


def for_agent(c: Connection, run_id: int, agent: str) -> AgentMemory:
    """The run's shared namespace and `agent`'s own, in one query that names only those two."""
    scope = Scope.run(run_id)
    mine = agent_namespace(agent)
    rows = c.execute(select(TABLE.c.namespace, TABLE.c.data, TABLE.c.sources).where(
        TABLE.c.scope_key == scope.key, TABLE.c.namespace.in_([SHARED, mine]))).all()
    return _build(agent, {n: (d, s) for n, d, s in rows})


def from_spaces(spaces: Mapping[str, Namespace], agent: str) -> AgentMemory:
    """The same, from a run's namespaces already read in this transaction: only the shared
    one and `agent`'s own are taken."""
    mine = agent_namespace(agent)
    return _build(agent, {n: (spaces[n].data, spaces[n].sources) for n in (SHARED, mine)
                          if n in spaces})


def _build(agent: str, parts: Mapping[str, tuple[Any, Any]]) -> AgentMemory:
    out = AgentMemory(agent=agent, namespaces=[SHARED, agent_namespace(agent)])
    for namespace, (data, sources) in parts.items():
        if namespace not in out.namespaces:
            continue  # never another agent's
        part = "shared" if namespace == SHARED else "private"
        setattr(out, part, dict(data or {}))
        out.sources.update({f"{part}.{k}": str((v or {}).get("source", ""))
                            for k, v in (sources or {}).items()})
    return out


def given(task: Any) -> dict[str, Any]:
    """For a call's recorded request: the memory its agent was given (redacted like the
    messages), or nothing when the task carried none."""
    ctx = getattr(task, "context", None)
    mem = ctx.get(CONTEXT_KEY) if isinstance(ctx, dict) else None
    if not mem:
        return {}
    text = json.dumps(mem, ensure_ascii=False, default=str)
    return {"context": {CONTEXT_KEY: _redacted(text, setting("openai_api_key"),
                                               str(setting("redact_pii")))}}


@lru_cache(maxsize=32)
def _redacted(text: str, _key: str | None, _pii: str) -> dict[str, Any]:
    # The same memory goes with every call of a step (and often the next step's): redact each
    # distinct one once, per API key and PII setting (which redaction reads).
    return dict(redact(json.loads(text)))


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def render_block(memory: dict[str, Any] | None, *, private: bool = True) -> str:
    """The memory as a prompt block: shared (every agent of the run reads it) and, for the
    agent itself, its own notes. Empty when the task carried no memory."""
    if not memory:
        return ""
    parts = []
    shared = memory.get("shared") or {}
    if shared:
        parts.append("Team memory (shared with every agent of this campaign):\n"
                     + "\n".join(f"- {k}: {_compact(v)}" for k, v in shared.items()))
    mine = memory.get("private") or {}
    if private and mine:
        parts.append("Your own notes from earlier attempts (only you see these):\n"
                     + "\n".join(f"- {k}: {_compact(v)}" for k, v in mine.items()))
    return "\n\n".join(parts)


__all__ = ["CONTEXT_KEY", "AgentMemory", "for_agent", "from_spaces", "given", "render_block"]
