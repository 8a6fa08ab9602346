"""`python -m engine intake`: the onboarding chat on the command line, for scripts and tests.
Reads the person's messages one per line from stdin and prints each reply; --json prints the
final card, the extraction records and every question the agent asked instead."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from engine.intake import service
from engine.intake.service import IntakeView


def register(sub: Any, actor: Any) -> None:
    ic = sub.add_parser("intake", help="plan a campaign in conversation (messages on stdin, one "
                        "per line)", description=__doc__)
    ic.add_argument("--brand", type=int, metavar="BRAND_ID",
                    help="an existing brand: only the campaign's fields are asked")
    ic.add_argument("--resume", type=int, metavar="INTAKE_ID", help="go on with an open chat")
    ic.add_argument("--json", action="store_true",
                    help="print the card, the extraction records and every question as JSON")
    ic.add_argument("--drive", action="store_true",
                    help="once confirmed, drive the campaign to its first review here")
    actor(ic)
    ic.set_defaults(fn=cmd_intake)


def _replies(view: IntakeView, after: int) -> list[str]:
    return [m.text for m in view.messages[after:] if m.role == "agent"]


def as_json(view: IntakeView) -> dict[str, Any]:
    return {
        "intake_id": view.id, "status": view.status, "brand_id": view.brand_id,
        "run_id": view.run_id, "card": view.values, "missing": view.missing,
        "records": [r.model_dump(mode="json") for r in view.records],
        "questions": [{"message_index": m.index, "asks": m.asks, "text": m.text}
                      for m in view.questions],
        "messages": [{"index": m.index, "role": m.role, "text": m.text,
                      **({"signal": m.signal} if m.signal else {})} for m in view.messages],
    }


def cmd_intake(args: argparse.Namespace) -> int:
    if args.resume:
        view = service.get_intake(args.resume)
    else:
        view = service.start_intake(actor=args.actor, brand_id=args.brand)
    if not args.json:
        print(f"[intake {view.id}]")
        for reply in _replies(view, 0 if not args.resume else len(view.messages) - 1):
            print(f"agent: {reply}", flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        if view.status != "open":
            print(f"error: the chat is finished (run {view.run_id}); ignoring: {line.strip()}",
                  file=sys.stderr)
            break
        before = len(view.messages)
        view = service.send_message(intake_id=view.id, text=line, actor=args.actor)
        if not args.json:
            print(f"you: {line.strip()}")
            for reply in _replies(view, before + 1):
                print(f"agent: {reply}", flush=True)
    if args.json:
        print(json.dumps(as_json(view), indent=1, ensure_ascii=False))
    if view.status != "open":
        if args.drive and view.run_id:
            from engine.interfaces.cli.review import _drive
            return _drive(view.run_id)
        return 0
    print(f"The chat is still open ({len(view.missing)} field(s) missing): go on with "
          f"`python -m engine intake --resume {view.id}`.", file=sys.stderr)
    return 1
