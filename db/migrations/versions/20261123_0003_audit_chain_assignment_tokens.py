"""audit chain (humanaction.prev_hash/hash, run.audit_head), run.assigned_to, apitoken

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23 22:00:00

Acts written before this revision are sealed here, run by run in id order, so an existing
trail verifies from the start (engine/audit_chain.py computes the same hashes).
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("run", schema=None) as batch_op:
        batch_op.add_column(sa.Column("assigned_to", sqlmodel.sql.sqltypes.AutoString(length=130),
                                      nullable=True))
        batch_op.add_column(sa.Column("audit_head", sqlmodel.sql.sqltypes.AutoString(length=64),
                                      nullable=True))
    with op.batch_alter_table("humanaction", schema=None) as batch_op:
        batch_op.add_column(sa.Column("prev_hash", sqlmodel.sql.sqltypes.AutoString(length=64),
                                      nullable=True))
        batch_op.add_column(sa.Column("hash", sqlmodel.sql.sqltypes.AutoString(length=64),
                                      nullable=True))
    op.create_table(
        "apitoken",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=120), nullable=False),
        sa.Column("token_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("created_by", sqlmodel.sql.sqltypes.AutoString(length=120), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("revoked", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
    )
    with op.batch_alter_table("apitoken", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_apitoken_token_hash"), ["token_hash"], unique=True)
    _seal_existing_acts()


def _seal_existing_acts() -> None:
    from engine.audit_chain import act_hash

    acts = sa.table("humanaction", sa.column("id", sa.Integer), sa.column("run_id", sa.Integer),
                    sa.column("draft_id", sa.Integer), sa.column("actor", sa.String),
                    sa.column("verified", sa.Boolean), sa.column("action", sa.String),
                    sa.column("comment", sa.String),
                    sa.column("at", sqlmodel.sql.sqltypes.UTCDateTime()),
                    sa.column("prev_hash", sa.String), sa.column("hash", sa.String))
    runs = sa.table("run", sa.column("id", sa.Integer), sa.column("audit_head", sa.String))
    bind = op.get_bind()
    heads: dict[int, str | None] = {}
    for a in bind.execute(sa.select(acts).order_by(acts.c.run_id, acts.c.id)):
        prev = heads.get(a.run_id)
        h = act_hash(run_id=a.run_id, draft_id=a.draft_id, actor=a.actor, verified=a.verified,
                     action=a.action, comment=a.comment, at=a.at, prev_hash=prev)
        bind.execute(acts.update().where(acts.c.id == a.id).values(prev_hash=prev, hash=h))
        heads[a.run_id] = h
    for run_id, head in heads.items():
        bind.execute(runs.update().where(runs.c.id == run_id).values(audit_head=head))


def downgrade() -> None:
    with op.batch_alter_table("apitoken", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_apitoken_token_hash"))
    op.drop_table("apitoken")
    with op.batch_alter_table("humanaction", schema=None) as batch_op:
        batch_op.drop_column("hash")
        batch_op.drop_column("prev_hash")
    with op.batch_alter_table("run", schema=None) as batch_op:
        batch_op.drop_column("audit_head")
        batch_op.drop_column("assigned_to")
