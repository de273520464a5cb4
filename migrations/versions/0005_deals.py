"""deals: the deal scheme of each match

Matches created before deal schemes were dealt by Python's ``random.Random`` shuffle; they keep
that (``legacy``) so they replay exactly. New matches are written with ``sha256``.

Revision ID: deals
Revises: ratings
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "deals"
down_revision: str | Sequence[str] | None = "ratings"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("deal", sa.String(length=16), server_default="legacy", nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("deal")
