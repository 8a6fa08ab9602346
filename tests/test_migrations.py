"""Schema changes go through Alembic: the migrations build exactly the models' schema (so a model
change without a migration fails here), on SQLite and PostgreSQL; old create_all databases are
stamped; workers starting together do not race."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import create_engine, inspect, text
from sqlmodel import SQLModel

from db.connect import make_engine
from db.migrate import (
    SchemaOutOfDate,
    alembic_config,
    current_revision,
    head_revision,
    migrate,
    on_start,
    schema_diff,
)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database (no tables at all)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'empty.db'}"
        return
    server = request.getfixturevalue("pg_server")
    url = server.create_database()
    yield url
    server.drop_database(url)


def _inspect(url: str):  # type: ignore[no-untyped-def]
    eng = make_engine(url)
    try:
        with eng.connect() as conn:
            return current_revision(conn), set(inspect(conn).get_table_names()), schema_diff(conn)
    finally:
        eng.dispose()


def test_migrations_build_exactly_the_models_schema(empty_url: str) -> None:
    """Autogenerate against the migrated database finds nothing to do: no drift. When this
    fails, a model changed without a migration: `alembic revision --autogenerate`."""
    assert migrate(empty_url) == head_revision()
    rev, tables, diff = _inspect(empty_url)
    assert rev == head_revision()
    assert set(SQLModel.metadata.tables) <= tables
    assert diff == [], f"models and migrations differ: {diff}"


def test_migrate_twice_is_a_no_op(empty_url: str) -> None:
    migrate(empty_url)
    assert migrate(empty_url) == head_revision()


def test_downgrade_to_nothing_and_back(empty_url: str) -> None:
    migrate(empty_url)
    eng = make_engine(empty_url)
    cfg = alembic_config()
    try:
        with eng.begin() as conn:
            cfg.attributes["connection"] = conn
            command.downgrade(cfg, "base")
        with eng.connect() as conn:
            assert set(inspect(conn).get_table_names()) <= {"alembic_version"}
    finally:
        eng.dispose()
    migrate(empty_url)
    assert _inspect(empty_url)[2] == []


def test_a_database_made_by_create_all_is_stamped_not_rebuilt(empty_url: str) -> None:
    eng = make_engine(empty_url)
    try:
        SQLModel.metadata.create_all(eng)
        with eng.begin() as conn:
            conn.execute(text("INSERT INTO role (person, role, granted_by, created_at) "
                              "VALUES ('dr. lee', 'admin', '', CURRENT_TIMESTAMP)"))
    finally:
        eng.dispose()
    assert migrate(empty_url) == head_revision()
    eng = make_engine(empty_url)
    try:
        with eng.connect() as conn:
            assert conn.execute(text("SELECT person FROM role")).scalar_one() == "dr. lee"
    finally:
        eng.dispose()


def test_an_old_create_all_database_gets_its_missing_tables(empty_url: str) -> None:
    eng = make_engine(empty_url)
    try:
        SQLModel.metadata.create_all(eng, tables=[SQLModel.metadata.tables["run"]])
    finally:
        eng.dispose()
    migrate(empty_url)
    rev, tables, diff = _inspect(empty_url)
    assert rev == head_revision() and "role" in tables and diff == []


def test_workers_starting_together_migrate_once(empty_url: str) -> None:
    with ThreadPoolExecutor(4) as pool:
        revs = list(pool.map(lambda _: migrate(empty_url), range(4)))
    assert revs == [head_revision()] * 4
    assert _inspect(empty_url)[2] == []


def test_on_start_migrates_sqlite(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'fresh.db'}"
    on_start(url)
    assert _inspect(url)[0] == head_revision()


@pytest.mark.postgres
def test_on_start_refuses_an_unmigrated_postgres_database(pg_server) -> None:  # type: ignore[no-untyped-def]
    url = pg_server.create_database()
    try:
        with pytest.raises(SchemaOutOfDate, match="make migrate"):
            on_start(url)
        migrate(url)
        on_start(url)  # at head: fine
    finally:
        pg_server.drop_database(url)


def test_the_cli_migrate_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    from db.session import reset_engines
    from engine.interfaces.cli import main

    url = f"sqlite:///{tmp_path / 'cli.db'}"
    monkeypatch.setenv("DATABASE_URL", url)
    reset_engines()
    try:
        assert main(["migrate"]) == 0
    finally:
        reset_engines()
    assert "database ready" in capsys.readouterr().out
    eng = create_engine(url)
    try:
        with eng.connect() as conn:
            assert current_revision(conn) == head_revision()
    finally:
        eng.dispose()
