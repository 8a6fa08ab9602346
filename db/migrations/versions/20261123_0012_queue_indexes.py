"""queue indexes: the review queue's page of runs by status and last update (covering), and
the people its reviewer filter lists (issue 15, pages at 50,000 runs)

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-24 01:45:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0012"
down_revision: str | Sequence[str] | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_run_status_updated", "run", ["status", "updated_at", "id"])
    op.create_index("ix_run_created_by", "run", ["created_by"])
    op.create_index("ix_humanaction_actor", "humanaction", ["actor"])


def downgrade() -> None:
    op.drop_index("ix_humanaction_actor", table_name="humanaction")
    op.drop_index("ix_run_created_by", table_name="run")
    op.drop_index("ix_run_status_updated", table_name="run")
