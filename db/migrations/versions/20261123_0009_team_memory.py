"""teammessage and memorynamespace: the campaign team's messages and scoped memory (issue 18)

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-24 00:50:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSONType = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "teammessage",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("step_id", sa.Integer(), nullable=True),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("sender", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("recipient", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("stage", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("iteration", sa.Integer(), nullable=False),
        sa.Column("payload", JSONType, nullable=False),
        sa.Column("artifact", sqlmodel.sql.sqltypes.AutoString(length=80), nullable=True),
        sa.Column("draft_id", sa.Integer(), nullable=True),
        sa.Column("at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["draft_id"], ["draft.id"]),
        sa.ForeignKeyConstraint(["run_id"], ["run.id"]),
        sa.ForeignKeyConstraint(["step_id"], ["step.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_teammessage_run", "teammessage", ["run_id", "id"])
    op.create_table(
        "memorynamespace",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("scope_key", sqlmodel.sql.sqltypes.AutoString(length=160), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=True),
        sa.Column("person", sqlmodel.sql.sqltypes.AutoString(length=130), nullable=True),
        sa.Column("namespace", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("data", JSONType, nullable=False),
        sa.Column("sources", JSONType, nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("updated_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["run_id"], ["run.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("scope_key", "namespace", name="uq_memory_scope_namespace"),
    )


def downgrade() -> None:
    op.drop_table("memorynamespace")
    op.drop_index("ix_teammessage_run", table_name="teammessage")
    op.drop_table("teammessage")
