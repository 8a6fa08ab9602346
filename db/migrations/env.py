"""Alembic environment: the schema is SQLModel.metadata (every table in db/models.py); the
database is the connection db/migrate.py hands over, else DATABASE_URL."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import context
from sqlmodel import SQLModel

import db.intake_tables  # noqa: F401  (the chat's tables)
import db.models  # noqa: F401  (registers every table on SQLModel.metadata)
import db.team_tables  # noqa: F401  (the team's tables)
from db.connect import database_url, make_engine

config = context.config
target_metadata = SQLModel.metadata


def _render_item(kind: str, obj, autogen_context):  # type: ignore[no-untyped-def]
    # Alembic renders JSONB's astext_type as a bare `Text()`, which the migration cannot run.
    if kind == "type" and isinstance(obj, sa.JSON) and getattr(obj, "_variant_mapping", None):
        autogen_context.imports.add("from sqlalchemy.dialects import postgresql")
        return "sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), 'postgresql')"
    return False


def _configure(connection) -> None:  # type: ignore[no-untyped-def]
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        compare_type=True,
        render_item=_render_item,
        include_name=db.models.described_by_models,
        # SQLite cannot ALTER most things: batch mode copies the table instead.
        render_as_batch=connection.dialect.name == "sqlite",
    )


def run_offline() -> None:
    url = config.get_main_option("sqlalchemy.url") or database_url()
    context.configure(url=url, target_metadata=target_metadata, compare_type=True,
                      include_name=db.models.described_by_models,
                      render_as_batch=url.startswith("sqlite"), literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _configure(connection)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = make_engine(config.get_main_option("sqlalchemy.url") or database_url())
    try:
        with engine.connect() as conn:
            _configure(conn)
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
