"""Where the flags sit in a draft: the text cut into plain and flagged segments, so a page can
highlight the offending sentences without trusting offsets blindly."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


class FlagLike(Protocol):
    category: str
    text: str
    start: int
    end: int


@dataclass(frozen=True)
class Segment:
    text: str
    categories: tuple[str, ...] = ()
    """The flag categories covering this segment; empty for plain text."""

    @property
    def flagged(self) -> bool:
        return bool(self.categories)


def _locate(content: str, flag: FlagLike) -> tuple[int, int] | None:
    """The flag's span, trusting its offsets only when they still point at its text (a
    flag computed on another version, or on text cleaned differently, is found by search)."""
    if 0 <= flag.start < flag.end <= len(content) and content[flag.start:flag.end] == flag.text:
        return flag.start, flag.end
    if flag.text:
        at = content.find(flag.text)
        if at >= 0:
            return at, at + len(flag.text)
    return None


def segments(content: str, flags: list[FlagLike]) -> list[Segment]:
    """The content cut at every flag boundary; overlapping flags merge their categories.
    Joining the segments' texts gives the content back unchanged."""
    spans = [(span, f.category) for f in flags if (span := _locate(content, f))]
    if not spans:
        return [Segment(content)] if content else []
    cuts = sorted({0, len(content)} | {p for (s, e), _ in spans for p in (s, e)})
    out: list[Segment] = []
    for a, b in zip(cuts, cuts[1:], strict=False):
        cats = tuple(sorted({c for (s, e), c in spans if s <= a and b <= e}))
        if out and out[-1].categories == cats:
            out[-1] = Segment(out[-1].text + content[a:b], cats)
        else:
            out.append(Segment(content[a:b], cats))
    return out


def unlocated(content: str, flags: list[FlagLike]) -> list[FlagLike]:
    """Flags whose text is no longer in the content (shown as a list, not highlighted)."""
    return [f for f in flags if _locate(content, f) is None]


__all__ = ["Segment", "segments", "unlocated"]
