"""Shared fixtures. No test talks to a real model: the offline backend, a scripted fake
model, or the local fake OpenAI-compatible server (testkit/fake_openai/)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

# Never let a test reach a real model, whatever the developer's shell has set.
for _var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"):
    os.environ.pop(_var, None)
os.environ["DRAFTROOM_BACKEND"] = "offline"
# No in-app worker thread from an AppTest: it would outlive its test and drive the next
# test's runs. Tests that want one start a Worker themselves; the browser tests' server
# turns it on (testkit/app_server.py).
os.environ["DRAFTROOM_INAPP_WORKER"] = "0"

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"


@pytest.fixture
def db_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A fresh SQLite database file for one test, as DATABASE_URL."""
    from db.session import reset_engines

    url = f"sqlite:///{tmp_path / 'draftroom.db'}"
    monkeypatch.setenv("DATABASE_URL", url)
    reset_engines()
    yield url
    reset_engines()


@pytest.fixture(autouse=True)
def _no_inapp_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test starts with the in-app worker off, whatever an earlier test left in the
    environment: a thread an AppTest starts outlives its test and follows DATABASE_URL into
    the next tests' databases, where it drove their runs with the offline backend."""
    monkeypatch.setenv("DRAFTROOM_INAPP_WORKER", "0")


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


# -- PostgreSQL (testkit/pg.py) and the sqlite|postgresql parametrised database ----------------


@pytest.fixture(scope="session")
def pg_server() -> Iterator[object]:
    """One throwaway PostgreSQL server for the session; skipped only when not installed."""
    from testkit.pg import start_server

    server, why = start_server()
    if server is None:
        pytest.skip(why)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def pg_template(pg_server) -> str:  # type: ignore[no-untyped-def]
    """A database migrated to head once; each test gets a copy (CREATE DATABASE ... TEMPLATE)."""
    from db.migrate import migrate

    url = pg_server.create_database(prefix="template")
    migrate(url)
    return url.rsplit("/", 1)[1]


@pytest.fixture
def pg_url(pg_server, pg_template: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:  # type: ignore[no-untyped-def]
    """A fresh PostgreSQL database at schema head for one test, as DATABASE_URL."""
    from db.session import reset_engines

    url = pg_server.create_database(template=pg_template)
    monkeypatch.setenv("DATABASE_URL", url)
    reset_engines()
    yield url
    reset_engines()
    pg_server.drop_database(url)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_any(request: pytest.FixtureRequest) -> str:
    """A fresh database for one test, once on SQLite and once on PostgreSQL, as DATABASE_URL."""
    name = "db_url" if request.param == "sqlite" else "pg_url"
    return str(request.getfixturevalue(name))


# -- the fake OpenAI-compatible server (testkit/fake_openai/) -----------------------------------


@pytest.fixture
def fake_openai_server() -> Iterator[object]:
    """A started FakeOpenAI on a free port, stopped after the test."""
    from testkit.fake_openai import running

    with running() as server:
        yield server
