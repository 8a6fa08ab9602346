"""assigned index: the queue's "Assigned to me" reads its runs by one index seek instead of
every run (issue 15, the Queue at 50,000 runs: 16-24 ms -> under 1 ms)

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-24 14:00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0014"
down_revision: str | Sequence[str] | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_run_assigned_to", "run", ["assigned_to"])


def downgrade() -> None:
    op.drop_index("ix_run_assigned_to", table_name="run")
