"""Shared fixtures. No test talks to a real model: the offline backend, a scripted fake
model, or the local fake OpenAI-compatible server (tests/fake_openai.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

# Never let a test reach a real model, whatever the developer's shell has set.
for _var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"):
    os.environ.pop(_var, None)
os.environ["DRAFTROOM_BACKEND"] = "offline"

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"


@pytest.fixture
def db_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A fresh SQLite database file for one test, as DATABASE_URL."""
    from db.session import reset_engines

    url = f"sqlite:///{tmp_path / 'draftroom.db'}"
    monkeypatch.setenv("DATABASE_URL", url)
    reset_engines()
    yield url
    reset_engines()


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
