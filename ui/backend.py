"""What the sidebar and the Start page say about the active LLM backend."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from urllib.parse import urlparse

import streamlit as st

from engine.config import settings

OFFLINE_TEXT = "Offline backend: deterministic templates and rules, no model calls"


@dataclass(frozen=True)
class BackendInfo:
    name: str
    model: str
    offline: bool
    label: str
    """One sentence a user can read."""
    error: str | None = None


def _env_key() -> str:
    """A digest of the settings that choose the backend (the key itself is not kept)."""
    s = settings()
    raw = "\0".join(v or "" for v in
                    (s.backend, s.openai_api_key, s.openai_base_url, s.openai_model))
    return hashlib.sha256(raw.encode()).hexdigest()


@st.cache_resource(show_spinner=False, max_entries=4)
def _describe(_key: str) -> BackendInfo:
    from engine.llm.factory import backend_from_env

    try:
        backend = backend_from_env()
    except Exception as exc:  # e.g. DRAFTROOM_BACKEND=openai without a key
        return BackendInfo("openai", "?", False, f"LLM backend not usable: {exc}", str(exc))
    if backend.name == "offline":
        return BackendInfo("offline", backend.model, True, OFFLINE_TEXT)
    base = settings().openai_base_url or ""
    where = urlparse(base).netloc or base if base else "api.openai.com"
    # At start: is OPENAI_MODEL on that server at all? (GET /models; a clear sentence if not.)
    from engine.llm.model_check import check_model

    check = check_model()
    return BackendInfo(backend.name, backend.model, False,
                       f"OpenAI-compatible backend: model {backend.model} at {where}"
                       + ("" if check.ok is not False else f". {check.message}"),
                       check.message if check.ok is False else None)


def backend_info() -> BackendInfo:
    return _describe(_env_key())
