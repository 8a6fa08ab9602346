"""Bring the database schema up to date through Alembic (db/migrations/).

`migrate()` (`make migrate`, `python -m engine migrate`) upgrades to head. A database made by
`create_all` before migrations existed has no alembic_version table: it gets its missing tables
and is stamped, then upgraded. Migrations run in one transaction under a lock, so workers that
start together do not race: PostgreSQL takes an advisory lock, SQLite a write lock
(BEGIN IMMEDIATE). `on_start()` applies them on SQLite and checks them on PostgreSQL, where
migrating is a deliberate step (`make migrate`)."""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, event, inspect, text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import OperationalError
from sqlmodel import SQLModel

from db import intake_tables, models, team_tables  # noqa: F401  (registers every table on SQLModel.metadata)
from db.connect import SCHEMA_LOCK, database_url, make_engine

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
BASELINE = "0001"
"""The first revision: the schema `create_all` made before there were migrations."""
_PG_LOCK = 0x6472_6166  # "draf": one advisory lock id for every migrating process
log = logging.getLogger("draftroom.migrate")
_checked: set[str] = set()
_checked_lock = threading.Lock()


class SchemaOutOfDate(RuntimeError):
    """The database is behind the code and this process may not migrate it."""


def alembic_config() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


def head_revision() -> str:
    return ScriptDirectory.from_config(alembic_config()).get_current_head() or ""


def _set_sqlite_pragmas(dbapi_conn, _record) -> None:  # type: ignore[no-untyped-def]
    dbapi_conn.isolation_level = None  # we emit BEGIN ourselves (below)
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA busy_timeout=60000")
    # Batch migrations copy and drop tables; foreign keys would cascade or refuse.
    cur.execute("PRAGMA foreign_keys=OFF")
    cur.close()


def _migration_engine(url: str) -> Engine:
    """A private engine: SQLite gets one IMMEDIATE transaction (DDL included) per migration."""
    if not url.startswith("sqlite"):
        return make_engine(url)
    eng = create_engine(url, connect_args={"timeout": 60})
    event.listen(eng, "connect", _set_sqlite_pragmas)
    event.listen(eng, "begin", lambda conn: conn.exec_driver_sql("BEGIN IMMEDIATE"))
    return eng


def _lock(conn: Connection) -> None:
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_LOCK})


def current_revision(conn: Connection) -> str | None:
    return MigrationContext.configure(conn).get_current_revision()


def schema_diff(conn: Connection) -> list[object]:
    """What autogenerate would change to make the database match the models ([] = none)."""
    ctx = MigrationContext.configure(
        conn, opts={"compare_type": True, "include_name": models.described_by_models})
    return list(compare_metadata(ctx, SQLModel.metadata))


def _upgrade(conn: Connection, cfg: Config) -> None:
    tables = set(inspect(conn).get_table_names())
    ours = set(SQLModel.metadata.tables)
    if "alembic_version" not in tables and tables & ours:
        # Made by create_all: add what is missing, then say where it stands.
        SQLModel.metadata.create_all(conn)
        stamp = "head" if not schema_diff(conn) else BASELINE
        log.info("database made without migrations: stamped %s", stamp)
        command.stamp(cfg, stamp)
    command.upgrade(cfg, "head")


def _revision_at(url: str) -> str | None:
    """The database's revision, read without taking any lock (None: not migrated yet)."""
    eng = make_engine(url)
    try:
        with eng.connect() as conn:
            return current_revision(conn)
    finally:
        eng.dispose()


def migrate(url: str | None = None) -> str:
    """Upgrade the database at `url` (default DATABASE_URL) to head; returns the revision."""
    url = url or database_url()
    for attempt in range(5):
        try:
            return _migrate(url)
        except OperationalError as exc:
            # A brand-new SQLite file that several connections switch to WAL at once: SQLite
            # answers "locked" at once rather than waiting. The next try finds it in WAL.
            if "database is locked" not in str(exc) or attempt == 4:
                raise
            time.sleep(0.1 * (attempt + 1))
    raise AssertionError("unreachable")


def _migrate(url: str) -> str:
    head = head_revision()
    # Already at head (every start but the first): no write lock, so running workers are
    # never held up by one that restarts.
    if _revision_at(url) == head:
        with _checked_lock:
            _checked.add(url)
        return head
    eng = _migration_engine(url)
    cfg = alembic_config()
    try:
        # SCHEMA_LOCK: another thread creating a new engine's tables must not interleave.
        with SCHEMA_LOCK, eng.begin() as conn:
            _lock(conn)
            cfg.attributes["connection"] = conn
            _upgrade(conn, cfg)
            rev = current_revision(conn) or ""
    finally:
        eng.dispose()
    with _checked_lock:
        _checked.add(url)
    return rev


def on_start(url: str | None = None) -> None:
    """At process start: SQLite is migrated here; PostgreSQL must already be at head."""
    url = url or database_url()
    with _checked_lock:
        if url in _checked:
            return
    if url.startswith("sqlite"):
        migrate(url)
        return
    rev, head = _revision_at(url), head_revision()
    if rev != head:
        raise SchemaOutOfDate(
            f"The database is at schema revision {rev or 'none'}, the code needs {head}: "
            "run `make migrate` (python -m engine migrate) first.")
    with _checked_lock:
        _checked.add(url)


__all__ = ["migrate", "on_start", "schema_diff", "head_revision", "current_revision",
           "alembic_config", "SchemaOutOfDate"]
