"""The run title search's schema (engine/run_search.py queries it): on SQLite an FTS5 index of
run.title (porter stemmer) that triggers keep in step with the run table, whoever writes it; on
PostgreSQL a GIN index on to_tsvector('english', title). Migration 0007 creates them;
`ensure_search` re-creates the SQLite ones for a database that got its tables another way
(create_all, or a batch migration that rebuilt the run table and so dropped its triggers)."""

from __future__ import annotations

import threading

from sqlalchemy.engine import Connection, Engine

from db.models import RUN_SEARCH

_TRIGGERS = (f"{RUN_SEARCH}_ins", f"{RUN_SEARCH}_del", f"{RUN_SEARCH}_upd")
PG_INDEX = f"{RUN_SEARCH}_title"
_ready: set[str] = set()
_ready_lock = threading.Lock()


def sqlite_ddl() -> list[str]:
    """The FTS5 index over run.title and the triggers that keep it in step."""
    ins = f"INSERT INTO {RUN_SEARCH}(rowid, title) VALUES (new.id, new.title)"
    dele = (f"INSERT INTO {RUN_SEARCH}({RUN_SEARCH}, rowid, title) "
            "VALUES ('delete', old.id, old.title)")
    return [
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {RUN_SEARCH} USING fts5(title, content='run', "
        "content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')",
        f"CREATE TRIGGER IF NOT EXISTS {_TRIGGERS[0]} AFTER INSERT ON run BEGIN {ins}; END",
        f"CREATE TRIGGER IF NOT EXISTS {_TRIGGERS[1]} AFTER DELETE ON run BEGIN {dele}; END",
        f"CREATE TRIGGER IF NOT EXISTS {_TRIGGERS[2]} AFTER UPDATE OF title ON run "
        f"BEGIN {dele}; {ins}; END",
    ]


def pg_ddl() -> list[str]:
    return [f"CREATE INDEX IF NOT EXISTS {PG_INDEX} ON run "
            "USING gin (to_tsvector('english', title))"]


def create(conn: Connection) -> None:
    """Create the index (and on SQLite fill it from the runs there are)."""
    if conn.dialect.name == "sqlite":
        for stmt in sqlite_ddl():
            conn.exec_driver_sql(stmt)
        conn.exec_driver_sql(f"INSERT INTO {RUN_SEARCH}({RUN_SEARCH}) VALUES ('rebuild')")
    elif conn.dialect.name == "postgresql":
        for stmt in pg_ddl():
            conn.exec_driver_sql(stmt)


def drop(conn: Connection) -> None:
    if conn.dialect.name == "sqlite":
        for name in _TRIGGERS:
            conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {name}")
        conn.exec_driver_sql(f"DROP TABLE IF EXISTS {RUN_SEARCH}")
    elif conn.dialect.name == "postgresql":
        conn.exec_driver_sql(f"DROP INDEX IF EXISTS {PG_INDEX}")


def ensure_search(engine: Engine) -> None:
    """On SQLite, create the index and its triggers when any of them is missing (checked once
    per database per process)."""
    if engine.dialect.name != "sqlite" or str(engine.url) in _ready:
        return
    with _ready_lock, engine.begin() as conn:
        have = {r[0] for r in conn.exec_driver_sql(
            "SELECT name FROM sqlite_master WHERE name IN (?, ?, ?, ?)",
            (RUN_SEARCH, *_TRIGGERS))}
        if have != {RUN_SEARCH, *_TRIGGERS}:
            drop(conn)
            create(conn)
        _ready.add(str(engine.url))
