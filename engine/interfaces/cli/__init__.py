"""The command line (`python -m engine ...`). Every command goes through the same services
the pages use: review.py holds the commands about runs, ops.py the operators' ones, parser.py
every option."""

from __future__ import annotations

import json
import sys

from engine.config import ConfigError
from engine.errors import ApprovalBlocked, ServiceError


def main(argv: list[str] | None = None) -> int:
    from engine.interfaces.cli.parser import build_parser

    args = build_parser().parse_args(argv)
    try:
        return int(args.fn(args) or 0)
    except ApprovalBlocked as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (ServiceError, ConfigError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except json.JSONDecodeError as exc:
        print(f"error: --input-json is not valid JSON: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
