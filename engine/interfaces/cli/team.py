"""The team's and memory's commands (issue 18): `memory` (get / write / merge / delete / list a
namespace of a run or a person) and what `show --json` adds (the team's messages and
artifacts, the run's memory)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from engine.memory import service as memory
from engine.memory.read import load_memory
from engine.team.read import load_team


def show_json(run_id: int) -> dict[str, Any]:
    """`team` (members, messages, artifacts) for a run with a team, and `memory`."""
    out: dict[str, Any] = {}
    team = load_team(run_id)
    if team is not None:
        out["team"] = {
            "members": [m.model_dump(mode="json", exclude={"calls"})
                        | {"calls": [c.id for c in m.calls]} for m in team.members],
            "messages": [m.model_dump(mode="json") for m in team.messages],
            "artifacts": [a.model_dump(mode="json") for a in team.artifacts],
        }
    mem = load_memory(run_id)
    out["memory"] = mem.model_dump(mode="json", exclude={"given"})
    return out


def cmd_memory(a: argparse.Namespace) -> int:
    scope = memory.scope_of(run_id=a.run, person=a.user)
    if a.op == "list":
        for name in memory.list_namespaces(scope):
            print(name)
        return 0
    if not a.namespace:
        print(f"error: memory {a.op} needs a NAMESPACE", flush=True)
        return 2
    if a.op == "get":
        ns = memory.get(scope, a.namespace)
        if ns is None:
            print(f"{scope.key} has no namespace {a.namespace!r}.")
            return 1
        print(json.dumps({"data": ns.data, "sources": ns.sources}, indent=2,
                         ensure_ascii=False, default=str))
        return 0
    if a.op == "delete":
        gone = memory.delete(scope, a.namespace)
        print(f"deleted {a.namespace!r} from {scope.key}" if gone
              else f"{scope.key} has no namespace {a.namespace!r}.")
        return 0 if gone else 1
    try:
        data = json.loads(a.data or "")
    except json.JSONDecodeError as exc:
        print(f"error: DATA is not valid JSON: {exc}")
        return 2
    memory.put(scope, a.namespace, data, actor=a.actor, replace=a.op == "write")
    print(f"{a.op} {a.namespace!r} in {scope.key}")
    return 0


def register(sub: Any, actor: Any) -> None:
    m = sub.add_parser("memory", help="a run's or a person's memory: list, get, write, merge, "
                       "delete a namespace", description="Memory in namespaces, per run "
                       "(shared, agent:NAME) or per person (e.g. profile, read by the team of "
                       "each of their campaigns).")
    m.add_argument("op", choices=["list", "get", "write", "merge", "delete"],
                   help="list namespaces; get one; write (replace) or merge a JSON object; "
                   "delete one")
    m.add_argument("namespace", nargs="?", help="the namespace, e.g. shared or profile")
    m.add_argument("data", nargs="?", help="write/merge: a JSON object")
    who = m.add_mutually_exclusive_group(required=True)
    who.add_argument("--run", type=int, help="a run's memory")
    who.add_argument("--user", help="a person's memory")
    actor(m)
    m.set_defaults(fn=cmd_memory)


__all__ = ["cmd_memory", "register", "show_json"]
