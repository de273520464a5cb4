"""accounts: sessions (one per device's token), usernames and passwords, passkeys, challenges

Every existing player's token becomes its first session (same hash, so no one is signed out),
then ``players.token_hash`` goes: a token is known by its session only.

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
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("username", sa.String(length=40), nullable=True))
        batch.add_column(sa.Column("username_key", sa.String(length=160), nullable=True))
        batch.add_column(sa.Column("password_hash", sa.String(length=200), nullable=True))
        batch.create_unique_constraint(op.f("uq_players_username_key"), ["username_key"])
        batch.drop_constraint(op.f("uq_players_token_hash"), type_="unique")
        batch.drop_column("token_hash")


def downgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("token_hash", sa.String(length=64), nullable=True))
    # A player keeps the token of its oldest session (its others stop working); one with none
    # gets a value no token hashes to (a hash is 64 hex digits).
    op.execute(
        "UPDATE players SET token_hash = (SELECT s.token_hash FROM sessions s WHERE s.player_id = players.id "
        "ORDER BY s.created_at, s.id LIMIT 1)"
    )
    op.execute("UPDATE players SET token_hash = 'none-' || id WHERE token_hash IS NULL")
    with op.batch_alter_table("players") as batch:
        batch.alter_column("token_hash", existing_type=sa.String(length=64), nullable=False)
        batch.create_unique_constraint(op.f("uq_players_token_hash"), ["token_hash"])
        batch.drop_constraint(op.f("uq_players_username_key"), type_="unique")
        batch.drop_column("password_hash")
        batch.drop_column("username_key")
        batch.drop_column("username")
    op.drop_index(op.f("ix_challenges_expires_at"), table_name="challenges")
    op.drop_table("challenges")
    op.drop_index(op.f("ix_passkeys_player_id"), table_name="passkeys")
    op.drop_table("passkeys")
    op.drop_index(op.f("ix_sessions_player_id"), table_name="sessions")
    op.drop_table("sessions")
