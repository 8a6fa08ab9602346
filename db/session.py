"""One database engine per process, from DATABASE_URL; short sessions."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import OperationalError, ProgrammingError
from sqlmodel import Session, SQLModel

from db import intake_tables, models, team_tables  # noqa: F401  (registers every table on SQLModel.metadata)
from db.connect import SCHEMA_LOCK, database_url, make_engine
from db.migrate import migrate

_ENGINES: dict[str, Engine] = {}


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
