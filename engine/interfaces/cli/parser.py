"""The command line's parser: every command and option with its one line of help."""

from __future__ import annotations

import argparse

from engine.interfaces.cli import governance, ops, review


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m engine", description="Draftroom engine")
    sub = p.add_subparsers(dest="cmd", required=True)

    def actor(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--actor", default=review.actor_default(),
                        help="who is acting (default: $DRAFTROOM_USER or your login)")

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
    r.set_defaults(fn=review.cmd_run)

    ls = sub.add_parser("list", help="runs, newest first")
    ls.add_argument("--kind")
    ls.add_argument("--status")
    ls.add_argument("--limit", type=int, default=50)
    ls.set_defaults(fn=review.cmd_list)

    sh = sub.add_parser("show", help="a run with every version, scores, notes, flags")
    sh.add_argument("run_id", type=int)
    sh.add_argument("--json", action="store_true")
    sh.add_argument("--full", action="store_true", help="print every version's text")
    sh.set_defaults(fn=review.cmd_show)

    ap = sub.add_parser("approve")
    ap.add_argument("run_id", type=int)
    ap.add_argument("--version", type=int, help="draft version to approve (default: current)")
    ap.add_argument("--override", help="reason to approve despite open safety flags")
    ap.add_argument("--no-wait", action="store_true")
    actor(ap)
    ap.set_defaults(fn=review.cmd_approve)

    ed = sub.add_parser("edit", help="save a new version from FILE (or - for stdin)")
    ed.add_argument("run_id", type=int)
    ed.add_argument("file")
    ed.add_argument("--no-wait", action="store_true")
    actor(ed)
    ed.set_defaults(fn=review.cmd_edit)

    rv = sub.add_parser("revise", help="send back to the drafter with a comment")
    rv.add_argument("run_id", type=int)
    rv.add_argument("--comment", required=True)
    rv.add_argument("--no-wait", action="store_true")
    actor(rv)
    rv.set_defaults(fn=review.cmd_revise)

    rj = sub.add_parser("reject")
    rj.add_argument("run_id", type=int)
    rj.add_argument("--comment")
    actor(rj)
    rj.set_defaults(fn=review.cmd_reject)

    ht = sub.add_parser("halt")
    ht.add_argument("run_id", type=int)
    ht.add_argument("--comment")
    actor(ht)
    ht.set_defaults(fn=review.cmd_halt)

    rt = sub.add_parser("retry", help="retry a failed step")
    rt.add_argument("run_id", type=int)
    rt.add_argument("--no-wait", action="store_true")
    actor(rt)
    rt.set_defaults(fn=review.cmd_retry)

    rs = sub.add_parser("resume", help="drive a queued run (or one whose worker died) here")
    rs.add_argument("run_id", type=int)
    rs.set_defaults(fn=review.cmd_resume)

    sc = sub.add_parser("screen", help="deterministic checks of any text, JSON out")
    sc.add_argument("kind")
    sc.add_argument("file", help="a file, or - for stdin")
    sc.set_defaults(fn=ops.cmd_screen)

    wk = sub.add_parser("worker", help="claim and drive queued runs")
    wk.add_argument("--poll", type=float, default=0.5)
    wk.add_argument("--once", action="store_true", help="exit when the queue is empty")
    wk.add_argument("--verbose", action="store_true")
    wk.set_defaults(fn=ops.cmd_worker)

    mg = sub.add_parser("migrate", help="create or upgrade the database schema")
    mg.set_defaults(fn=ops.cmd_migrate)

    ex = sub.add_parser("export", help="export a run")
    ex.add_argument("run_id", type=int)
    ex.add_argument("--format", choices=["md", "json", "pdf"], default="md")
    ex.add_argument("--output", "-o", help="where to write the PDF (default: run-ID.pdf)")
    ex.set_defaults(fn=ops.cmd_export)

    mc = sub.add_parser("mcp", help="serve Draftroom over MCP (stdio, or HTTP on 127.0.0.1)")
    mc.add_argument("--http", type=int, metavar="PORT", help="streamable HTTP on this port")
    mc.add_argument("--worker", action="store_true", help="also drive queued runs here")
    mc.set_defaults(fn=ops.cmd_mcp)

    br = sub.add_parser("branch", help="start a new run from a version of a run")
    br.add_argument("run_id", type=int)
    br.add_argument("--version", type=int, help="draft version to start from (default: current)")
    br.add_argument("--guidance", help="a note for the drafter, acted on first")
    br.add_argument("--max-iterations", type=int)
    br.add_argument("--threshold", action="append", metavar="NAME=VALUE")
    br.add_argument("--no-wait", action="store_true")
    actor(br)
    br.set_defaults(fn=review.cmd_branch)
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
    sd.set_defaults(fn=ops.cmd_seed_demo)

    et = sub.add_parser("export-trace", help="a run's trace: JSONL events, summary, OTLP spans")
    et.add_argument("run_id", type=int)
    et.add_argument("--format", choices=["jsonl", "summary", "otlp"], default="jsonl")
    et.add_argument(
        "--send",
        action="store_true",
        help="POST the OTLP spans to the collector ($DRAFTROOM_OTLP_ENDPOINT)",
    )
    et.add_argument("--endpoint", help="collector URL (default: $DRAFTROOM_OTLP_ENDPOINT)")
    et.set_defaults(fn=ops.cmd_export_trace)
    governance.register(sub, actor)  # audit verify, assign, policy, mcp-token
    return p

