"""One database engine per process, from DATABASE_URL; short sessions."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import OperationalError, ProgrammingError
from sqlmodel import Session, SQLModel, create_engine

from db import models  # noqa: F401  (registers every table on SQLModel.metadata)
from engine.config import settings

DEFAULT_URL = "sqlite:///draftroom.db"


def database_url() -> str:
    return settings().database_url


def _sqlite_pragmas(dbapi_conn, _record) -> None:  # type: ignore[no-untyped-def]
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.execute("PRAGMA foreign_keys=ON")
    # NORMAL in WAL mode: a commit survives a process crash (the kill tests), and
    # only an OS crash can lose the last transactions.
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.close()


def make_engine(url: str) -> Engine:
    if url.startswith("sqlite"):
        eng = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})
        event.listen(eng, "connect", _sqlite_pragmas)
        return eng
    return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=10)


_ENGINES: dict[str, Engine] = {}
# One lock for everything that changes the schema in this process: creating the tables of a
# new engine and Alembic migrations (db/migrate.py) must not interleave.
SCHEMA_LOCK = threading.RLock()


def get_engine() -> Engine:
    """The process's engine for DATABASE_URL (created, with its tables, on first use)."""
    url = database_url()
    eng = _ENGINES.get(url)
    if eng is None:
        with SCHEMA_LOCK:
            eng = _ENGINES.get(url)
            if eng is None:
                eng = make_engine(url)
                _create_tables(eng)
                _ENGINES[url] = eng
    return eng


def _create_tables(eng: Engine) -> None:
    """A SQLite database is brought to the head migration (so a database made by an older
    release gets its new columns too); elsewhere missing tables are created, and migrating
    is the deliberate `make migrate`. Another process may be creating the same tables at the
    same moment (workers starting together): its "already exists" means the work is done."""
    if eng.dialect.name == "sqlite":
        from db.migrate import migrate  # db.migrate imports this module

        migrate(str(eng.url))
        return
    for attempt in range(3):
        try:
            SQLModel.metadata.create_all(eng)
            return
        except (OperationalError, ProgrammingError) as exc:
            if "already exists" not in str(exc) or attempt == 2:
                raise


def reset_engines() -> None:
    """Dispose cached engines (tests switch DATABASE_URL between databases)."""
    with SCHEMA_LOCK:
        for eng in _ENGINES.values():
            eng.dispose()
        _ENGINES.clear()


@contextmanager
def session_scope() -> Iterator[Session]:
    """A short session that commits on success and rolls back on error."""
    with Session(get_engine(), expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise


def connection_of(db: Session | Connection) -> Connection:
    """The connection to run a Core statement on, given a session or a connection (a hot
    path may hold a plain Core transaction, where a session would only add its overhead)."""
    return db.connection() if isinstance(db, Session) else db


def describe_database() -> str:
    """Human-readable database location without credentials."""
    url = get_engine().url
    if url.get_backend_name() == "sqlite":
        return f"SQLite: {url.database}"
    return f"{url.get_backend_name()}: {url.host}:{url.port}/{url.database}"
