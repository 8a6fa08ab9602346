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


TITLE_MAX = 300
"""A run's title column holds this many characters (db.models.Run.title)."""


def run_title(text: str) -> str:
    """A run's title from its request: whole up to the column's 300 characters, so search
    and the queue's hover see all of it (lists cut it for show, ui/queue_view.short)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= TITLE_MAX else flat[:TITLE_MAX - 1].rstrip() + "…"



def similarity(old: str, new: str) -> float:
    """How much of `old` a person kept in `new`: difflib's ratio over the two texts, in
    [0, 1] (1.0 unchanged, near 0 rewritten). Kept on the person's version as
    Draft.edit_ratio, which the Calibration view averages (engine/calibration.py)."""
    import difflib

    if not old and not new:
        return 1.0
    return round(difflib.SequenceMatcher(None, old, new, autojunk=False).ratio(), 4)
