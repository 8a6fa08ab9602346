"""Commands about runs and their review: run, list, show, approve, edit, revise, reject, halt,
retry, resume, branch. Each goes through the same services the pages use."""

from __future__ import annotations

import argparse
import getpass
import json
import os
import sys
from typing import Any

from engine import run_list, service, views
from engine.errors import ServiceError
from engine.interfaces.cli.governance import os_verified
from engine.loop.steps import StepEvent


def actor_default() -> str:
    try:
        return os.environ.get("DRAFTROOM_USER") or getpass.getuser()
    except Exception:
        return "cli"


def _print_event(e: StepEvent) -> None:
    if e.status == "started":
        return
    line = f"[{e.stage} it {e.iteration}] step {e.seq} {e.node}: {e.status}"
    print(line + (f" - {e.detail}" if e.detail else ""), flush=True)


def _fmt_scores(scores: dict[str, float]) -> str:
    return " ".join(f"{k}={v:.2f}" for k, v in sorted(scores.items())) or "-"


def _drive(run_id: int) -> int:
    """Run the loop here, in this process, until the run waits for a person."""
    from engine.loop.worker import Worker

    worker = Worker(on_event=_print_event)
    status = worker.run_given(run_id)
    if status is None:
        print(f"run {run_id} is being worked on elsewhere (or not queued); see `show`.")
        return 0
    d = views.get_run(run_id)
    print(f"status: {d.status}" + (f" ({d.halt_reason})" if d.halt_reason else ""))
    if d.error:
        print(f"error: {d.error}")
    cur = d.current
    if cur:
        print(
            f"latest: v{cur.version} by {cur.author}: {_fmt_scores(cur.scores)}"
            + (f"; {len(cur.flags)} flag(s)" if cur.flags else "")
        )
    if d.best_draft_id and d.best_draft_id != d.current_draft_id and d.draft(d.best_draft_id):
        print(f"best: v{d.draft(d.best_draft_id).version}")  # type: ignore[union-attr]
    return 0 if d.status != "failed" else 3


def cmd_run(a: argparse.Namespace) -> int:
    data: dict[str, Any] = json.loads(a.input_json) if a.input_json else {}
    for key in ("intent", "audience", "exercise_type"):
        if getattr(a, key, None):
            data[key] = getattr(a, key)
    params: dict[str, Any] = {}
    if a.max_iterations:
        params["max_iterations"] = a.max_iterations
    if a.threshold:
        params["thresholds"] = {k: float(v) for k, v in (t.split("=", 1) for t in a.threshold)}
    if a.budget is not None:
        params["budget_usd"] = a.budget
    run_id = service.start_run(kind=a.kind, input=data, params=params, actor=a.actor)
    print(f"run-id: {run_id}", flush=True)
    if a.no_wait:
        return 0
    return _drive(run_id)


def cmd_list(a: argparse.Namespace) -> int:
    runs = run_list.list_runs(kind=a.kind, statuses=[a.status] if a.status else None, limit=a.limit)
    # Newest first, as a person scanning a terminal expects.
    runs.sort(key=lambda r: r.created_at, reverse=True)
    print(f"{'id':>6}  {'kind':<9} {'status':<16} {'it':>2}  scores")
    for r in runs:
        flags = f"  flags={r.open_flags}" if r.open_flags else ""
        print(
            f"{r.id:>6}  {r.kind:<9} {r.status:<16} {r.iteration:>2}  "
            f"{_fmt_scores(r.scores)}{flags}"
            f"  {r.title[:60]}"
        )
    return 0


def cmd_show(a: argparse.Namespace) -> int:
    d = views.get_run(a.run_id)
    if a.json:
        print(d.model_dump_json(indent=2))
        return 0
    print(f"run {d.id} [{d.kind}] {d.title}")
    print(
        f"status: {d.status}"
        + (f" ({d.halt_reason})" if d.halt_reason else "")
        + f"  stage: {d.stage}  iteration: {d.iteration}/{d.max_iterations}  version: {d.version}"
    )
    print(f"thresholds: {_fmt_scores(d.thresholds)}  cost: ${d.cost_usd:.4f}")
    if d.error:
        print(f"error: {d.error}")
    for dr in d.drafts:
        marks = [
            m
            for m, i in (
                ("current", d.current_draft_id),
                ("best", d.best_draft_id),
                ("approved", d.approved_draft_id),
            )
            if i == dr.id
        ]
        print(
            f"\n== v{dr.version} [{dr.stage}] by {dr.author} ({dr.author_kind})"
            f" {_fmt_scores(dr.scores)} {' '.join('*' + m for m in marks)}"
        )
        for f in dr.flags:
            print(f'   FLAG {f.category}: "{f.text}" [{f.start}:{f.end}]')
        if a.full or dr.id == d.current_draft_id:
            print(dr.content)
    if d.notes:
        print("\nnotes:")
        for n in d.notes:
            print(f"  [{n.priority}] {n.author} -> {n.target}: {n.text}")
    if d.actions:
        print("\naudit trail:")
        for act in d.actions:
            who = act.actor + ("" if act.verified else " (unverified)")
            print(
                f"  {act.at:%Y-%m-%d %H:%M:%S} {who} {act.action}"
                + (f": {act.comment}" if act.comment else "")
            )
    return 0


def _draft_id(run_id: int, version: int | None) -> int | None:
    if version is None:
        return None
    d = views.get_run(run_id)
    for dr in d.drafts:
        if dr.version == version:
            return dr.id
    raise ServiceError(f"run {run_id} has no version {version}")


def cmd_approve(a: argparse.Namespace) -> int:
    did = service.approve(
        run_id=a.run_id,
        actor=a.actor,
        draft_id=_draft_id(a.run_id, a.version),
        override_reason=a.override,
        verified=os_verified(a.actor),
    )
    d = views.get_run(a.run_id)
    print(f"approved v{d.draft(did).version}; run is {d.status}")  # type: ignore[union-attr]
    if d.status == "awaiting_review":
        from engine.approval_policy import waiting_line

        print(waiting_line(a.run_id, did))
    if d.status == "queued" and not a.no_wait:
        return _drive(a.run_id)
    return 0


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8", errors="replace") as fh:
        return fh.read()


def cmd_edit(a: argparse.Namespace) -> int:
    did = service.edit(run_id=a.run_id, actor=a.actor, content=_read(a.file),
                       verified=os_verified(a.actor))
    print(f"saved as draft {did}; re-scoring")
    return 0 if a.no_wait else _drive(a.run_id)


def cmd_revise(a: argparse.Namespace) -> int:
    service.request_revision(run_id=a.run_id, actor=a.actor, comment=a.comment,
                             verified=os_verified(a.actor))
    print("revision requested")
    return 0 if a.no_wait else _drive(a.run_id)


def cmd_reject(a: argparse.Namespace) -> int:
    service.reject(run_id=a.run_id, actor=a.actor, comment=a.comment,
                   verified=os_verified(a.actor))
    print("rejected")
    return 0


def cmd_halt(a: argparse.Namespace) -> int:
    status = service.halt(run_id=a.run_id, actor=a.actor, comment=a.comment,
                          verified=os_verified(a.actor))
    print("halted" if status == "awaiting_review" else "halt requested; it stops after this step")
    return 0


def cmd_retry(a: argparse.Namespace) -> int:
    service.retry(run_id=a.run_id, actor=a.actor, verified=os_verified(a.actor))
    print("retrying")
    return 0 if a.no_wait else _drive(a.run_id)


def cmd_resume(a: argparse.Namespace) -> int:
    return _drive(a.run_id)


def cmd_branch(a: argparse.Namespace) -> int:
    from engine.branch import branch_run

    did = _draft_id(a.run_id, a.version) or views.get_run(a.run_id).current_draft_id
    params: dict[str, Any] = {}
    if a.max_iterations:
        params["max_iterations"] = a.max_iterations
    if a.threshold:
        params["thresholds"] = {k: float(v) for k, v in (t.split("=", 1) for t in a.threshold)}
    new_id = branch_run(
        run_id=a.run_id, draft_id=did or 0, actor=a.actor, params=params, guidance=a.guidance
    )
    print(f"run-id: {new_id} (branched from run {a.run_id})", flush=True)
    return 0 if a.no_wait else _drive(new_id)

