"""clocks: a match's time control, clock, deadline and rematch

Revision ID: clocks
Revises: accounts
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = 'clocks'
down_revision: str | Sequence[str] | None = 'accounts'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('matches') as batch:
        batch.add_column(sa.Column('time_control', sa.JSON(), nullable=True))
        batch.add_column(sa.Column('clock', sa.JSON(), nullable=True))
        batch.add_column(sa.Column('deadline_at', sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column('rematch', sa.JSON(), nullable=True))
        batch.create_index('ix_matches_status_deadline', ['status', 'deadline_at'], unique=False)
        batch.create_index('ix_matches_status_created', ['status', 'created_at'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('matches') as batch:
        batch.drop_index('ix_matches_status_created')
        batch.drop_index('ix_matches_status_deadline')
        batch.drop_column('rematch')
        batch.drop_column('deadline_at')
        batch.drop_column('clock')
        batch.drop_column('time_control')
