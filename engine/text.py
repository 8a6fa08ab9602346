"""Text hygiene shared by every input path."""

from __future__ import annotations

import hashlib
import unicodedata


def clean_text(value: str) -> str:
    """Drop control characters (except newline and tab), normalise newlines, strip.
    Unicode letters, RTL text and emoji are kept as they are."""
    value = value.replace("\r\n", "\n").replace("\r", "\n")
    kept = (ch for ch in value if ch in "\n\t" or unicodedata.category(ch)[0] != "C"
            or unicodedata.category(ch) == "Cf")
    return "".join(kept).strip()


def content_hash(text: str) -> str:
    """A draft's fingerprint (stored with it; equal texts, equal hashes)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
