"""Namespaces of memory, stored in the database: get / write / merge / delete / list.

A scope is a person ("user:<person>") or a run ("run:<id>"); inside it, a namespace holds a
JSON object and, per key, where its value came from and when. Every function takes a Core
connection, so the loop writes memory in the transaction that commits its step (a kill loses
or doubles nothing) and services in theirs."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field, model_validator
from sqlalchemy import bindparam, delete, insert, select, update
from sqlalchemy.engine import Connection

from db.models import utcnow
from db.prepared import Prepared
from db.team_tables import MemoryNamespace
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


# Prepared once per dialect (db.prepared): the loop runs these at every step of a campaign.
_COLS = (TABLE.c.namespace, TABLE.c.data, TABLE.c.sources, TABLE.c.updated_at)
SEL_SCOPE = Prepared(select(*_COLS).where(TABLE.c.scope_key == bindparam("b_scope"))
                     .order_by(TABLE.c.namespace))
SEL_ONE = Prepared(select(*_COLS).where(TABLE.c.scope_key == bindparam("b_scope"),
                                        TABLE.c.namespace == bindparam("b_ns")))
UPDATE_NS = Prepared(
    update(TABLE).where(TABLE.c.scope_key == bindparam("b_scope"),
                        TABLE.c.namespace == bindparam("b_ns"))
    .values(data=bindparam("b_data", type_=TABLE.c.data.type),
            sources=bindparam("b_sources", type_=TABLE.c.sources.type),
            updated_at=bindparam("b_now", type_=TABLE.c.updated_at.type)))
INSERT_NS = Prepared(insert(TABLE), ("scope_key", "run_id", "person", "namespace", "data",
                                     "sources", "created_at", "updated_at"))


def _ns(scope: Scope, row: Any) -> Namespace:
    name, data, sources, updated = row
    return Namespace(scope=scope.key, namespace=name, data=dict(data or {}),
                     sources=dict(sources or {}), updated_at=updated)


def get(c: Connection, scope: Scope, namespace: str) -> Namespace | None:
    """The namespace as stored, or None when nothing was ever written to it."""
    rows = SEL_ONE.rows(c, {"b_scope": scope.key, "b_ns": _check_name(namespace)})
    return _ns(scope, rows[0]) if rows else None


def stamp(keys: Any, source: str) -> dict[str, dict[str, Any]]:
    """Where each key's value came from, and when."""
    if not source.strip():
        raise InvalidInput("Say where a memory entry came from (its source).")
    at = utcnow().isoformat()
    return {k: {"source": source, "at": at} for k in keys}


def save(c: Connection, scope: Scope, namespace: str, data: dict[str, Any],
         sources: dict[str, dict[str, Any]], *, exists: bool) -> None:
    """Store the namespace's whole content (`exists`: it has a row to update)."""
    now = utcnow()
    if exists:
        UPDATE_NS.run(c, {"b_scope": scope.key, "b_ns": namespace, "b_data": data,
                          "b_sources": sources, "b_now": now})
        return
    INSERT_NS.run(c, {"scope_key": scope.key, "run_id": scope.run_id, "person": scope.person,
                      "namespace": namespace, "data": data, "sources": sources,
                      "created_at": now, "updated_at": now})


def write(c: Connection, scope: Scope, namespace: str, data: dict[str, Any], *,
          source: str) -> None:
    """Replace the namespace's content with `data`, every key from `source`."""
    namespace = _check_name(namespace)
    save(c, scope, namespace, dict(data), stamp(data, source),
         exists=get(c, scope, namespace) is not None)


def merged(ns: Namespace | None, data: dict[str, Any], source: str) -> Namespace | None:
    """`ns` with the keys of `data` set (a shallow merge), or None when nothing changes. A
    key whose value did not change keeps its first source and time."""
    old = ns.data if ns is not None else {}
    changed = {k: v for k, v in data.items() if k not in old or old[k] != v}
    if ns is not None and not changed:
        return None
    sources = dict(ns.sources if ns is not None else {}) | stamp(changed, source)
    return Namespace(scope=ns.scope if ns else "", namespace=ns.namespace if ns else "",
                     data=old | changed, sources=sources)


def merge(c: Connection, scope: Scope, namespace: str, data: dict[str, Any], *,
          source: str) -> None:
    """Set the keys of `data` (a shallow merge); other keys and their sources stay."""
    namespace = _check_name(namespace)
    ns = get(c, scope, namespace)
    new = merged(ns, data, source)
    if new is not None:  # nothing new: no write (the loop merges the same facts every step)
        save(c, scope, namespace, new.data, new.sources, exists=ns is not None)


def delete_namespace(c: Connection, scope: Scope, namespace: str) -> bool:
    """Remove the namespace; False when there was none."""
    namespace = _check_name(namespace)
    res = c.execute(delete(TABLE).where(TABLE.c.scope_key == scope.key,
                                        TABLE.c.namespace == namespace))
    return bool(res.rowcount)


def list_namespaces(c: Connection, scope: Scope) -> list[str]:
    return [r[0] for r in SEL_SCOPE.rows(c, {"b_scope": scope.key})]


def load_all(c: Connection, scope: Scope) -> dict[str, Namespace]:
    """Every namespace of the scope, in one query."""
    return {r[0]: _ns(scope, r) for r in SEL_SCOPE.rows(c, {"b_scope": scope.key})}


__all__ = ["AGENT_PREFIX", "SHARED", "Entry", "Namespace", "Scope", "agent_namespace",
           "delete_namespace", "get", "list_namespaces", "load_all", "merge", "merged", "save",
           "stamp", "write"]
