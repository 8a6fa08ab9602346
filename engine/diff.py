"""Differences between two draft versions, as data: aligned rows with word-level spans for a
side-by-side view, a unified diff for an inline view, and line counts for a summary.
No rendering here; the pages decide how to draw (and escape) the spans."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Literal

SpanKind = Literal["equal", "insert", "delete"]
RowKind = Literal["equal", "insert", "delete", "replace", "skip"]

_TOKEN = re.compile(r"\s+|\w+|[^\w\s]")


@dataclass(frozen=True)
class Span:
    text: str
    kind: SpanKind


@dataclass(frozen=True)
class DiffRow:
    """One aligned row: the old line (left) and the new line (right); either may be absent.
    A "skip" row stands for `skipped` unchanged lines left out of a compact view."""

    kind: RowKind
    old_no: int | None = None
    new_no: int | None = None
    old: list[Span] = field(default_factory=list)
    new: list[Span] = field(default_factory=list)
    skipped: int = 0

    @property
    def inline(self) -> list[Span]:
        """The row as one line in reading order: deletions before the insertions that
        replace them (a "track changes" view)."""
        if self.kind != "replace":
            return self.old or self.new
        return word_diff(_text(self.old), _text(self.new))


@dataclass(frozen=True)
class DiffStats:
    added: int
    removed: int
    changed: int

    @property
    def identical(self) -> bool:
        return not (self.added or self.removed or self.changed)


def _text(spans: list[Span]) -> str:
    return "".join(s.text for s in spans)


def word_diff(old: str, new: str) -> list[Span]:
    """Word-level changes between two lines, in reading order."""
    a, b = _TOKEN.findall(old), _TOKEN.findall(new)
    out: list[Span] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            _add(out, "".join(a[i1:i2]), "equal")
        else:
            _add(out, "".join(a[i1:i2]), "delete")
            _add(out, "".join(b[j1:j2]), "insert")
    return out


def word_spans(old: str, new: str) -> tuple[list[Span], list[Span]]:
    """Word-level changes between two lines: spans for the old line and for the new one."""
    spans = word_diff(old, new)
    left: list[Span] = []
    right: list[Span] = []
    for s in spans:
        if s.kind != "insert":
            _add(left, s.text, s.kind)
        if s.kind != "delete":
            _add(right, s.text, s.kind)
    return left, right


def _add(spans: list[Span], text: str, kind: SpanKind) -> None:
    if not text:
        return
    if spans and spans[-1].kind == kind:
        spans[-1] = Span(spans[-1].text + text, kind)
    else:
        spans.append(Span(text, kind))


def _similar(old: str, new: str, cutoff: float = 0.45) -> bool:
    """Whether two lines share enough words for a word-level diff to help."""
    a, b = _TOKEN.findall(old), _TOKEN.findall(new)
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() >= cutoff


def side_by_side(old: str, new: str, *, context: int | None = 3) -> list[DiffRow]:
    """Aligned rows for two texts. Changed lines are paired (with word-level spans) as far as
    they go; the rest are pure deletions or insertions. With `context`, runs of unchanged
    lines longer than twice the context are folded into one "skip" row."""
    a, b = old.splitlines(), new.splitlines()
    rows: list[DiffRow] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            rows += [DiffRow("equal", i + 1, j + 1, [Span(a[i], "equal")], [Span(b[j], "equal")])
                     for i, j in zip(range(i1, i2), range(j1, j2), strict=True)]
            continue
        pairs = min(i2 - i1, j2 - j1) if op == "replace" else 0
        for k in range(pairs):
            old_line, new_line = a[i1 + k], b[j1 + k]
            if _similar(old_line, new_line):
                left, right = word_spans(old_line, new_line)
                rows.append(DiffRow("replace", i1 + k + 1, j1 + k + 1, left, right))
            else:  # a rewrite reads better as the old line out and the new line in
                rows.append(DiffRow("delete", i1 + k + 1, None, [Span(old_line, "delete")], []))
                rows.append(DiffRow("insert", None, j1 + k + 1, [], [Span(new_line, "insert")]))
        rows += [DiffRow("delete", i + 1, None, [Span(a[i], "delete")], [])
                 for i in range(i1 + pairs, i2)]
        rows += [DiffRow("insert", None, j + 1, [], [Span(b[j], "insert")])
                 for j in range(j1 + pairs, j2)]
    return _fold(rows, context) if context is not None else rows


def _fold(rows: list[DiffRow], context: int) -> list[DiffRow]:
    out: list[DiffRow] = []
    i = 0
    while i < len(rows):
        if rows[i].kind != "equal":
            out.append(rows[i])
            i += 1
            continue
        j = i
        while j < len(rows) and rows[j].kind == "equal":
            j += 1
        run = rows[i:j]
        head = context if i > 0 else 0
        tail = context if j < len(rows) else 0
        if len(run) > head + tail + 1:
            out += run[:head]
            out.append(DiffRow("skip", skipped=len(run) - head - tail))
            out += run[len(run) - tail:] if tail else []
        else:
            out += run
        i = j
    return out


def unified(old: str, new: str, *, from_label: str = "old", to_label: str = "new",
            context: int = 3) -> str:
    """A unified diff (the `diff -u` format) of two texts; empty when they are equal."""
    lines = difflib.unified_diff(old.splitlines(), new.splitlines(), fromfile=from_label,
                                 tofile=to_label, n=context, lineterm="")
    return "\n".join(lines)


def stats(old: str, new: str) -> DiffStats:
    rows = side_by_side(old, new, context=None)
    return DiffStats(
        added=sum(r.kind == "insert" for r in rows),
        removed=sum(r.kind == "delete" for r in rows),
        changed=sum(r.kind == "replace" for r in rows),
    )


__all__ = ["Span", "DiffRow", "DiffStats", "word_diff", "word_spans", "side_by_side", "unified",
           "stats"]
