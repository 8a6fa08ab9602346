"""The command line. Every command goes through the same services the pages use."""

from __future__ import annotations

import argparse
import getpass
import json
import os
import sys
from typing import Any

from db.session import describe_database
from engine import service, views
from engine.errors import ApprovalBlocked, ServiceError
from engine.supervisor import StepEvent


def _actor_default() -> str:
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
    from engine.worker import Worker

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
    runs = views.list_runs(kind=a.kind, statuses=[a.status] if a.status else None, limit=a.limit)
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
    )
    d = views.get_run(a.run_id)
    print(f"approved v{d.draft(did).version}; run is {d.status}")  # type: ignore[union-attr]
    if d.status == "queued" and not a.no_wait:
        return _drive(a.run_id)
    return 0


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8", errors="replace") as fh:
        return fh.read()


def cmd_edit(a: argparse.Namespace) -> int:
    did = service.edit(run_id=a.run_id, actor=a.actor, content=_read(a.file))
    print(f"saved as draft {did}; re-scoring")
    return 0 if a.no_wait else _drive(a.run_id)


def cmd_revise(a: argparse.Namespace) -> int:
    service.request_revision(run_id=a.run_id, actor=a.actor, comment=a.comment)
    print("revision requested")
    return 0 if a.no_wait else _drive(a.run_id)


def cmd_reject(a: argparse.Namespace) -> int:
    service.reject(run_id=a.run_id, actor=a.actor, comment=a.comment)
    print("rejected")
    return 0


def cmd_halt(a: argparse.Namespace) -> int:
    status = service.halt(run_id=a.run_id, actor=a.actor, comment=a.comment)
    print("halted" if status == "awaiting_review" else "halt requested; it stops after this step")
    return 0


def cmd_retry(a: argparse.Namespace) -> int:
    service.retry(run_id=a.run_id, actor=a.actor)
    print("retrying")
    return 0 if a.no_wait else _drive(a.run_id)


def cmd_resume(a: argparse.Namespace) -> int:
    return _drive(a.run_id)


def cmd_screen(a: argparse.Namespace) -> int:
    from engine.checks.screen import screen

    result = screen(a.kind, _read(a.file))
    print(json.dumps(result, ensure_ascii=False))
    return 0


def cmd_worker(a: argparse.Namespace) -> int:
    import logging
    import signal
    import threading

    from engine.worker import Worker

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    w = Worker(poll_seconds=a.poll, on_event=_print_event if a.verbose else None)
    print(
        f"worker {w.worker_id} on {describe_database()} with {w.backend.name}:{w.backend.model}",
        flush=True,
    )
    if w.backend.name == "openai":  # realmodel: is OPENAI_MODEL on that server at all?
        from engine.llm.model_check import check_model

        print(check_model().message, flush=True)
    w.run_forever(stop, exit_when_idle=a.once)
    print(f"worker {w.worker_id} stopped after {w.runs_done} run(s)", flush=True)
    return 0


def cmd_migrate(_a: argparse.Namespace) -> int:
    from db.migrate import migrate

    migrate()
    print(f"database ready: {describe_database()}")
    return 0


def cmd_export(a: argparse.Namespace) -> int:
    from engine.export import export_markdown

    if a.format == "pdf":
        return _export_pdf(a)
    out = (
        export_markdown(a.run_id)
        if a.format == "md"
        else views.get_run(a.run_id).model_dump_json(indent=2)
    )
    print(out)
    return 0


def _export_pdf(a: argparse.Namespace) -> int:
    from engine.pdf_export import export_pdf

    path = a.output or f"run-{a.run_id}.pdf"
    data = export_pdf(a.run_id)
    with open(path, "wb") as fh:
        fh.write(data)
    print(f"wrote {path} ({len(data):,} bytes)")
    return 0


def cmd_mcp(a: argparse.Namespace) -> int:
    from engine.mcp_server import serve

    serve(http_port=a.http, worker=a.worker)
    return 0


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


def cmd_seed_demo(a: argparse.Namespace) -> int:
    from engine.seed_demo import seed_demo

    runs = a.runs or max(a.calls // 20, 1)
    print(f"seeding {a.calls:,} calls in {runs:,} runs into {describe_database()} ...", flush=True)
    r = seed_demo(calls=a.calls, runs=runs, big_run_calls=a.big_run_calls, seed=a.seed)
    print(
        f"added {r.runs:,} runs, {r.steps:,} steps, {r.calls:,} calls, {r.drafts:,} drafts "
        f"in {r.seconds:.1f} s"
        + (f"; run {r.big_run_id} has {a.big_run_calls} calls" if r.big_run_id else "")
    )
    return 0


def cmd_export_trace(a: argparse.Namespace) -> int:
    from engine import traces

    if a.send:
        status = traces.send_otlp(a.run_id, endpoint=a.endpoint)
        print(
            f"sent run {a.run_id}'s spans to {a.endpoint or traces.otlp_endpoint()} (HTTP {status})"
        )
        return 0
    if a.format == "jsonl":
        sys.stdout.write(traces.to_jsonl(a.run_id))
    elif a.format == "summary":
        print(json.dumps(traces.run_summary(a.run_id), indent=2, ensure_ascii=False, default=str))
    else:
        print(json.dumps(traces.to_otlp(a.run_id), ensure_ascii=False))
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m engine", description="Draftroom engine")
    sub = p.add_subparsers(dest="cmd", required=True)

    def actor(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--actor", default=_actor_default(), help="who is acting (default: $USER)")

    r = sub.add_parser("run", help="start a run and drive it to review")
    r.add_argument("kind")
    r.add_argument("--intent")
    r.add_argument("--audience")
    r.add_argument("--exercise-type", dest="exercise_type")
    r.add_argument("--input-json", help="the whole input as JSON (campaigns)")
    r.add_argument("--max-iterations", type=int)
    r.add_argument("--threshold", action="append", metavar="NAME=VALUE")
    r.add_argument("--budget", type=float, help="USD budget for this run")
    r.add_argument("--no-wait", action="store_true", help="queue it for a worker and return")
    actor(r)
    r.set_defaults(fn=cmd_run)

    ls = sub.add_parser("list", help="runs, newest first")
    ls.add_argument("--kind")
    ls.add_argument("--status")
    ls.add_argument("--limit", type=int, default=50)
    ls.set_defaults(fn=cmd_list)

    sh = sub.add_parser("show", help="a run with every version, scores, notes, flags")
    sh.add_argument("run_id", type=int)
    sh.add_argument("--json", action="store_true")
    sh.add_argument("--full", action="store_true", help="print every version's text")
    sh.set_defaults(fn=cmd_show)

    ap = sub.add_parser("approve")
    ap.add_argument("run_id", type=int)
    ap.add_argument("--version", type=int, help="draft version to approve (default: current)")
    ap.add_argument("--override", help="reason to approve despite open safety flags")
    ap.add_argument("--no-wait", action="store_true")
    actor(ap)
    ap.set_defaults(fn=cmd_approve)

    ed = sub.add_parser("edit", help="save a new version from FILE (or - for stdin)")
    ed.add_argument("run_id", type=int)
    ed.add_argument("file")
    ed.add_argument("--no-wait", action="store_true")
    actor(ed)
    ed.set_defaults(fn=cmd_edit)

    rv = sub.add_parser("revise", help="send back to the drafter with a comment")
    rv.add_argument("run_id", type=int)
    rv.add_argument("--comment", required=True)
    rv.add_argument("--no-wait", action="store_true")
    actor(rv)
    rv.set_defaults(fn=cmd_revise)

    rj = sub.add_parser("reject")
    rj.add_argument("run_id", type=int)
    rj.add_argument("--comment")
    actor(rj)
    rj.set_defaults(fn=cmd_reject)

    ht = sub.add_parser("halt")
    ht.add_argument("run_id", type=int)
    ht.add_argument("--comment")
    actor(ht)
    ht.set_defaults(fn=cmd_halt)

    rt = sub.add_parser("retry", help="retry a failed step")
    rt.add_argument("run_id", type=int)
    rt.add_argument("--no-wait", action="store_true")
    actor(rt)
    rt.set_defaults(fn=cmd_retry)

    rs = sub.add_parser("resume", help="drive a queued run (or one whose worker died) here")
    rs.add_argument("run_id", type=int)
    rs.set_defaults(fn=cmd_resume)

    sc = sub.add_parser("screen", help="deterministic checks of any text, JSON out")
    sc.add_argument("kind")
    sc.add_argument("file", help="a file, or - for stdin")
    sc.set_defaults(fn=cmd_screen)

    wk = sub.add_parser("worker", help="claim and drive queued runs")
    wk.add_argument("--poll", type=float, default=0.5)
    wk.add_argument("--once", action="store_true", help="exit when the queue is empty")
    wk.add_argument("--verbose", action="store_true")
    wk.set_defaults(fn=cmd_worker)

    mg = sub.add_parser("migrate", help="create or upgrade the database schema")
    mg.set_defaults(fn=cmd_migrate)

    ex = sub.add_parser("export", help="export a run")
    ex.add_argument("run_id", type=int)
    ex.add_argument("--format", choices=["md", "json", "pdf"], default="md")
    ex.add_argument("--output", "-o", help="where to write the PDF (default: run-ID.pdf)")
    ex.set_defaults(fn=cmd_export)

    mc = sub.add_parser("mcp", help="serve Draftroom over MCP (stdio, or HTTP on 127.0.0.1)")
    mc.add_argument("--http", type=int, metavar="PORT", help="streamable HTTP on this port")
    mc.add_argument("--worker", action="store_true", help="also drive queued runs here")
    mc.set_defaults(fn=cmd_mcp)

    br = sub.add_parser("branch", help="start a new run from a version of a run")
    br.add_argument("run_id", type=int)
    br.add_argument("--version", type=int, help="draft version to start from (default: current)")
    br.add_argument("--guidance", help="a note for the drafter, acted on first")
    br.add_argument("--max-iterations", type=int)
    br.add_argument("--threshold", action="append", metavar="NAME=VALUE")
    br.add_argument("--no-wait", action="store_true")
    actor(br)
    br.set_defaults(fn=cmd_branch)
    sd = sub.add_parser("seed-demo", help="add a realistic demo dataset (runs, steps, calls)")
    sd.add_argument("--calls", type=int, default=100_000, help="LLM calls to add")
    sd.add_argument("--runs", type=int, help="runs to spread them over (default: calls / 20)")
    sd.add_argument(
        "--big-run-calls",
        type=int,
        default=500,
        help="calls of one long run, for the Traces page (0: none)",
    )
    sd.add_argument("--seed", type=int, default=7, help="random seed")
    sd.set_defaults(fn=cmd_seed_demo)

    et = sub.add_parser("export-trace", help="a run's trace: JSONL events, summary, OTLP spans")
    et.add_argument("run_id", type=int)
    et.add_argument("--format", choices=["jsonl", "summary", "otlp"], default="jsonl")
    et.add_argument(
        "--send",
        action="store_true",
        help="POST the OTLP spans to the collector ($DRAFTROOM_OTLP_ENDPOINT)",
    )
    et.add_argument("--endpoint", help="collector URL (default: $DRAFTROOM_OTLP_ENDPOINT)")
    et.set_defaults(fn=cmd_export_trace)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.fn(args) or 0)
    except ApprovalBlocked as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ServiceError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except json.JSONDecodeError as exc:
        print(f"error: --input-json is not valid JSON: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
