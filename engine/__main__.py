"""`python -m engine ...`: the command line lives in engine/interfaces/cli.py."""

from engine.interfaces.cli import main

raise SystemExit(main())
