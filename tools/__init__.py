"""Developer tools that run from the repository root (python -m tools.NAME); not part of the
runtime package."""
