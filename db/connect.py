"""How Draftroom connects: the database URL from the environment, an engine with SQLite's
pragmas, and the process's schema lock. Both the session (db/session.py) and the migrations
(db/migrate.py) build on it, so neither needs the other's internals."""

from __future__ import annotations

import threading

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlmodel import create_engine

from engine.config import setting

DEFAULT_URL = "sqlite:///draftroom.db"


def database_url() -> str:
    return str(setting("database_url"))


def _sqlite_pragmas(dbapi_conn, _record) -> None:  # type: ignore[no-untyped-def]
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.execute("PRAGMA foreign_keys=ON")
    # NORMAL in WAL mode: a commit survives a process crash (the kill tests), and
    # only an OS crash can lose the last transactions.
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.close()


def _pool_size() -> int:
    """Connections a process keeps: a worker's drives each hold one while their run lasts
    (engine/loop/worker.py), and the heartbeat, the live draft and the calls' records take
    short ones beside them."""
    return max(int(setting("worker_concurrency")), int(setting("inapp_concurrency"))) + 4


def make_engine(url: str) -> Engine:
    size = _pool_size()
    # LIFO: the connection handed out is the one used last. On SQLite a connection drops its
    # whole page cache whenever another connection committed since it last read, so a run
    # started on one pooled connection and driven on another re-read every page twice per run;
    # reusing the warm one skips that (preads 3905 -> 967 over 70 runs of `make bench`).
    if url.startswith("sqlite"):
        # An in-memory database is one connection per thread (SingletonThreadPool): no sizes.
        pool = {} if url in ("sqlite://", "sqlite:///:memory:") else {
            "pool_size": size, "max_overflow": size, "pool_use_lifo": True}
        eng = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30},
                            **pool)
        event.listen(eng, "connect", _sqlite_pragmas)
        return eng
    return create_engine(url, pool_pre_ping=True, pool_size=size, max_overflow=size,
                         pool_use_lifo=True)


# One lock for everything that changes the schema in this process: creating the tables of a
# new engine and Alembic migrations (db/migrate.py) must not interleave.
SCHEMA_LOCK = threading.RLock()
