"""Commands about runs and their review: run, list, show, approve, edit, revise, reject, halt,
retry, resume, branch. Each goes through the same services the pages use."""

from __future__ import annotations

import argparse
import getpass
import json
import sys
from datetime import UTC, datetime
from typing import Any

from engine import run_list, service, views
from engine.config import settings
from engine.errors import InvalidInput, InvalidState, ServiceError
from engine.interfaces.cli.governance import os_verified
from engine.loop.steps import StepEvent
from engine.nothing_to_review import nothing_to_review
from engine.run_state import RunStatus, halt_label


def actor_default() -> str:
    try:
        return settings().user or getpass.getuser()
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
        return _not_driven(views.get_run(run_id))
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


def _not_driven(d: views.RunDetail) -> int:
    """Why this process could not drive the run: another process holds its lease (until
    when), or the run is not waiting for a worker at all. Either way, exit 1."""
    if d.status in ("queued", "running") and d.lease_owner and d.lease_expires:
        until = d.lease_expires if d.lease_expires.tzinfo else d.lease_expires.replace(tzinfo=UTC)
        left = (until - datetime.now(UTC)).total_seconds()
        print(f"run {d.id} is held by {d.lease_owner} until {until:%H:%M:%S} UTC "
              f"({max(0.0, left):.0f} s from now). If that process is gone, the lease expires "
              f"then and any worker (or `resume {d.id}` after it) takes the run over.",
              file=sys.stderr)
    else:
        print(f"run {d.id} is {d.status.replace('_', ' ')}: there is nothing to resume "
              "(a worker drives queued runs; see `show`).", file=sys.stderr)
    return 1


def parse_thresholds(values: list[str] | None) -> dict[str, float]:
    """--threshold NAME=VALUE, each VALUE a score between 0 and 1."""
    out: dict[str, float] = {}
    for given in values or []:
        name, sep, raw = given.partition("=")
        try:
            value = float(raw) if sep and name.strip() else None
        except ValueError:
            value = None
        if value is None or not 0.0 <= value <= 1.0:
            raise InvalidInput(f"--threshold takes NAME=VALUE with VALUE between 0 and 1 "
                               f"(e.g. --threshold safety=0.85); got {given!r}.",
                               {"--threshold": "NAME=VALUE, VALUE between 0 and 1"})
        out[name.strip()] = value
    return out


def cmd_run(a: argparse.Namespace) -> int:
    data: dict[str, Any] = json.loads(a.input_json) if a.input_json else {}
    for key in ("intent", "audience", "exercise_type", "region"):
        if getattr(a, key, None):
            data[key] = getattr(a, key)
    params: dict[str, Any] = {}
    if a.max_iterations:
        params["max_iterations"] = a.max_iterations
    if a.threshold:
        params["thresholds"] = parse_thresholds(a.threshold)
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
        if r.overridden:  # approved over them: not open, and not a clean approval either
            flags = f"  approved-with-override(flags={r.open_flags})"
        print(
            f"{r.id:>6}  {r.kind:<9} {r.status:<16} {r.iteration:>2}  "
            f"{_fmt_scores(r.scores)}{flags}"
            f"  {r.title[:60]}"
        )
    return 0


def cmd_show(a: argparse.Namespace) -> int:
    d = views.get_run(a.run_id)
    if a.json:  # with the team's messages and artifacts and the run's memory (issue 18)
        from engine.interfaces.cli.team import show_json

        print(json.dumps(d.model_dump(mode="json") | show_json(d.id), indent=2))
        return 0
    print(f"run {d.id} [{d.kind}] {d.title}")
    print(
        f"status: {d.status}"
        + (f" ({d.halt_reason})" if d.halt_reason else "")
        + f"  stage: {d.stage}  iteration: {d.iteration}/{d.max_iterations}  version: {d.version}"
    )
    if d.halt_reason and d.status == RunStatus.REVIEW:
        print(f"halted: {halt_label(d.halt_reason)}")
    print(f"thresholds: {_fmt_scores(d.thresholds)}  cost: ${d.cost_usd:.4f}")
    if d.kind == "campaign":  # -- camp8: the campaign's market, and why when it is the default --
        from engine.pipelines.campaign.market import market_line

        print(market_line(d.input))
    if d.error:
        print(f"error: {d.error}")
    empty = nothing_to_review(d)
    if empty:
        print(_with_commands(empty.sentence(), d))
    notes = _notes_by_draft(d)
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
            if f.category == "not_addressed":
                print(f'   NOT ADDRESSED: "{f.text}"')
            elif f.end <= f.start:  # a finding about the whole draft, not one sentence of it
                print(f"   {f.category.replace('_', ' ').upper()}: {f.text}")
            else:
                print(f'   FLAG {f.category}: "{f.text}" [{f.start}:{f.end}]')
        for n in notes.pop(dr.id, []):
            print(f"   note [{n.priority}] {n.author} -> {n.target}: {n.text}")
        if a.full or dr.id == d.current_draft_id:
            print(dr.content)
    if notes.get(None):
        print("\nnotes on the run (no version):")
        for n in notes[None]:
            print(f"   note [{n.priority}] {n.author} -> {n.target}: {n.text}")
    if d.actions:
        print("\naudit trail:")
        for act in d.actions:
            who = act.actor + ("" if act.verified else " (unverified)")
            print(
                f"  {act.at:%Y-%m-%d %H:%M:%S} {who} {act.action}"
                + (f": {act.comment}" if act.comment else "")
            )
    return 0


def _notes_by_draft(d: views.RunDetail) -> dict[int | None, list[views.NoteView]]:
    """Each note under the version it was written about (None: about the run)."""
    known = {dr.id for dr in d.drafts}
    out: dict[int | None, list[views.NoteView]] = {}
    for n in d.notes:
        out.setdefault(n.draft_id if n.draft_id in known else None, []).append(n)
    return out


def _with_commands(text: str, d: views.RunDetail) -> str:
    """The remedies as the commands that do them."""
    if d.halt_reason == "budget_reached":
        return (f"{text}\n  raise it:  python -m engine budget {d.id} --usd AMOUNT"
                f"\n  or:        python -m engine run {d.kind} ... --budget AMOUNT")
    return f"{text}\n  reject it: python -m engine reject {d.id} --comment REASON"


def _draft_id(run_id: int, version: int | None) -> int | None:
    if version is None:
        return None
    d = views.get_run(run_id)
    for dr in d.drafts:
        if dr.version == version:
            return dr.id
    raise ServiceError(f"run {run_id} has no version {version}")


def cmd_approve(a: argparse.Namespace) -> int:
    empty = nothing_to_review(views.get_run(a.run_id))
    if empty:
        raise InvalidState(_with_commands(empty.sentence(), views.get_run(a.run_id)))
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
    saved = views.get_run(a.run_id).draft(did)
    print(f"saved as version {saved.version if saved else '?'}; re-scoring")
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


# -- stream (issue 16): a queued run called off (engine/cancel.py)
def cmd_cancel(a: argparse.Namespace) -> int:
    from engine.cancel import cancel

    status = cancel(run_id=a.run_id, actor=a.actor, reason=a.reason,
                    verified=os_verified(a.actor))
    print("cancelled: " + ("rejected, it had no version" if status == "rejected"
                           else "its versions wait for review as they were"))
    return 0
# -- end stream


def cmd_retry(a: argparse.Namespace) -> int:
    service.retry(run_id=a.run_id, actor=a.actor, verified=os_verified(a.actor))
    print("retrying")
    return 0 if a.no_wait else _drive(a.run_id)


def cmd_resume(a: argparse.Namespace) -> int:
    return _drive(a.run_id)


def cmd_budget(a: argparse.Namespace) -> int:
    usd = None if a.none else a.usd
    if usd is None and not a.none:
        raise InvalidInput("budget takes --usd AMOUNT (or --none to remove the budget).")
    service.set_budget(run_id=a.run_id, actor=a.actor, budget_usd=usd,
                       verified=os_verified(a.actor))
    d = views.get_run(a.run_id)
    shown = "no budget" if usd is None else f"budget ${usd:,.4f}"
    print(f"run {d.id}: {shown}; it is {d.status.replace('_', ' ')}")
    return 0 if a.no_wait or d.status != "queued" else _drive(a.run_id)


def cmd_branch(a: argparse.Namespace) -> int:
    from engine.branch import branch_run

    did = _draft_id(a.run_id, a.version) or views.get_run(a.run_id).current_draft_id
    params: dict[str, Any] = {}
    if a.max_iterations:
        params["max_iterations"] = a.max_iterations
    if a.threshold:
        params["thresholds"] = parse_thresholds(a.threshold)
    new_id = branch_run(
        run_id=a.run_id, draft_id=did or 0, actor=a.actor, params=params, guidance=a.guidance
    )
    print(f"run-id: {new_id} (branched from run {a.run_id})", flush=True)
    return 0 if a.no_wait else _drive(new_id)

