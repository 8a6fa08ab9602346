"""rolechange: the trail of who gave or took away a role and who set an approval policy (the
Team page shows it; Role keeps only the current state)

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-24 01:25:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "rolechange",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("actor", sqlmodel.sql.sqltypes.AutoString(length=120), nullable=False),
        sa.Column("verified", sa.Boolean(), nullable=False),
        sa.Column("action", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("person", sqlmodel.sql.sqltypes.AutoString(length=120), nullable=True),
        sa.Column("role", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=True),
        sa.Column("detail", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_rolechange_at", "rolechange", ["at"])


def downgrade() -> None:
    op.drop_index("ix_rolechange_at", table_name="rolechange")
    op.drop_table("rolechange")
