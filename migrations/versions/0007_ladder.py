"""ladder: bot accounts, the bot ladder's entries (ladder ratings) and its duplicate-deal pairs

Revision ID: ladder
Revises: seeks
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = "ladder"
down_revision: str | Sequence[str] | None = "seeks"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "bot_accounts",
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("owner", sa.String(length=80), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_bot_accounts_player_id_players"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("player_id", name=op.f("pk_bot_accounts")),
    )
    op.create_table(
        "ladder_entries",
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("reference", sa.Boolean(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("deviation", sa.Float(), nullable=False),
        sa.Column("volatility", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("enrolled_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_ladder_entries_player_id_players"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("player_id", name=op.f("pk_ladder_entries")),
    )
    op.create_table(
        "ladder_pairs",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("a_id", sa.String(length=32), nullable=False),
        sa.Column("b_id", sa.String(length=32), nullable=False),
        sa.Column("rules", sa.String(length=16), nullable=False),
        sa.Column("match0_id", sa.String(length=32), nullable=False),
        sa.Column("match1_id", sa.String(length=32), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("wins", sa.Integer(), nullable=True),
        sa.Column("points", sa.Integer(), nullable=True),
        sa.Column("score", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(
            ["a_id"], ["players.id"], name=op.f("fk_ladder_pairs_a_id_players"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["b_id"], ["players.id"], name=op.f("fk_ladder_pairs_b_id_players"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ladder_pairs")),
    )
    op.create_index("ix_ladder_pairs_a_created", "ladder_pairs", ["a_id", "created_at"])
    op.create_index("ix_ladder_pairs_b_created", "ladder_pairs", ["b_id", "created_at"])
    op.create_index("ix_ladder_pairs_status_created", "ladder_pairs", ["status", "created_at"])


def downgrade() -> None:
    op.drop_table("ladder_pairs")
    op.drop_table("ladder_entries")
    op.drop_table("bot_accounts")
