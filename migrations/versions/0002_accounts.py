"""accounts: sessions (one per device's token), usernames and passwords, passkeys, challenges

Every existing player's token becomes its first session (same hash, so no one is signed out);
from then on a token is known by its session only.

Revision ID: accounts
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "accounts"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UTC = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "sessions",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("device", sa.String(length=80), nullable=False),
        sa.Column("created_at", UTC, nullable=False),
        sa.Column("last_seen_at", UTC, nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_sessions_player_id_players"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sessions")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_sessions_token_hash")),
    )
    op.create_index(op.f("ix_sessions_player_id"), "sessions", ["player_id"], unique=False)
    op.create_table(
        "passkeys",
        sa.Column("credential_id", sa.String(length=700), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("public_key", sa.LargeBinary(), nullable=False),
        sa.Column("sign_count", sa.Integer(), nullable=False),
        sa.Column("created_at", UTC, nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_passkeys_player_id_players"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("credential_id", name=op.f("pk_passkeys")),
    )
    op.create_index(op.f("ix_passkeys_player_id"), "passkeys", ["player_id"], unique=False)
    op.create_table(
        "challenges",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("challenge", sa.LargeBinary(), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=True),
        sa.Column("expires_at", UTC, nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_challenges_player_id_players"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_challenges")),
    )
    op.create_index(op.f("ix_challenges_expires_at"), "challenges", ["expires_at"], unique=False)
    # Every player's one token becomes that player's first session.
    op.execute(
        "INSERT INTO sessions (id, player_id, token_hash, device, created_at, last_seen_at) "
        "SELECT 's_' || substr(token_hash, 1, 16), id, token_hash, 'unknown device', created_at, created_at "
        "FROM players"
    )
    # Plain ALTERs, not a batch: on SQLite a batch rebuilds ``players``, and dropping the old
    # table would cascade to the sessions just copied (and trip the matches' foreign keys).
    # So ``players.token_hash`` stays, written at creation and never read: a token is known by
    # its session only (until 0008_sessions_only drops it, foreign keys off).
    op.add_column("players", sa.Column("username", sa.String(length=40), nullable=True))
    op.add_column("players", sa.Column("username_key", sa.String(length=160), nullable=True))
    op.add_column("players", sa.Column("password_hash", sa.String(length=200), nullable=True))
    op.create_index(op.f("ix_players_username_key"), "players", ["username_key"], unique=True)


def downgrade() -> None:
    op.drop_index(op.f("ix_players_username_key"), table_name="players")
    # (Plain drops, as upgrade's plain adds: SQLite 3.35+ drops an unindexed column in place.)
    op.drop_column("players", "password_hash")
    op.drop_column("players", "username_key")
    op.drop_column("players", "username")
    op.drop_index(op.f("ix_challenges_expires_at"), table_name="challenges")
    op.drop_table("challenges")
    op.drop_index(op.f("ix_passkeys_player_id"), table_name="passkeys")
    op.drop_table("passkeys")
    op.drop_index(op.f("ix_sessions_player_id"), table_name="sessions")
    op.drop_table("sessions")
