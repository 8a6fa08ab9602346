"""How the safety screen cuts a text into sentences and normalises each before its rules run:
Markdown-aware units (headings, list items and table cells stand alone; soft-wrapped lines
are joined), spans into the original text, and a lower-cased copy without tags or Markdown
noise."""

from __future__ import annotations

import re
from functools import lru_cache

_MAX_UNIT = 2000  # a sentence longer than this (minified HTML, no punctuation) is cut up

# --------------------------------------------------------------------------- sentences

_MARKER_CHARS = frozenset("#>-*+\u2022\u2023\u25e60123456789[")
_LINE_PREFIX = re.compile(
    r"[ \t]*((?:>[ \t]?)*)[ \t]*"
    r"(#{1,6}[ \t]+|[-*+\u2022\u2023\u25e6][ \t]+|\d{1,3}[.)][ \t]+|[a-zA-Z]\)[ \t]+)?"
    r"(\[[ xX]\][ \t]+)?"
)
_BOUNDARY = re.compile(r"[.!?\u2026]+[\"'\u201d\u2019)\]*_]*(?=\s|$)|\|")
_LAST_TOKEN = re.compile(r"(\S+)$")
_ABBREV = frozenset(
    "e.g i.e eg ie etc dr mr mrs ms st vs approx prof jr sr mt no fig cf al a.m p.m incl min "
    "max".split()
)
_ABBREV_DOTTED = re.compile(r"(?:[a-z]\.)+[a-z]$")


def _blocks(text: str) -> list[tuple[int, int]]:
    """Markdown blocks as (start, end) spans: a heading, a list item, or a paragraph.

    A plain line continues the block above only when it is a soft wrap (it starts
    lower-case, or the line above ends mid-clause), so "Steps:" and the step under
    it stay separate sentences.
    """
    blocks: list[tuple[int, int]] = []
    cur_start = cur_end = -1  # -1: no open block
    cur_heading = False
    start = 0
    for line in text.split("\n"):
        line_start, start = start, start + len(line) + 1
        body = line.rstrip()
        if not body or body.isspace():
            if cur_start >= 0:
                blocks.append((cur_start, cur_end))
            cur_start = -1
            continue
        stripped_end = line_start + len(body)
        lead = len(body) - len(body.lstrip())
        first = body[lead]
        marker = None
        content_start = line_start + lead
        if first in _MARKER_CHARS or (len(body) > lead + 1 and body[lead + 1] == ")"):
            pm = _LINE_PREFIX.match(body)
            content_start = line_start + pm.end()
            marker = pm.group(2)
            if content_start >= stripped_end:  # only markers on the line
                if cur_start >= 0:
                    blocks.append((cur_start, cur_end))
                cur_start = -1
                continue
            first = text[content_start]
        if cur_start >= 0 and not marker and not cur_heading:
            if first.islower() or first.isdigit() or text[cur_end - 1] in ",(-\u2013\u2014&/":
                cur_end = stripped_end
                continue
        if cur_start >= 0:
            blocks.append((cur_start, cur_end))
        cur_start, cur_end = content_start, stripped_end
        cur_heading = bool(marker and marker.startswith("#"))
    if cur_start >= 0:
        blocks.append((cur_start, cur_end))
    return blocks


def _is_abbreviation(before: str) -> bool:
    tm = _LAST_TOKEN.search(before)
    if not tm:
        return False
    tok = tm.group(1).lower().lstrip("(\"'\u201c\u2018*_[")
    return tok in _ABBREV or len(tok) == 1 and tok.isalpha() or bool(_ABBREV_DOTTED.fullmatch(tok))


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans (start, end) with text[start:end] trimmed of surrounding space."""
    return list(_split(text))


@lru_cache(maxsize=512)
def _split(text: str) -> tuple[tuple[int, int], ...]:
    # Cached: a review cuts the same draft for the safety screen and again for the checks
    # that follow the text (request coverage drops the sentences that quote the request).
    spans: list[tuple[int, int]] = []
    for b_start, b_end in _blocks(text):
        seg_start = b_start
        for bm in _BOUNDARY.finditer(text, b_start, b_end):
            if bm.group(0) != "|":
                if _is_abbreviation(text[max(seg_start, bm.start() - 20):bm.start()]):
                    continue
                _add_span(text, seg_start, bm.end(), spans)
            else:
                _add_span(text, seg_start, bm.start(), spans)
            seg_start = bm.end()
        _add_span(text, seg_start, b_end, spans)
    return tuple(spans)


def _add_span(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end - start < 2 or not any(c.isalnum() for c in text[start:end]):
        return
    while end - start > _MAX_UNIT:
        cut = text.rfind(" ", start + _MAX_UNIT // 2, start + _MAX_UNIT)
        if cut <= start:
            cut = start + _MAX_UNIT
        spans.append((start, cut))
        start = cut
        while start < end and text[start].isspace():
            start += 1
    if end > start:
        spans.append((start, end))


# --------------------------------------------------------------------------- normalising

_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-",
                         "\u2014": " - ", "\u00a0": " ", "\u2011": "-"})
_TAGS = re.compile(r"<[^<>]{0,300}>")
_MD_NOISE = re.compile(r"[*_`~#>]+|&nbsp;")
_SPACES = re.compile(r"\s+")


def _normalise(sentence: str) -> str:
    s = sentence.lower().translate(_QUOTES)
    if "<" in s:
        s = _TAGS.sub(" ", s)
    s = _MD_NOISE.sub(" ", s)
    return _SPACES.sub(" ", s).strip()
