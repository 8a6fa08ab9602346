"""draft.edit_ratio: how much of its parent a person's version kept (the Calibration view)

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-24 01:40:00

Existing people's versions are measured once here, with the same function the edit service
uses from now on (engine.text.similarity).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from engine.text import similarity

revision: str = "0011"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DRAFT = sa.table("draft", sa.column("id", sa.Integer), sa.column("parent_id", sa.Integer),
                 sa.column("author_kind", sa.String), sa.column("content", sa.String),
                 sa.column("edit_ratio", sa.Float))


def upgrade() -> None:
    with op.batch_alter_table("draft") as batch:
        batch.add_column(sa.Column("edit_ratio", sa.Float(), nullable=True))
    bind = op.get_bind()
    parent = DRAFT.alias("parent")
    rows = bind.execute(
        sa.select(DRAFT.c.id, parent.c.content, DRAFT.c.content)
        .join(parent, parent.c.id == DRAFT.c.parent_id)
        .where(DRAFT.c.author_kind == "human")).all()
    for draft_id, old, new in rows:
        bind.execute(sa.update(DRAFT).where(DRAFT.c.id == draft_id)
                     .values(edit_ratio=similarity(old or "", new or "")))


def downgrade() -> None:
    with op.batch_alter_table("draft") as batch:
        batch.drop_column("edit_ratio")
