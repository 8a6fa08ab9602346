"""Commands for operators: screen, worker, migrate, export, mcp, seed-demo, export-trace."""

from __future__ import annotations

import argparse
import json
import sys

from db.session import describe_database
from engine import views
from engine.interfaces.cli.review import _print_event, _read


def cmd_screen(a: argparse.Namespace) -> int:
    from engine.checks.screen import screen

    result = screen(a.kind, _read(a.file))
    print(json.dumps(result, ensure_ascii=False))
    return 0


def cmd_worker(a: argparse.Namespace) -> int:
    import logging

    from engine.loop.worker import StopSignals, Worker

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    w = Worker(poll_seconds=a.poll, on_event=_print_event if a.verbose else None)
    stop = StopSignals(w, grace=a.grace).install().stop  # stream: finish steps, then exit
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


def cmd_serve(a: argparse.Namespace) -> int:
    from engine.interfaces.serve import serve

    return serve(port=a.port)


def cmd_migrate(_a: argparse.Namespace) -> int:
    from db.migrate import migrate

    migrate()
    print(f"database ready: {describe_database()}")
    return 0


def cmd_export(a: argparse.Namespace) -> int:
    """Text formats to stdout (or --output); a PDF to a file. A format this run's kind does
    not export as is refused, naming the ones it does."""
    from engine.exports.formats import MEDIA, export

    fmt = "markdown" if a.format == "md" else a.format
    data = export(views.get_run(a.run_id), fmt)
    if isinstance(data, str) and not a.output:
        sys.stdout.write(data if data.endswith("\n") else data + "\n")
        return 0
    path = a.output or f"run-{a.run_id}.{MEDIA[fmt][1]}"
    raw = data.encode() if isinstance(data, str) else data
    with open(path, "wb") as fh:
        fh.write(raw)
    print(f"wrote {path} ({len(raw):,} bytes)")
    return 0


def cmd_mcp(a: argparse.Namespace) -> int:
    from engine.interfaces.mcp_server import serve

    serve(http_port=a.http, worker=a.worker)
    return 0


def cmd_seed_demo(a: argparse.Namespace) -> int:
    from demo.seed import seed_demo

    runs = a.runs or max(a.calls // 20, 1)
    print(f"seeding {a.calls:,} calls in {runs:,} runs into {describe_database()} ...", flush=True)
    r = seed_demo(calls=a.calls, runs=runs, big_run_calls=a.big_run_calls, seed=a.seed)
    print(
        f"added {r.runs:,} runs, {r.steps:,} steps, {r.calls:,} calls, {r.drafts:,} drafts "
        f"in {r.seconds:.1f} s"
        + (f"; run {r.big_run_id} has {r.big_run_calls} calls" if r.big_run_id else "")
    )
    return 0


def cmd_export_trace(a: argparse.Namespace) -> int:
    from engine.exports import otlp, trace_events

    if a.send:
        status = otlp.send_otlp(a.run_id, endpoint=a.endpoint)
        print(
            f"sent run {a.run_id}'s spans to {a.endpoint or otlp.otlp_endpoint()} (HTTP {status})"
        )
        return 0
    if a.format == "jsonl":
        sys.stdout.write(trace_events.to_jsonl(a.run_id))
    elif a.format == "summary":
        summary = trace_events.run_summary(a.run_id)
        print(json.dumps(summary, indent=2, ensure_ascii=False, default=str))
    else:
        print(json.dumps(otlp.to_otlp(a.run_id), ensure_ascii=False))
    return 0

