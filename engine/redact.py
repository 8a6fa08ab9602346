"""Redaction of personal data and secrets before anything is stored or logged."""

from __future__ import annotations

import logging
import re
from functools import lru_cache
from typing import Any

from engine.config import setting

_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")
# Phone numbers: an optional +country code, then 7+ digits with common separators.
# It may end a sentence ("call 555-0134."), but not run on into a decimal ("3.1415926").
_PHONE = re.compile(r"(?<![\w.])(?:\+?\d{1,3}[\s.-]?)?(?:\(\d{1,4}\)[\s.-]?|\d{1,4}[\s.-])?"
                    r"\d{3,4}[\s.-]?\d{3,4}"
                    r"(?:[\s.-]?\d{2,4})?(?!\w|\.\d)")
_API_KEY = re.compile(r"\bsk-[A-Za-z0-9_-]{8,}")


def _pii_enabled() -> bool:
    return bool(setting("redact_pii"))


# Identifiers that end in digits ("worker-vm-1234567", "run_1234567", "id=4815162342"): the
# digits belong to a name, not a phone. Fixed width, as Python's look-behind must be.
_IN_IDENTIFIER = re.compile(r"\w[-_/=#]$")


@lru_cache(maxsize=1)
def _public_lines() -> re.Pattern[str]:
    """Every crisis line the desk knows (engine/checks/data/crisis_regions.toml), with any
    spacing: a service's public number, not a person's, so a reviewer's "add the
    TelefonSeelsorge, 0800 111 0 111" keeps it."""
    from engine.checks import crisis

    numbers = {re.sub(r"\D", "", n) for r in crisis.data().regions.values()
               for line in r.lines for n in line.numbers}
    return re.compile("|".join(r"(?<!\d)" + r"[\s\-.]?".join(d) + r"(?!\d)"
                               for d in sorted(numbers, key=len, reverse=True)))


def _in_public_line(text: str, start: int, end: int) -> bool:
    return any(m.start() < end and start < m.end() for m in _public_lines().finditer(text))


def _is_phone(text: str, start: int, number: str) -> bool:
    """Whether a stretch the phone pattern found is a phone number and not a pid, a decimal,
    a version, an identifier's digits or part of a crisis line: the pattern alone took all of
    those."""
    if sum(ch.isdigit() for ch in number) < 7:
        return False
    if _in_public_line(text, start, start + len(number)):
        return False
    if _IN_IDENTIFIER.search(text[max(0, start - 2):start]):
        return False
    if number.isdigit():
        # One unbroken run: a pid or a counter at 7-9 digits, a national number at 10+
        # ("4155550134"); a person who types a shorter number uses separators.
        return len(number) >= 10
    groups = number.split(".")
    if all(g.isdigit() for g in groups):
        # Digits and dots only: "3.1415926" (a decimal) and "2.10.1234567" (a version) are
        # not phones; "555.123.4567" is (every group after the first 2-4 digits long).
        return len(groups) >= 3 and all(2 <= len(g) <= 4 for g in groups[1:])
    return True


def _phone_sub(text: str) -> str:
    return _PHONE.sub(
        lambda m: "[phone]" if _is_phone(text, m.start(), m.group(0)) else m.group(0), text)


def _phone_like(match: re.Match[str]) -> str:
    """One match on its own (without the text around it), for tests of the guard."""
    return "[phone]" if _is_phone(match.string, match.start(), match.group(0)) else match.group(0)


def redact_secrets_text(text: str) -> str:
    """API keys (the configured one, and anything shaped like one) out; everything else kept."""
    key = setting("openai_api_key")
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
            text = _phone_sub(text)
    return text


def count_pii(text: str) -> dict[str, int]:
    """How many emails and phone numbers redact_text would replace in `text` (whatever the
    DRAFTROOM_REDACT_PII switch says)."""
    emails = len(_EMAIL.findall(text)) if "@" in text else 0
    without = _EMAIL.sub("[email]", text) if emails else text
    phones = (sum(_is_phone(without, m.start(), m.group(0)) for m in _PHONE.finditer(without))
              if _may_hold_phone(without) else 0)
    return {k: n for k, n in (("email", emails), ("phone", phones)) if n}


def redact_input(value: Any) -> tuple[Any, dict[str, int]]:
    """A run's input with secrets, emails and phone numbers replaced, and how many of each
    PII kind went: the input is stored redacted, so its title, the model's prompts, traces,
    exports, MCP answers and logs never see them. The count tells the person what was taken."""
    found: dict[str, int] = {}

    def walk(v: Any) -> Any:
        if isinstance(v, str):
            if _pii_enabled():
                for kind, n in count_pii(v).items():
                    found[kind] = found.get(kind, 0) + n
            return redact_text(v)
        if isinstance(v, dict):
            return {k: walk(x) for k, x in v.items()}
        if isinstance(v, list | tuple):
            return [walk(x) for x in v]
        return v

    return walk(value), found


def describe_redactions(found: dict[str, int]) -> str:
    """ "1 email address and 2 phone numbers", for the person who typed them."""
    names = {"email": ("email address", "email addresses"),
             "phone": ("phone number", "phone numbers")}
    parts = [f"{n} {names[k][n != 1]}" for k, n in found.items() if n and k in names]
    return " and ".join(parts)


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
