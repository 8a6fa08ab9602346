"""Redaction of personal data and secrets before anything is stored or logged."""

from __future__ import annotations

import logging
import re
from typing import Any

from engine.config import settings

_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")
# Phone numbers: an optional +country code, then 7+ digits with common separators.
# It may end a sentence ("call 555-0134."), but not run on into a decimal ("3.1415926").
_PHONE = re.compile(r"(?<![\w.])(?:\+?\d{1,3}[\s.-]?)?(?:\(\d{2,4}\)[\s.-]?)?\d{3,4}[\s.-]?\d{3,4}"
                    r"(?:[\s.-]?\d{2,4})?(?!\w|\.\d)")
_API_KEY = re.compile(r"\bsk-[A-Za-z0-9_-]{8,}")


def _pii_enabled() -> bool:
    return settings().redact_pii


def _phone_like(match: re.Match[str]) -> str:
    digits = sum(ch.isdigit() for ch in match.group(0))
    return "[phone]" if digits >= 7 else match.group(0)


def redact_secrets_text(text: str) -> str:
    """API keys (the configured one, and anything shaped like one) out; everything else kept."""
    key = settings().openai_api_key
    if key and len(key) >= 8 and key in text:
        text = text.replace(key, "[api-key]")
    return _API_KEY.sub("[api-key]", text) if "sk-" in text else text  # the guard is cheaper


def redact_secrets(value: Any) -> Any:
    """redact_secrets_text on every string inside a JSON-like value."""
    if isinstance(value, str):
        return redact_secrets_text(value)
    if isinstance(value, dict):
        return {k: redact_secrets(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_secrets(v) for v in value]
    return value


# What a phone number is made of, seven characters or more. A phone match is one stretch of
# these characters, and only one with 7+ digits is redacted: a text with no such stretch
# (most drafts, even with "988" and step numbers in them) needs no pass of _PHONE at all.
_PHONE_STRETCH = re.compile(r"[\d(+][\d\s().+-]{6,}")


def _may_hold_phone(text: str) -> bool:
    return any(sum(ch.isdigit() for ch in m.group(0)) >= 7 for m in _PHONE_STRETCH.finditer(text))


def redact_text(text: str) -> str:
    """Secrets are always removed; emails and phone numbers unless DRAFTROOM_REDACT_PII=0."""
    text = redact_secrets_text(text)
    if _pii_enabled():
        # Cheap guards first: most texts hold no "@" and nothing shaped like a phone number.
        if "@" in text:
            text = _EMAIL.sub("[email]", text)
        if _may_hold_phone(text):
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


def _redacting_factory(make: Any) -> Any:
    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = make(*args, **kwargs)
        try:
            message = record.getMessage()
        except Exception:  # a malformed log call: leave it to logging to report
            return record
        clean = redact_text(message)
        if clean != message:
            record.msg, record.args = clean, ()
        return record

    factory._draftroom_redacting = True  # type: ignore[attr-defined]
    return factory


def install_log_redaction() -> None:
    """Redact every log record of the process (ours, and any library's that quotes a request
    or an error body) as it is made, whatever handler writes it later. Idempotent."""
    current = logging.getLogRecordFactory()
    if not getattr(current, "_draftroom_redacting", False):
        logging.setLogRecordFactory(_redacting_factory(current))
