"""full-text search over run titles: an FTS5 index with its triggers (SQLite), a GIN index on
to_tsvector('english', title) (PostgreSQL)

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23 22:10:00

The queue's search matches words in any order (engine/run_search.py, db/search.py); the
SQLite index is filled from the runs already there.
"""

from collections.abc import Sequence

from alembic import op

from db import search

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    search.create(op.get_bind())


def downgrade() -> None:
    search.drop(op.get_bind())
