"""Namespaces of memory, stored in the database: get / write / merge / delete / list.

A scope is a person ("user:<person>") or a run ("run:<id>"); inside it, a namespace holds a
JSON object and, per key, where its value came from and when. Every function takes a Core
connection, so the loop writes memory in the transaction that commits its step (a kill loses
or doubles nothing) and services in theirs."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field, model_validator
from sqlalchemy import delete, insert, select, update
from sqlalchemy.engine import Connection

from db.models import MemoryNamespace, utcnow
from engine.errors import InvalidInput
from engine.identity import person_key

TABLE = MemoryNamespace.__table__  # type: ignore[attr-defined]
MAX_NAMESPACE = 100
SHARED = "shared"
"""A run's namespace every agent of the run reads."""
AGENT_PREFIX = "agent:"
"""A run's private namespace of one agent: "agent:<name>"."""


def agent_namespace(agent: str) -> str:
    return f"{AGENT_PREFIX}{agent}"


class Scope(BaseModel):
    """Whose memory: a person's (across runs) or a run's."""

    person: str | None = None
    run_id: int | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _one(self) -> Scope:
        if (self.person is None) == (self.run_id is None):
            raise ValueError("a memory scope is a person or a run, exactly one of them")
        if self.person is not None:
            self.person = person_key(self.person)
            if not self.person:
                raise ValueError("a person's memory scope needs a name")
        return self

    @property
    def key(self) -> str:
        return f"run:{self.run_id}" if self.run_id is not None else f"user:{self.person}"

    @classmethod
    def run(cls, run_id: int) -> Scope:
        return cls(run_id=run_id)

    @classmethod
    def user(cls, person: str) -> Scope:
        return cls(person=person)


class Entry(BaseModel):
    """One key of a namespace, with its provenance."""

    key: str
    value: Any
    source: str
    at: datetime | None = None


class Namespace(BaseModel):
    scope: str
    namespace: str
    data: dict[str, Any]
    sources: dict[str, dict[str, Any]]
    updated_at: datetime | None = None

    @property
    def entries(self) -> list[Entry]:
        return [Entry(key=k, value=v, source=str(self.sources.get(k, {}).get("source", "")),
                      at=self.sources.get(k, {}).get("at")) for k, v in self.data.items()]


def _check_name(namespace: str) -> str:
    name = (namespace or "").strip()
    if not name or len(name) > MAX_NAMESPACE:
        raise InvalidInput(f"A memory namespace is 1-{MAX_NAMESPACE} characters; got "
                           f"{namespace!r}.")
    return name


def _row(c: Connection, scope: Scope, namespace: str) -> Any:
    return c.execute(select(TABLE).where(TABLE.c.scope_key == scope.key,
                                         TABLE.c.namespace == namespace)).first()


def get(c: Connection, scope: Scope, namespace: str) -> Namespace | None:
    """The namespace as stored, or None when nothing was ever written to it."""
    row = _row(c, scope, _check_name(namespace))
    if row is None:
        return None
    return Namespace(scope=scope.key, namespace=namespace, data=dict(row.data or {}),
                     sources=dict(row.sources or {}), updated_at=row.updated_at)


def _stamp(data: dict[str, Any], source: str) -> dict[str, dict[str, Any]]:
    if not source.strip():
        raise InvalidInput("Say where a memory entry came from (its source).")
    at = utcnow().isoformat()
    return {k: {"source": source, "at": at} for k in data}


def _store(c: Connection, scope: Scope, namespace: str, data: dict[str, Any],
           sources: dict[str, dict[str, Any]], exists: bool) -> None:
    now = utcnow()
    if exists:
        c.execute(update(TABLE).where(TABLE.c.scope_key == scope.key,
                                      TABLE.c.namespace == namespace)
                  .values(data=data, sources=sources, updated_at=now))
        return
    c.execute(insert(TABLE).values(scope_key=scope.key, run_id=scope.run_id,
                                   person=scope.person, namespace=namespace, data=data,
                                   sources=sources, created_at=now, updated_at=now))


def write(c: Connection, scope: Scope, namespace: str, data: dict[str, Any], *,
          source: str) -> None:
    """Replace the namespace's content with `data`, every key from `source`."""
    namespace = _check_name(namespace)
    _store(c, scope, namespace, dict(data), _stamp(data, source),
           _row(c, scope, namespace) is not None)


def merge(c: Connection, scope: Scope, namespace: str, data: dict[str, Any], *,
          source: str) -> None:
    """Set the keys of `data` (a shallow merge); other keys and their sources stay. A key
    whose value did not change keeps its first source and time."""
    namespace = _check_name(namespace)
    row = _row(c, scope, namespace)
    old = dict(row.data or {}) if row is not None else {}
    sources = dict(row.sources or {}) if row is not None else {}
    changed = {k: v for k, v in data.items() if k not in old or old[k] != v}
    if row is not None and not changed:
        return  # nothing new: no write (the loop merges the same facts at every step)
    sources.update(_stamp(changed, source))
    _store(c, scope, namespace, old | changed, sources, row is not None)


def delete_namespace(c: Connection, scope: Scope, namespace: str) -> bool:
    """Remove the namespace; False when there was none."""
    namespace = _check_name(namespace)
    res = c.execute(delete(TABLE).where(TABLE.c.scope_key == scope.key,
                                        TABLE.c.namespace == namespace))
    return bool(res.rowcount)


def list_namespaces(c: Connection, scope: Scope) -> list[str]:
    return [n for (n,) in c.execute(select(TABLE.c.namespace).where(
        TABLE.c.scope_key == scope.key).order_by(TABLE.c.namespace))]


def load_all(c: Connection, scope: Scope) -> dict[str, Namespace]:
    """Every namespace of the scope, in one query."""
    rows = c.execute(select(TABLE).where(TABLE.c.scope_key == scope.key)
                     .order_by(TABLE.c.namespace)).all()
    return {r.namespace: Namespace(scope=scope.key, namespace=r.namespace,
                                   data=dict(r.data or {}), sources=dict(r.sources or {}),
                                   updated_at=r.updated_at) for r in rows}


__all__ = ["AGENT_PREFIX", "SHARED", "Entry", "Namespace", "Scope", "agent_namespace",
           "delete_namespace", "get", "list_namespaces", "load_all", "merge", "write"]
