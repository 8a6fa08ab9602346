"""One reader for the Markdown blocks drafts are made of: headings and the sections they
open (with their offsets in the text), list items with their wrapped lines, paragraphs and
table rows. Every parser of drafts (protocol sections, campaign briefs and plans, the
shortlist, outreach messages, the PDF handout) reads through it, so "what counts as a
heading or a list item" is decided in one place: ATX headings with up to three spaces of
indentation, bullets (-, *, + or •) and numbered items (1. or 1)), pipe tables."""

from __future__ import annotations

import re
from dataclasses import dataclass

HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
NUMBERED = re.compile(r"^\s{0,3}(\d{1,9})[.)]\s+(.*)$")
BULLET = re.compile(r"^\s{0,3}[-*+\u2022]\s+(.*)$")
_SEPARATOR = re.compile(r":?-{2,}:?")


def heading(line: str) -> tuple[int, str] | None:
    """(level, title) when the line is a heading."""
    m = HEADING.match(line)
    return (len(m.group(1)), m.group(2)) if m and m.group(2) else None


def list_item(line: str) -> tuple[str, str] | None:
    """("ol" or "ul", the item's text) when the line starts a list item."""
    if m := NUMBERED.match(line):
        return "ol", m.group(2)
    if m := BULLET.match(line):
        return "ul", m.group(1)
    return None


@dataclass(frozen=True)
class Section:
    """A heading and the text under it, up to the next heading of the same or a higher
    level (level 0: the text before the first heading)."""

    level: int
    title: str
    start: int
    """Offset of the heading line in the text."""
    body_start: int
    end: int
    source: str

    @property
    def body(self) -> str:
        return self.source[self.body_start:self.end]

    @property
    def lines(self) -> list[str]:
        return self.body.split("\n")


def sections(text: str, max_level: int = 2) -> list[Section]:
    """The text cut at every heading of level `max_level` or higher (a lower-level heading
    stays inside its section's body). The first section is the lead (level 0), possibly
    empty."""
    cuts: list[tuple[int, str, int, int]] = [(0, "", 0, 0)]
    pos = 0
    for line in text.splitlines(keepends=True):
        h = heading(line.rstrip("\r\n"))
        if h and h[0] <= max_level:
            cuts.append((h[0], h[1], pos, pos + len(line)))
        pos += len(line)
    out = []
    for i, (level, title, start, body_start) in enumerate(cuts):
        end = cuts[i + 1][2] if i + 1 < len(cuts) else len(text)
        out.append(Section(level, title, start, body_start, end, text))
    return out


def find(secs: list[Section], *names: str, level: int = 2) -> Section | None:
    """The first section of `level` whose lower-case title contains one of `names`."""
    return next((s for s in secs if s.level == level
                 and any(n in s.title.lower() for n in names)), None)


def list_items(lines: list[str]) -> tuple[list[str], list[str], bool, bool]:
    """List items (an indented line continues the item above) and the other paragraphs:
    (items, paragraphs, any numbered, any bulleted)."""
    items: list[str] = []
    paragraphs: list[str] = []
    numbered = bulleted = False
    in_item = False
    para: list[str] = []
    for line in lines:
        found = list_item(line)
        if found:
            if para:
                paragraphs.append(" ".join(para))
                para = []
            numbered |= found[0] == "ol"
            bulleted |= found[0] == "ul"
            in_item = True
            items.append(found[1].strip())
        elif not line.strip():
            in_item = False
            if para:
                paragraphs.append(" ".join(para))
                para = []
        elif in_item and line.startswith((" ", "\t")):
            items[-1] = (items[-1] + " " + line.strip()).strip()
        else:
            in_item = False
            para.append(line.strip())
    if para:
        paragraphs.append(" ".join(para))
    return [i for i in items if i], [p for p in paragraphs if p], numbered, bulleted


def blocks(lines: list[str]) -> list[tuple[str, str | list[str]]]:
    """("p", text) | ("ol", items) | ("ul", items), in order; a wrapped line goes on with
    the item above it."""
    out: list[tuple[str, str | list[str]]] = []
    kind, items, para = "", [], []  # the list or paragraph being read

    def flush() -> None:
        nonlocal kind, items, para
        if items:
            out.append((kind, items))
        if para:
            out.append(("p", " ".join(para)))
        kind, items, para = "", [], []

    for raw in lines:
        line = raw.rstrip()
        found = list_item(line)
        if not line.strip():
            flush()
        elif found:
            if para or (items and kind != found[0]):
                flush()
            kind = found[0]
            items.append(found[1])
        elif items:
            items[-1] += " " + line.strip()
        else:
            para.append(line.strip())
    flush()
    return out


def paragraphs(lines: list[str]) -> list[str]:
    """Runs of non-blank lines, each stripped, joined by newlines."""
    out, cur = [], []
    for line in lines:
        if line.strip():
            cur.append(line.strip())
        elif cur:
            out.append("\n".join(cur))
            cur = []
    if cur:
        out.append("\n".join(cur))
    return out


def split_row(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def is_separator(cells: list[str]) -> bool:
    """A table's |---|:---:| line."""
    return all(_SEPARATOR.fullmatch(c) for c in cells if c)


def table_rows(body: str) -> list[list[str]]:
    """Data rows of the first pipe table in `body` (no header, no separator)."""
    rows: list[list[str]] = []
    header_seen = False
    for line in body.splitlines():
        line = line.strip()
        if not line.startswith("|"):
            if rows or header_seen:
                break
            continue
        cells = split_row(line)
        if is_separator(cells):
            continue
        if not header_seen:
            header_seen = True
            continue
        rows.append(cells)
    return rows
