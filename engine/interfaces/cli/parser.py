"""The command line's parser: every command and option with its one line of help."""

from __future__ import annotations

import argparse

from engine.interfaces.cli import governance, intake, ops, review, team

RUN_ID = "the run's id (see `list`)"


def within(kind: type[int] | type[float], low: float, high: float):  # type: ignore[no-untyped-def]
    """An argparse type: a number in [low, high]; argparse names the option in its error."""

    def parse(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text} is outside {low:g} to {high:g}")
        return value

    return parse
NO_WAIT = "return at once; a worker (`worker`, or `make run`) drives the run"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m engine",
        description="Draftroom: drafts by teams of LLM agents, reviewed by people.",
        epilog="`python -m engine COMMAND --help` shows a command's options.")
    sub = p.add_subparsers(dest="cmd", required=True, metavar="COMMAND")

    def command(name: str, help: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help, description=help)

    def run_id(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("run_id", type=int, help=RUN_ID)

    def actor(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--actor", default=review.actor_default(),
                        help="who is acting (default: $DRAFTROOM_USER or your login)")

    def no_wait(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--no-wait", action="store_true", help=NO_WAIT)

    def loop_params(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--max-iterations", type=within(int, 1, 20),
                        help="draft/review rounds before it stops for a person (1-20)")
        sp.add_argument("--threshold", action="append", metavar="NAME=VALUE",
                        help="a score the draft must reach, 0 to 1 (e.g. safety=0.9); repeat")

    r = command("run", "start a run and drive it to review")
    r.add_argument("kind", help="what to draft: protocol or campaign")
    r.add_argument("--intent", help="a protocol's request, in the clinician's words")
    r.add_argument("--audience", help="who a protocol is for (e.g. university students)")
    r.add_argument("--exercise-type", dest="exercise_type",
                   help="a protocol's exercise type (e.g. breathing, thought record)")
    r.add_argument("--region", help="whose crisis lines (us, uk, ie, ca, au, nz, eu, de, fr); "
                                    "default: the clinic's, or a campaign brand's (Settings)")
    r.add_argument("--input-json", help="the whole input as JSON (campaigns)")
    loop_params(r)
    r.add_argument("--budget", type=within(float, 0, 100_000), help="USD budget for this run")
    no_wait(r)
    actor(r)
    r.set_defaults(fn=review.cmd_run)

    ls = command("list", "runs, newest first")
    ls.add_argument("--kind", help="only runs of this kind (protocol, campaign)")
    ls.add_argument("--status", help="only runs in this status (e.g. awaiting_review)")
    ls.add_argument("--limit", type=int, default=50, help="at most this many (default 50)")
    ls.set_defaults(fn=review.cmd_list)

    sh = command("show", "a run with every version, its scores, flags and notes")
    run_id(sh)
    sh.add_argument("--json", action="store_true", help="the whole run as JSON")
    sh.add_argument("--full", action="store_true", help="print every version's text")
    sh.set_defaults(fn=review.cmd_show)

    ap = command("approve", "approve a version (the last stage's approval finishes the run)")
    run_id(ap)
    ap.add_argument("--version", type=int, help="the version to approve (default: current)")
    ap.add_argument("--override", help="reason to approve despite open safety flags")
    no_wait(ap)
    actor(ap)
    ap.set_defaults(fn=review.cmd_approve)

    ed = command("edit", "save your text as a new version; the critics re-score it")
    run_id(ed)
    ed.add_argument("file", help="the new text: a file, or - for stdin")
    no_wait(ed)
    actor(ed)
    ed.set_defaults(fn=review.cmd_edit)

    rv = command("revise", "send the draft back to the drafter with a comment")
    run_id(rv)
    rv.add_argument("--comment", required=True, help="what to change")
    no_wait(rv)
    actor(rv)
    rv.set_defaults(fn=review.cmd_revise)

    rj = command("reject", "reject the run: nothing from it will be used")
    run_id(rj)
    rj.add_argument("--comment", help="why, for the audit trail")
    actor(rj)
    rj.set_defaults(fn=review.cmd_reject)

    ht = command("halt", "stop a running run after its current step, for review")
    run_id(ht)
    ht.add_argument("--comment", help="why, for the audit trail")
    actor(ht)
    ht.set_defaults(fn=review.cmd_halt)

    # -- stream (issue 16): a queued run called off before a worker takes it
    cn = command("cancel", "call off a queued run before any worker starts it")
    run_id(cn)
    cn.add_argument("--reason", required=True, help="why, for the audit trail (required)")
    actor(cn)
    cn.set_defaults(fn=review.cmd_cancel)
    # -- end stream

    rt = command("retry", "run a failed step again")
    run_id(rt)
    no_wait(rt)
    actor(rt)
    rt.set_defaults(fn=review.cmd_retry)

    rs = command("resume", "drive a queued run (or one whose worker's lease expired) here")
    run_id(rs)
    rs.set_defaults(fn=review.cmd_resume)

    bu = command("budget", "change a run's budget; a run stopped by its budget goes on")
    run_id(bu)
    bu.add_argument("--usd", type=within(float, 0, 100_000), help="the new budget in USD")
    bu.add_argument("--none", action="store_true", help="remove the run's budget")
    no_wait(bu)
    actor(bu)
    bu.set_defaults(fn=review.cmd_budget)

    br = command("branch", "start a new run from a version of a run")
    run_id(br)
    br.add_argument("--version", type=int, help="the version to start from (default: current)")
    br.add_argument("--guidance", help="a note for the drafter, acted on first")
    loop_params(br)
    no_wait(br)
    actor(br)
    br.set_defaults(fn=review.cmd_branch)

    sc = command("screen", "the deterministic checks on any text, as JSON")
    sc.add_argument("kind", help="which checks: protocol or campaign")
    sc.add_argument("file", help="a file, or - for stdin")
    sc.set_defaults(fn=ops.cmd_screen)

    wk = command("worker", "claim and drive queued runs until stopped")
    wk.add_argument("--poll", type=float, default=0.5,
                    help="seconds between looks at an empty queue (default 0.5)")
    wk.add_argument("--once", action="store_true", help="exit when the queue is empty")
    wk.add_argument("--verbose", action="store_true", help="print every step")
    wk.add_argument("--grace", type=float, default=30.0,  # stream: a stop finishes steps
                    help="on SIGTERM/SIGINT, seconds the runs in flight get to finish their "
                    "current step before the worker exits (default 30; a second signal: now)")
    wk.set_defaults(fn=ops.cmd_worker)

    sv = command("serve", "the app and a worker together, stopped together (`make run`)")
    sv.add_argument("--port", type=int, default=8501, help="the app's port (default 8501)")
    sv.set_defaults(fn=ops.cmd_serve)

    mg = command("migrate", "create or upgrade the database schema")
    mg.set_defaults(fn=ops.cmd_migrate)

    ex = command("export", "export a run: md, json, pdf, csv (a campaign's messages)")
    run_id(ex)
    ex.add_argument("--format", choices=["md", "json", "pdf", "csv"], default="md",
                    help="md (default), json; pdf: a protocol's handout or a campaign's "
                         "plan (DRAFT until approved); csv: a campaign's messages")
    ex.add_argument("--output", "-o",
                    help="write to this file (a PDF's default: run-ID.pdf; text: stdout)")
    ex.set_defaults(fn=ops.cmd_export)

    mc = command("mcp", "serve Draftroom over MCP (stdio, or HTTP on 127.0.0.1)")
    mc.add_argument("--http", type=int, metavar="PORT", help="streamable HTTP on this port")
    mc.add_argument("--worker", action="store_true", help="also drive queued runs here")
    mc.set_defaults(fn=ops.cmd_mcp)

    sd = command("seed-demo", "add a realistic demo dataset (runs, steps, calls)")
    sd.add_argument("--calls", type=int, default=100_000, help="LLM calls to add")
    sd.add_argument("--runs", type=int, help="runs to spread them over (default: calls / 20)")
    sd.add_argument("--big-run-calls", type=int, default=500,
                    help="calls of one long run, for the Traces page (0: none)")
    sd.add_argument("--seed", type=int, default=7, help="random seed")
    sd.set_defaults(fn=ops.cmd_seed_demo)

    et = command("export-trace", "a run's trace: JSONL events, summary, OTLP spans")
    run_id(et)
    et.add_argument("--format", choices=["jsonl", "summary", "otlp"], default="jsonl",
                    help="jsonl (default): one event per line; summary; otlp: spans as JSON")
    et.add_argument("--send", action="store_true",
                    help="POST the OTLP spans to the collector ($DRAFTROOM_OTLP_ENDPOINT)")
    et.add_argument("--endpoint", help="collector URL (default: $DRAFTROOM_OTLP_ENDPOINT)")
    et.set_defaults(fn=ops.cmd_export_trace)
    governance.register(sub, actor)  # audit verify, assign, policy, mcp-token
    team.register(sub, actor)  # team (issue 18): memory
    intake.register(sub, actor)  # intake: the onboarding chat (issue 18)
    return p
