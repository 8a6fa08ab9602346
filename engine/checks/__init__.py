"""Deterministic checks: they run on every draft, whoever wrote it, and bind the approval gate."""
