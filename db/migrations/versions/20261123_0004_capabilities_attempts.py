"""model capabilities and call attempts

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23 21:40:41

modelcapability: what a (server, model) accepts or refuses, learned once for every worker.
llmattempt: every HTTP request of a model call with its tokens and cost; llmcall gains the key
that groups them (call_key) and the reasoning tokens. Plain add_column on llmcall (no batch
copy): the Costs rollup's triggers on it must survive.
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes  # noqa: F401  (autogenerate renders AutoString, UTCDateTime)
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "modelcapability",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("base_url", sqlmodel.sql.sqltypes.AutoString(length=300), nullable=False),
        sa.Column("model", sqlmodel.sql.sqltypes.AutoString(length=120), nullable=False),
        sa.Column("feature", sqlmodel.sql.sqltypes.AutoString(length=48), nullable=False),
        sa.Column("supported", sa.Boolean(), nullable=False),
        sa.Column("detail", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("learned_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("base_url", "model", "feature", name="uq_capability"),
    )
    op.create_table(
        "llmattempt",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=True),
        sa.Column("call_key", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("outcome", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("mode", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("http_status", sa.Integer(), nullable=True),
        sa.Column("prompt_tokens", sa.Integer(), nullable=False),
        sa.Column("cached_tokens", sa.Integer(), nullable=False),
        sa.Column("completion_tokens", sa.Integer(), nullable=False),
        sa.Column("reasoning_tokens", sa.Integer(), nullable=False),
        sa.Column("cost_usd", sa.Float(), nullable=True),
        sa.Column("latency_ms", sa.Float(), nullable=False),
        sa.Column("error", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("started_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["run_id"],
            ["run.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("llmattempt", schema=None) as batch_op:
        batch_op.create_index("ix_llmattempt_run", ["run_id", "call_key"], unique=False)

    op.add_column(
        "llmcall", sa.Column("call_key", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True)
    )
    op.add_column(
        "llmcall",
        sa.Column("reasoning_tokens", sa.Integer(), nullable=False, server_default=sa.text("0")),
    )


def downgrade() -> None:
    with op.batch_alter_table("llmcall", schema=None) as batch_op:
        batch_op.drop_column("reasoning_tokens")
        batch_op.drop_column("call_key")

    with op.batch_alter_table("llmattempt", schema=None) as batch_op:
        batch_op.drop_index("ix_llmattempt_run")

    op.drop_table("llmattempt")
    op.drop_table("modelcapability")
