"""seeks: quick pairing's seeks

One row per open seek (``match_id`` null) or paired seek not yet told; at most one open seek per
player; pairing reads the oldest open seek of a pool.

Revision ID: seeks
Revises: deals
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "seeks"
down_revision: str | Sequence[str] | None = "deals"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "seeks",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("pool", sa.String(length=80), nullable=False),
        sa.Column("rules", sa.String(length=16), nullable=False),
        sa.Column("time_control", sa.JSON(), nullable=True),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("alive_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("match_id", sa.String(length=32), nullable=True),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_seeks_player_id_players"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_seeks")),
    )
    op.create_index(op.f("ix_seeks_alive_at"), "seeks", ["alive_at"])
    op.create_index("ix_seeks_pool_created_at", "seeks", ["pool", "created_at"])
    op.create_index(
        "uq_seeks_open_player",
        "seeks",
        ["player_id"],
        unique=True,
        sqlite_where=sa.text("match_id IS NULL"),
        postgresql_where=sa.text("match_id IS NULL"),
    )


def downgrade() -> None:
    op.drop_index("uq_seeks_open_player", table_name="seeks")
    op.drop_index("ix_seeks_pool_created_at", table_name="seeks")
    op.drop_index(op.f("ix_seeks_alive_at"), table_name="seeks")
    op.drop_table("seeks")
