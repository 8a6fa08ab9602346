"""The governance commands: the audit chain, assignment, approval policies and MCP tokens.
parser.py registers them (register()); each goes through the same services the pages use."""

from __future__ import annotations

import argparse
import getpass
from collections.abc import Callable

__all__ = ["register", "os_verified"]


def os_verified(actor: str) -> bool:
    """On the command line the operating system's login vouches for its own name (the shell
    authenticated it); any other --actor is typed, so unverified."""
    try:
        return bool(actor) and actor == getpass.getuser()
    except Exception:  # no login name at all (some containers)
        return False


def cmd_audit_verify(a: argparse.Namespace) -> int:
    from db.session import session_scope
    from engine.audit_chain import verify_all, verify_run

    with session_scope() as s:
        if a.run_id is not None:
            found = verify_run(s, a.run_id)
            broken = [found] if found else []
            runs, acts = 1, None
        else:
            report = verify_all(s)
            broken, runs, acts = report.broken, report.runs, report.acts
    if not broken:
        what = f"{acts:,} acts in {runs:,} runs" if acts is not None else f"run {a.run_id}"
        print(f"audit trail verified: {what}; every link holds.")
        return 0
    first = broken[0]
    where = (f"act {first.position} (id {first.act_id})" if first.act_id is not None
             else "the run's head")
    print(f"audit trail BROKEN: first broken link in run {first.run_id}, {where}: {first.why}.")
    if len(broken) > 1:
        others = ", ".join(str(b.run_id) for b in broken[1:11])
        print(f"{len(broken) - 1} more run(s) broken: {others}{' ...' if len(broken) > 11 else ''}")
    return 1


def cmd_assign(a: argparse.Namespace) -> int:
    from engine.assignment import assign, assignee_label

    target = assign(run_id=a.run_id, actor=a.actor, assignee=a.to, verified=os_verified(a.actor))
    print(f"run {a.run_id} assigned to {assignee_label(target)}")
    return 0


def cmd_policy(a: argparse.Namespace) -> int:
    from engine.approval_policy import DEFAULT_POLICIES, get_policy, set_policy
    from engine.pipelines.registry import PIPELINES

    if a.policy_cmd == "set":
        roles = [r.strip() for r in a.roles.split(",") if r.strip()]
        policy = set_policy(actor=a.actor, kind=a.kind, roles=roles, approvals=a.approvals)
        print(f"policy set: {policy.describe()}")
        return 0
    kinds = [a.kind] if a.kind else sorted(set(PIPELINES) | set(DEFAULT_POLICIES))
    for kind in kinds:
        print(get_policy(kind).describe())
    return 0


def cmd_mcp_token(a: argparse.Namespace) -> int:
    from engine.mcp_token import create_token, list_tokens, revoke_token

    if a.token_cmd == "new":
        token = create_token(name=a.name, actor=a.actor)
        print(f"MCP token {a.name!r} (shown once; only its hash is stored):\n{token}")
    elif a.token_cmd == "revoke":
        revoke_token(name=a.name, actor=a.actor)
        print(f"MCP token {a.name!r} revoked")
    else:
        for t in list_tokens():
            print(f"{t.name}\t{'revoked' if t.revoked else 'active'}\tmade {t.created_at:%Y-%m-%d}"
                  f" by {t.created_by or '-'}")
    return 0


def register(sub: argparse._SubParsersAction,  # type: ignore[type-arg]
             actor: Callable[[argparse.ArgumentParser], None]) -> None:
    au = sub.add_parser("audit", help="check the tamper-evident audit trail")
    au_sub = au.add_subparsers(dest="audit_cmd", required=True, metavar="verify",
                              help="what to do with the trail")
    av = au_sub.add_parser("verify", help="recompute every act's hash; report the first "
                                          "broken link (exit 1)")
    av.add_argument("--run", dest="run_id", type=int, help="only this run")
    av.set_defaults(fn=cmd_audit_verify)

    asg = sub.add_parser("assign", help="assign a run to a person or a role (role:clinician)")
    asg.add_argument("run_id", type=int, help="the run's id (see `list`)")
    asg.add_argument("--to", required=True,
                     help='a name, or role:ROLE; "" takes the assignment away')
    actor(asg)
    asg.set_defaults(fn=cmd_assign)

    po = sub.add_parser("policy", help="approval policies per kind (who approves, how many)")
    po_sub = po.add_subparsers(dest="policy_cmd", required=True, metavar="{show,set}",
                              help="show or set a kind's policy")
    ps = po_sub.add_parser("show", help="each kind's policy")
    ps.add_argument("kind", nargs="?", help="protocol or campaign (default: every kind)")
    ps.set_defaults(fn=cmd_policy)
    pset = po_sub.add_parser("set", help="store a kind's policy (admins)")
    pset.add_argument("kind", help="protocol or campaign")
    pset.add_argument("--roles", required=True, help="comma-separated roles that may approve")
    pset.add_argument("--approvals", type=int, choices=[1, 2], default=1,
                      help="2: the two-person rule")
    actor(pset)
    pset.set_defaults(fn=cmd_policy)

    tk = sub.add_parser("mcp-token", help="bearer tokens for MCP over HTTP")
    tk_sub = tk.add_subparsers(dest="token_cmd", required=True, metavar="{new,revoke,list}",
                              help="make, revoke or list tokens")
    tn = tk_sub.add_parser("new", help="make a token (printed once)")
    tn.add_argument("name", help="recorded as the actor of acts done with it")
    actor(tn)
    tn.set_defaults(fn=cmd_mcp_token)
    tr = tk_sub.add_parser("revoke", help="stop accepting a token")
    tr.add_argument("name", help="the token's name (see `mcp-token list`)")
    actor(tr)
    tr.set_defaults(fn=cmd_mcp_token)
    tl = tk_sub.add_parser("list", help="token names and states (never the tokens)")
    tl.set_defaults(fn=cmd_mcp_token)
