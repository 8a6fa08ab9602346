"""Draftroom's configuration: one settings object read from the environment, the variables
README's Configuration table lists. Nothing else in the code reads os.environ.

`settings()` re-reads the environment on every call, keyed on the raw values, so it costs
a dozen dictionary look-ups when nothing changed and a test that sets a variable (pytest's
monkeypatch) sees it on the next call, with nothing to clear. A bad value fails with a
ConfigError that names the variable, what it accepts and what it got.

(The settings a person changes in the app, stored in the database, are engine/ops_settings.py.)
This module imports nothing from Draftroom, so db/ can read the database URL from it too."""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

LOOPBACK = ("127.0.0.1", "localhost", "::1")


class ConfigError(ValueError):
    """A setting in the environment that cannot be used; the message says which and why."""


class Settings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore", populate_by_name=True)

    database_url: str = Field("sqlite:///draftroom.db", alias="DATABASE_URL")
    openai_api_key: str | None = Field(None, alias="OPENAI_API_KEY")
    openai_base_url: str | None = Field(None, alias="OPENAI_BASE_URL")
    openai_model: str | None = Field(None, alias="OPENAI_MODEL")
    backend: Literal["auto", "offline", "openai"] = Field("auto", alias="DRAFTROOM_BACKEND")
    llm_timeout: float = Field(60.0, gt=0, alias="DRAFTROOM_LLM_TIMEOUT")
    llm_retries: int = Field(3, ge=0, alias="DRAFTROOM_LLM_RETRIES")
    lease_seconds: float = Field(30.0, gt=0, alias="DRAFTROOM_LEASE_SECONDS")
    redact_pii: bool = Field(True, alias="DRAFTROOM_REDACT_PII")
    inapp_worker: bool = Field(True, alias="DRAFTROOM_INAPP_WORKER")
    worker_concurrency: int = Field(16, ge=1, le=256, alias="DRAFTROOM_WORKER_CONCURRENCY")
    """Runs one `python -m engine worker` drives at once (each mostly waits on the model)."""
    inapp_concurrency: int = Field(4, ge=1, le=256, alias="DRAFTROOM_INAPP_CONCURRENCY")
    """Runs the app's own worker thread drives at once: it shares the app's process."""
    serve_worker_pid: int | None = Field(None, alias="DRAFTROOM_SERVE_WORKER_PID")
    """Set by `make run` (serve) for the app it starts: the worker process it started beside
    it, so the app starts no worker of its own."""
    offline_stream_cps: float = Field(0.0, ge=0, alias="DRAFTROOM_OFFLINE_STREAM_CPS")
    """The offline drafter's answer streamed at this many characters a second (0: whole)."""
    pdf_font_dir: str | None = Field(None, alias="DRAFTROOM_PDF_FONT_DIR")
    otlp_endpoint: str | None = Field(None, alias="DRAFTROOM_OTLP_ENDPOINT")
    otlp_headers: str = Field("", alias="DRAFTROOM_OTLP_HEADERS")
    user: str | None = Field(None, alias="DRAFTROOM_USER")
    server_address: str = Field("127.0.0.1", alias="DRAFTROOM_SERVER_ADDRESS")
    """Where `make run` serves the app; anything but loopback needs sign-in ([auth])."""
    require_signin: bool | None = Field(None, alias="DRAFTROOM_REQUIRE_SIGNIN")
    """Force sign-in on (1) or off (0); unset: on when secrets.toml has [auth]."""
    mcp_token: str | None = Field(None, alias="DRAFTROOM_MCP_TOKEN")
    mcp_token_name: str | None = Field(None, alias="DRAFTROOM_MCP_TOKEN_NAME")

    @field_validator("backend", mode="before")
    @classmethod
    def _lower(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

    @property
    def serves_loopback_only(self) -> bool:
        return self.server_address in LOOPBACK


# What each variable accepts, for the message when its value does not parse.
EXPECTS = {
    "DRAFTROOM_BACKEND": "auto, offline or openai",
    "DRAFTROOM_LLM_TIMEOUT": "a number of seconds above 0",
    "DRAFTROOM_LLM_RETRIES": "a whole number, 0 or more",
    "DRAFTROOM_LEASE_SECONDS": "a number of seconds above 0",
    "DRAFTROOM_REDACT_PII": "1 or 0 (true/false, yes/no, on/off)",
    "DRAFTROOM_INAPP_WORKER": "1 or 0 (true/false, yes/no, on/off)",
    "DRAFTROOM_WORKER_CONCURRENCY": "a whole number from 1 to 256",
    "DRAFTROOM_INAPP_CONCURRENCY": "a whole number from 1 to 256",
    "DRAFTROOM_SERVE_WORKER_PID": "a process id (set by `make run`)",
    "DRAFTROOM_OFFLINE_STREAM_CPS": "a number of characters per second, 0 or more",
    "DRAFTROOM_REQUIRE_SIGNIN": "1 or 0 (true/false, yes/no), or unset",
}
VARIABLES = tuple(f.alias for f in Settings.model_fields.values() if f.alias)
ALIAS = {name: f.alias for name, f in Settings.model_fields.items() if f.alias}


def settings() -> Settings:
    """The settings as the environment says now (cached per distinct set of values)."""
    return _load(tuple(os.environ.get(name) for name in VARIABLES))


def setting(name: str) -> Any:
    """One setting, reading only its own variable: for the hot paths (redaction runs on every
    stored message, the lease on every heartbeat), where reading all of them would cost more
    than the work itself."""
    return _one(name, os.environ.get(ALIAS[name]))


def child_environment(extra: dict[str, str]) -> dict[str, str]:
    """This process's environment with `extra` set, for a child process (serve's app)."""
    return {**os.environ, **extra}


@lru_cache(maxsize=256)
def _one(name: str, value: str | None) -> Any:
    alias = ALIAS[name]
    return getattr(_load(tuple(value if v == alias else None for v in VARIABLES)), name)


@lru_cache(maxsize=16)
def _load(values: tuple[str | None, ...]) -> Settings:
    # An empty or blank variable means "not set", as a shell's `VAR= make run` intends.
    raw = {name: v.strip() for name, v in zip(VARIABLES, values, strict=True)
           if v is not None and v.strip()}
    try:
        return Settings.model_validate(raw)
    except ValidationError as exc:
        problems = []
        for err in exc.errors(include_url=False):
            name = str(err["loc"][0]) if err["loc"] else "?"
            expects = EXPECTS.get(name, err["msg"].removeprefix("Value error, "))
            problems.append(f"{name} must be {expects}, got {raw.get(name)!r}")
        raise ConfigError("; ".join(problems)) from None
