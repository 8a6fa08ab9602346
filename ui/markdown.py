"""Markdown strings built from untrusted text (drafts, notes, titles) for st.markdown, which
renders them without unsafe_allow_html. Pure functions: the tests check them directly.

Untrusted text is never pasted into markup as is: every ASCII punctuation character is
backslash-escaped (CommonMark makes each one literal), so a draft cannot open a link, a
directive such as :red[...], a table cell or a heading where we put it."""

from __future__ import annotations

import re
import string

from engine.diff import DiffRow, Span
from engine.highlight import Segment

_PUNCT = frozenset(string.punctuation)
# A Markdown block marker at the start of a line (heading, list item, quote): kept outside a
# highlight so that "1. Do this" stays a list item when "Do this" is flagged.
_BLOCK_PREFIX = re.compile(r"^[ \t]*(?:#{1,6}[ \t]+|[-*+][ \t]+|\d{1,9}[.)][ \t]+|>[ \t]?)*")

HIGHLIGHT = {"delete": "red-background", "insert": "green-background", "flag": "red-background"}


def escape(text: str) -> str:
    """Text that renders literally: punctuation escaped, newlines kept as line breaks."""
    out = "".join("\\" + ch if ch in _PUNCT else ch for ch in text)
    return out.replace("\n", "  \n")


def escape_inline(text: str) -> str:
    """Text for one line of markup (a table cell, a label): punctuation escaped, newlines
    and tabs turned into spaces."""
    flat = text.replace("\r", " ").replace("\n", " ").replace("\t", "    ")
    return "".join("\\" + ch if ch in _PUNCT else ch for ch in flat)


def _mark(text: str, color: str, *, strike: bool = False) -> str:
    """Wrap escaped text in a highlight, leaving its outer whitespace outside (a directive
    around bare spaces draws nothing but an empty pill)."""
    core = text.strip()
    if not core:
        return text
    lead = text[: len(text) - len(text.lstrip())]
    trail = text[len(text.rstrip()):]
    body = f"~~{escape_inline(core)}~~" if strike else escape_inline(core)
    return f"{lead}:{color}[{body}]{trail}"


def flagged_draft(segments: list[Segment]) -> str:
    """The draft as Markdown with every flagged sentence highlighted. Plain segments keep
    their Markdown (st.markdown shows any raw HTML in them as text); a flagged segment is
    escaped and highlighted line by line, keeping a list or heading marker outside."""
    parts: list[str] = []
    at_line_start = True
    for seg in segments:
        if not seg.flagged:
            parts.append(seg.text)
        else:
            lines = seg.text.split("\n")
            out: list[str] = []
            for i, line in enumerate(lines):
                prefix = ""
                if at_line_start or i > 0:
                    prefix = _BLOCK_PREFIX.match(line).group(0)  # type: ignore[union-attr]
                out.append(prefix + _mark(line[len(prefix):], HIGHLIGHT["flag"]))
            parts.append("\n".join(out))
        if seg.text:
            at_line_start = seg.text.endswith("\n")
    return "".join(parts)


_HEADING = re.compile(r"^( {0,3})(#{1,6})(?=[ \t]|$)")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")


def demote_headings(markdown: str, by: int = 2) -> str:
    """Headings inside a draft rendered under the page's own title: "# Title" becomes a
    third-level heading (fenced code blocks are left alone)."""
    out: list[str] = []
    fenced = False
    for line in markdown.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            line = _HEADING.sub(lambda m: m.group(1) + "#" * min(6, len(m.group(2)) + by), line)
        out.append(line)
    return "\n".join(out)


def spans_markdown(spans: list[Span]) -> str:
    """One line of a diff: unchanged words plain, removals struck through in red,
    additions in green."""
    out: list[str] = []
    for s in spans:
        if s.kind == "equal":
            out.append(escape_inline(s.text))
        elif s.kind == "delete":
            out.append(_mark(s.text, HIGHLIGHT["delete"], strike=True))
        else:
            out.append(_mark(s.text, HIGHLIGHT["insert"]))
    return "".join(out)


def _cell(spans: list[Span]) -> str:
    return spans_markdown(spans) or " "  # a pipe is already escaped (GFM: a literal pipe)


def side_by_side_table(rows: list[DiffRow], *, left: str, right: str) -> str:
    """A two-column Markdown table: the older version left, the newer right, rows aligned."""
    lines = [f"| {escape_inline(left)} | {escape_inline(right)} |", "| --- | --- |"]
    for r in rows:
        if r.kind == "skip":
            note = f"*⋯ {r.skipped} unchanged line{'s' if r.skipped != 1 else ''}*"
            lines.append(f"| {note} | {note} |")
        else:
            lines.append(f"| {_cell(r.old)} | {_cell(r.new)} |")
    return "\n".join(lines)


def inline_diff(rows: list[DiffRow]) -> str:
    """The newer version in reading order with removed words struck out in red and added
    words in green ("track changes"). One paragraph line per draft line."""
    out: list[str] = []
    for r in rows:
        if r.kind == "skip":
            out.append(f"*⋯ {r.skipped} unchanged line{'s' if r.skipped != 1 else ''}*")
        else:
            out.append(spans_markdown(r.inline) or "\u00a0")
    return "  \n".join(out)
