"""drop indexes their table's unique constraint (or another index) already covers, and one
no query uses

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22 12:10:00

draft.run_id, score.draft_id and step.run_id lead the unique constraints uq_draft_run_version,
uq_score_draft_name and uq_step_run_seq; run.created_at leads ix_run_ops. A lookup by the
column uses those as well; a second index on it only cost a page write at every insert.
llmcall.step_id is never looked up (a run's calls are read by run, ix_llmcall_run).
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COVERED = (
    ("draft", "ix_draft_run_id", "run_id"),
    ("score", "ix_score_draft_id", "draft_id"),
    ("step", "ix_step_run_id", "run_id"),
    ("run", "ix_run_created_at", "created_at"),
    ("llmcall", "ix_llmcall_step_id", "step_id"),
)


def upgrade() -> None:
    for table, index, _column in COVERED:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_index(index, if_exists=True)


def downgrade() -> None:
    for table, index, column in COVERED:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.create_index(index, [column], unique=False)
