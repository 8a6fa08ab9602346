"""Command line: python -m engine run|list|show|approve|edit|revise|reject|halt|retry|resume|
screen|worker|migrate|export|seed-demo."""

from engine.cli import main

raise SystemExit(main())
