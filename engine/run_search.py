"""Full-text search over run titles: the words of a query in any order, each matching a word
of the title or its start, with its endings ("exam panic" finds "...panic in the days before
exams"). The database does it, over every run, never a Python filter over a page of them:

- SQLite: an FTS5 index of run.title (porter stemmer) that triggers keep in step with the run
  table, whoever writes it;
- PostgreSQL: to_tsvector('english', title) against a prefix tsquery, with a GIN index.

The index and its triggers are db/search.py's."""

from __future__ import annotations

import re

from sqlalchemy import text
from sqlalchemy.sql.elements import TextClause

from db.models import RUN_SEARCH

MAX_WORDS = 12
_WORD = re.compile(r"\w+", re.UNICODE)


def words(query: str) -> list[str]:
    """The query's words, lower-cased, without punctuation or operators: what a person types
    is never read as FTS5 or tsquery syntax."""
    return [w.lower() for w in _WORD.findall(query)][:MAX_WORDS]


def title_matches(query: str, dialect: str) -> TextClause | None:
    """A WHERE clause on the run table for titles holding every word of `query` (a word may be
    the start of a title word); None when the query has no words."""
    found = words(query)
    if not found:
        return None
    if dialect == "postgresql":
        terms = " & ".join(f"{w}:*" for w in found)
        return text("to_tsvector('english', run.title) @@ to_tsquery('english', :terms)"
                    ).bindparams(terms=terms)
    terms = " ".join(f'"{w}"*' for w in found)
    return text(f"run.id IN (SELECT rowid FROM {RUN_SEARCH} WHERE {RUN_SEARCH} MATCH :terms)"
                ).bindparams(terms=terms)
