"""Configuration in one place: engine/config.py reads the environment, nothing else does."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.config import ConfigError, settings

ROOT = Path(__file__).resolve().parents[1]


def test_only_the_settings_object_reads_the_environment() -> None:
    readers = []
    files = [ROOT / "app.py"]
    for d in ("engine", "db", "ui", "pages"):
        files += sorted((ROOT / d).rglob("*.py"))
    for path in files:
        text = path.read_text(encoding="utf-8")
        if re.search(r"os\.environ|os\.getenv|getenv\(", text):
            readers.append(str(path.relative_to(ROOT)))
    assert readers == ["engine/config.py"]


def test_a_changed_variable_is_seen_on_the_next_call(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DRAFTROOM_LEASE_SECONDS", "12.5")
    assert settings().lease_seconds == 12.5
    monkeypatch.setenv("DRAFTROOM_LEASE_SECONDS", "7")
    assert settings().lease_seconds == 7.0
    monkeypatch.setenv("DRAFTROOM_LEASE_SECONDS", "  ")  # blank: not set
    assert settings().lease_seconds == 30.0


def test_defaults_without_any_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DATABASE_URL", "DRAFTROOM_SERVER_ADDRESS", "DRAFTROOM_REDACT_PII"):
        monkeypatch.delenv(name, raising=False)
    s = settings()
    assert s.database_url == "sqlite:///draftroom.db"
    assert s.server_address == "127.0.0.1" and s.serves_loopback_only
    assert s.redact_pii is True


@pytest.mark.parametrize(("name", "value", "says"), [
    ("DRAFTROOM_LEASE_SECONDS", "-1", "DRAFTROOM_LEASE_SECONDS must be a number of seconds "
                                      "above 0, got '-1'"),
    ("DRAFTROOM_LLM_RETRIES", "many", "DRAFTROOM_LLM_RETRIES must be a whole number, 0 or more"),
    ("DRAFTROOM_BACKEND", "gpt", "DRAFTROOM_BACKEND must be auto, offline or openai, got 'gpt'"),
    ("DRAFTROOM_INAPP_WORKER", "maybe", "DRAFTROOM_INAPP_WORKER must be 1 or 0"),
])
def test_a_bad_value_names_the_variable_and_what_it_accepts(
        monkeypatch: pytest.MonkeyPatch, name: str, value: str, says: str) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError) as exc:
        settings()
    assert says in str(exc.value) and "Value error" not in str(exc.value)


def test_the_backend_switch_is_case_blind(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DRAFTROOM_BACKEND", " Offline ")
    assert settings().backend == "offline"


def test_one_setting_reads_only_its_variable_and_sees_changes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from engine.config import setting

    monkeypatch.setenv("DRAFTROOM_REDACT_PII", "0")
    monkeypatch.setenv("DRAFTROOM_LLM_RETRIES", "lots")  # another variable's bad value
    assert setting("redact_pii") is False
    monkeypatch.setenv("DRAFTROOM_REDACT_PII", "yes")
    assert setting("redact_pii") is True
    with pytest.raises(ConfigError, match="DRAFTROOM_LLM_RETRIES must be a whole number"):
        setting("llm_retries")
