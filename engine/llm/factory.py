"""Chooses the LLM backend from the environment: a real server when one is configured."""

from __future__ import annotations

from engine.config import settings
from engine.llm.base import LLMBackend


def backend_from_env() -> LLMBackend:
    """OpenAIBackend when OPENAI_API_KEY or OPENAI_BASE_URL is set, else the offline backend.

    DRAFTROOM_BACKEND=offline forces the offline backend even when a key is set;
    DRAFTROOM_BACKEND=openai forces the openai one (and fails clearly when it has no key).
    The openai backend shares what it learns of the server (json_schema refused, ...) through
    the database, so every worker and every later call goes straight to what works.
    """
    s = settings()
    forced = s.backend
    configured = bool(s.openai_api_key or s.openai_base_url)
    if forced == "openai" or (forced != "offline" and configured):
        from engine.llm.capabilities import Capabilities
        from engine.llm.openai_backend import OpenAIBackend

        backend = OpenAIBackend()
        backend.caps = Capabilities(backend.base_url, backend.model, db=True)
        return backend

    # Imported lazily: the offline backend pulls in the template library.
    from engine.llm.offline.backend import OfflineBackend

    return OfflineBackend()
