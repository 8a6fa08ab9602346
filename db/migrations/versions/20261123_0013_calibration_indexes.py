"""calibration indexes: what people did in a date window (covering), the people's own
versions by date, and a critic's prompt version in a run by one index seek (issue 15,
Calibration at 1,000,000 calls)

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-24 04:10:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0013"
down_revision: str | Sequence[str] | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_humanaction_at", "humanaction", ["at", "action", "draft_id"])
    op.create_index("ix_draft_author_kind", "draft", ["author_kind", "created_at"])
    op.create_index("ix_llmcall_run_agent", "llmcall", ["run_id", "agent", "prompt_version"])


def downgrade() -> None:
    op.drop_index("ix_llmcall_run_agent", table_name="llmcall")
    op.drop_index("ix_draft_author_kind", table_name="draft")
    op.drop_index("ix_humanaction_at", table_name="humanaction")
