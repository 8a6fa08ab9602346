"""Redaction of personal data and secrets before anything is stored or logged."""

from __future__ import annotations

import os
import re
from typing import Any

_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")
# Phone numbers: an optional +country code, then 7+ digits with common separators.
_PHONE = re.compile(r"(?<![\w.])(?:\+?\d{1,3}[\s.-]?)?(?:\(\d{2,4}\)[\s.-]?)?\d{3,4}[\s.-]?\d{3,4}(?:[\s.-]?\d{2,4})?(?![\w.])")
_API_KEY = re.compile(r"\bsk-[A-Za-z0-9_-]{8,}")


def _pii_enabled() -> bool:
    return os.environ.get("DRAFTROOM_REDACT_PII", "1").lower() not in ("0", "false", "no")


def _phone_like(match: re.Match[str]) -> str:
    digits = sum(ch.isdigit() for ch in match.group(0))
    return "[phone]" if digits >= 7 else match.group(0)


def redact_text(text: str) -> str:
    """Secrets are always removed; emails and phone numbers unless DRAFTROOM_REDACT_PII=0."""
    key = os.environ.get("OPENAI_API_KEY")
    if key and len(key) >= 8:
        text = text.replace(key, "[api-key]")
    text = _API_KEY.sub("[api-key]", text)
    if _pii_enabled():
        text = _EMAIL.sub("[email]", text)
        text = _PHONE.sub(_phone_like, text)
    return text


def redact(value: Any) -> Any:
    """Redact every string inside a JSON-like value."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {k: redact(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact(v) for v in value]
    return value
