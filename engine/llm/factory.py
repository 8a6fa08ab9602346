"""Chooses the LLM backend from the environment: a real server when one is configured."""

from __future__ import annotations

import os

from engine.llm.base import LLMBackend


def backend_from_env() -> LLMBackend:
    """OpenAIBackend when OPENAI_API_KEY or OPENAI_BASE_URL is set, else the offline backend.

    DRAFTROOM_BACKEND=offline forces the offline backend even when a key is set;
    DRAFTROOM_BACKEND=openai forces the openai one (and fails clearly when it has no key).
    The openai backend shares what it learns of the server (json_schema refused, ...) through
    the database, so every worker and every later call goes straight to what works.
    """
    forced = os.environ.get("DRAFTROOM_BACKEND", "").strip().lower()
    configured = bool(
        os.environ.get("OPENAI_API_KEY", "").strip()
        or os.environ.get("OPENAI_BASE_URL", "").strip()
    )
    if forced == "openai" or (forced != "offline" and configured):
        from engine.llm.capabilities import Capabilities
        from engine.llm.openai_backend import OpenAIBackend

        backend = OpenAIBackend()
        backend.caps = Capabilities(backend.base_url, backend.model, db=True)
        return backend

    # Imported lazily: the offline backend pulls in the template library.
    from engine.llm.offline.backend import OfflineBackend

    return OfflineBackend()
