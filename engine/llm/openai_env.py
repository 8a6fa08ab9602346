"""The openai backend's default model (its settings come from engine/config.py)."""

from __future__ import annotations

DEFAULT_MODEL = "gpt-4.1-mini"
