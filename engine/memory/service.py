"""Memory for people and adapters (the CLI's `memory` command): each act in a transaction of its
own, the source naming who did it. The loop writes memory in its own transactions instead
(engine/team/record.py)."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from sqlmodel import Session

from db.models import Run
from db.session import session_scope
from engine.errors import InvalidInput, NotFound
from engine.memory import store
from engine.memory.store import Namespace, Scope


def scope_of(*, run_id: int | None = None, person: str | None = None) -> Scope:
    try:
        return Scope(run_id=run_id, person=person)
    except ValidationError as exc:
        raise InvalidInput("; ".join(str(e["msg"]).removeprefix("Value error, ")
                                     for e in exc.errors())) from None


def _check(s: Session, scope: Scope) -> None:
    if scope.run_id is not None and s.get(Run, scope.run_id) is None:
        raise NotFound(f"Run {scope.run_id} does not exist.")


def get(scope: Scope, namespace: str) -> Namespace | None:
    with session_scope() as s:
        _check(s, scope)
        return store.get(s.connection(), scope, namespace)


def list_namespaces(scope: Scope) -> list[str]:
    with session_scope() as s:
        _check(s, scope)
        return store.list_namespaces(s.connection(), scope)


def put(scope: Scope, namespace: str, data: Any, *, actor: str, replace: bool) -> None:
    """Write (replace=True) or merge `data`, a JSON object, recorded as from `actor`."""
    if not isinstance(data, dict):
        raise InvalidInput("Memory holds a JSON object ({\"key\": value, ...}); got "
                           f"{type(data).__name__}.")
    source = f"{actor.strip() or 'someone'}, by hand"
    with session_scope() as s:
        _check(s, scope)
        fn = store.write if replace else store.merge
        fn(s.connection(), scope, namespace, data, source=source)


def delete(scope: Scope, namespace: str) -> bool:
    with session_scope() as s:
        _check(s, scope)
        return store.delete_namespace(s.connection(), scope, namespace)


__all__ = ["delete", "get", "list_namespaces", "put", "scope_of"]
