"""Words, numbers and sections of a text, as the checks that follow the text compare them: a
light stemmer (plural, -ing, -ed and a final e go, so "riding" meets "ride" and "elevators"
meets "elevator"), content terms without function words, numbers without their thousands
separators, and the Markdown sections a draft is made of. The word lists are data
(engine/checks/data/coverage.toml)."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

_DATA = Path(__file__).with_name("data") / "coverage.toml"
_WORD = re.compile(r"[a-z][a-z'\-]*[a-z]|[a-z]")
_NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:[,\u202f ]\d{3})+(?![\d])|\d+(?:\.\d+)?(?:k\b)?")


@lru_cache(maxsize=1)
def data() -> dict[str, Any]:
    """The word lists and limits, read once (a broken file fails at the first check)."""
    with _DATA.open("rb") as f:
        return tomllib.load(f)


# The checks re-read the same texts many times per draft (a request against every sentence,
# a comment against every line, a version against its revision) and words repeat across
# drafts: the pure functions below cache their answers, so each distinct word is stemmed and
# each distinct text split into terms once. Bounded caches: a long-running worker's memory
# does not grow with the drafts it has seen.
@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    w = word.lower().strip("'-")
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) > 4 and w.endswith("ies"):
        w = w[:-3] + "y"
    elif len(w) > 4 and w.endswith(("sses", "xes", "ches", "shes")):
        w = w[:-2]
    elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if len(w) > 5 and w.endswith("ing"):
        w = w[:-3]
    elif len(w) > 4 and w.endswith("ed"):
        w = w[:-2]
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsaeiou":
        w = w[:-1]  # "cutt" (cutting) -> "cut", "stopp" -> "stop"
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    return w


@lru_cache(maxsize=8)
def word_set(key: str, sub: str | None = None) -> frozenset[str]:
    raw = data()[key] if sub is None else data()[key][sub]
    return frozenset(stem(w) for w in raw.split())


@lru_cache(maxsize=1)
def _synonym_of() -> dict[str, str]:
    out: dict[str, str] = {}
    for group in data()["synonyms"]:
        head = stem(group[0])
        for w in group:
            for part in re.split(r"[-\s]", w.lower()):
                out.setdefault(stem(part), head)
    return out


def canonical(term: str) -> str:
    """A term's synonym group (its first member), or the term itself."""
    return _synonym_of().get(term, term)


def words(text: str) -> list[str]:
    """The text's words, lower-cased and stemmed; hyphenated words count as their parts."""
    out: list[str] = []
    for w in _WORD.findall(text.lower()):
        out += [stem(p) for p in w.split("-") if p]
    return out


def terms(text: str, *generic: frozenset[str]) -> set[str]:
    """Content terms (canonical): words of three letters or more that are neither function
    words nor in any of the `generic` sets."""
    return set(_terms(text, generic))


@lru_cache(maxsize=4096)
def _terms(text: str, generic: tuple[frozenset[str], ...]) -> frozenset[str]:
    out: set[str] = set()
    for w in _WORD.findall(text.lower()):
        out.update(_word_terms(w, generic))
    return frozenset(out)


@lru_cache(maxsize=1 << 16)
def _word_terms(word: str, generic: tuple[frozenset[str], ...]) -> tuple[str, ...]:
    """The content terms one written word gives (`words` cuts it at hyphens): a text's terms
    are the union over its words, so each distinct word is judged once."""
    stop = word_set("stopwords")
    return tuple(canonical(w) for w in (stem(p) for p in word.split("-") if p)
                 if len(w) >= 3 and w not in stop and not any(w in g for g in generic))


def numbers(text: str) -> set[str]:
    """Numbers as written without separators: "1,800", "1800" and "1.8k" give "1800"."""
    out = set()
    for raw in _NUMBER.findall(text.lower()):
        n = re.sub(r"[,\u202f ]", "", raw)
        if n.endswith("k"):
            n = str(int(float(n[:-1]) * 1000))
        elif "." in n and n.endswith(".0"):
            n = n[:-2]
        out.add(n)
    return out


def number_list(text: str) -> list[str]:
    """Every number in order, as `numbers` writes them (so a changed or moved one shows)."""
    return [re.sub(r"[,\u202f ]", "", n) for n in _NUMBER.findall(text.lower())]


def has_phrase(text: str, phrases: list[str]) -> bool:
    low = " " + re.sub(r"\s+", " ", text.lower()) + " "
    return any(p in low for p in phrases)


@lru_cache(maxsize=4096)
def normalise(text: str) -> str:
    """For comparing versions: words only (Markdown, punctuation, list numbers and spacing
    do not make a revision)."""
    return " ".join(w for w in re.findall(r"[a-z0-9]+", text.lower()))


@dataclass(frozen=True)
class Section:
    heading: str
    """The heading's text without its #s ("" before the first heading)."""
    level: int
    body: str


def sections(text: str, level: int = 2) -> list[Section]:
    """The text cut at headings of `level` (deeper headings stay inside their section)."""
    out: list[Section] = []
    heading, lines = "", []
    for line in text.splitlines():
        m = re.match(r"(#{1,6})\s+(.*)", line)
        if m and len(m.group(1)) == level:
            out.append(Section(heading, level, "\n".join(lines)))
            heading, lines = m.group(2).strip(), []
        else:
            lines.append(line)
    out.append(Section(heading, level, "\n".join(lines)))
    return [s for s in out if s.heading or s.body.strip()]


def section(text: str, *names: str) -> str:
    """The body of the first level-2 section whose heading starts with one of `names`."""
    for s in sections(text):
        if any(s.heading.lower().startswith(n) for n in names):
            return s.body
    return ""


def list_items(body: str) -> list[str]:
    """The numbered or bulleted items of a section body."""
    return [m.group(1).strip() for m in re.finditer(r"(?m)^\s*(?:\d+[.)]|[-*+])\s+(.+)$", body)]


def table_rows(body: str) -> list[dict[str, str]]:
    """A Markdown table's rows as {header: cell}."""
    rows = [ln.strip() for ln in body.splitlines() if ln.strip().startswith("|")]
    if len(rows) < 2:
        return []
    head = [c.strip().lower() for c in rows[0].strip("|").split("|")]
    out = []
    for r in rows[2:]:
        cells = [c.strip() for c in r.strip("|").split("|")]
        out.append(dict(zip(head, cells, strict=False)))
    return out


__all__ = ["Section", "canonical", "data", "has_phrase", "list_items", "normalise", "number_list",
           "numbers", "section", "sections", "stem", "table_rows", "terms", "word_set", "words"]
