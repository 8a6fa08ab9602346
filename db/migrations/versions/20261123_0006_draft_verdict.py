"""draft.verdict: the critics' PASS/REVISE verdict on a version, where the loop kept it in the
run's params (`_last_verdicts`) before

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23 22:00:00

A run's params are what the person asked for (thresholds, prompts); the loop's bookkeeping
does not belong there. Existing runs' last verdicts move to their current draft.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSONType = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
RUN = sa.table("run", sa.column("id", sa.Integer), sa.column("params", JSONType),
               sa.column("current_draft_id", sa.Integer))
DRAFT = sa.table("draft", sa.column("id", sa.Integer), sa.column("verdict", sa.String))


def upgrade() -> None:
    with op.batch_alter_table("draft") as batch:
        batch.add_column(sa.Column("verdict", sa.String(length=16), nullable=True))
    bind = op.get_bind()
    for run_id, params, draft_id in bind.execute(sa.select(RUN.c.id, RUN.c.params,
                                                           RUN.c.current_draft_id)):
        if not isinstance(params, dict) or "_last_verdicts" not in params:
            continue
        verdicts = params.pop("_last_verdicts") or []
        bind.execute(sa.update(RUN).where(RUN.c.id == run_id).values(params=params))
        if draft_id is not None and verdicts:
            verdict = "PASS" if all(v == "PASS" for v in verdicts) else "REVISE"
            bind.execute(sa.update(DRAFT).where(DRAFT.c.id == draft_id).values(verdict=verdict))


def downgrade() -> None:
    with op.batch_alter_table("draft") as batch:
        batch.drop_column("verdict")
