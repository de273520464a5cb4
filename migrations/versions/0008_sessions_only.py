"""sessions only: drop ``players.token_hash``, written at creation and never read since the
``sessions`` table (0002) holds every token's hash

Revision ID: sessions_only
Revises: ladder
Create Date: 2026-12-01

SQLite cannot drop a UNIQUE column in place: batch mode rebuilds ``players`` (a copy, then
``DROP TABLE players``, then a rename). With foreign keys on, that drop would cascade to every
session, passkey, challenge, seek and ladder row of every player, so on SQLite the rebuild runs
with foreign keys off, checked with ``PRAGMA foreign_key_check`` before they are turned on again.
``PRAGMA foreign_keys`` does nothing inside a transaction, so the transaction open then is
committed first (the migrations before this one with it, ``alembic_version`` naming the last of
them), and the rebuild is committed before foreign keys come back on; an upgrade finds the
column gone and does nothing, so a run cut off between the rebuild and ``alembic_version``
moving on finishes when run again. On a failure the rebuild is rolled back and foreign keys are
turned on again (the connection may go back to the server's pool). PostgreSQL drops the column in place, in the migration's transaction.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress

import sqlalchemy as sa
from alembic import op
from sqlalchemy.engine import Connection

revision: str = "sessions_only"
down_revision: str | Sequence[str] | None = "ladder"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _has_token_hash(bind: Connection) -> bool:
    return "token_hash" in {c["name"] for c in sa.inspect(bind).get_columns("players")}


def _foreign_keys(bind: Connection, on: bool) -> None:
    want = "ON" if on else "OFF"
    bind.exec_driver_sql(f"PRAGMA foreign_keys={want}")
    if bind.exec_driver_sql("PRAGMA foreign_keys").scalar() != int(on):
        bind.exec_driver_sql("COMMIT")  # a no-op pragma: a transaction is open
        bind.exec_driver_sql(f"PRAGMA foreign_keys={want}")
    if bind.exec_driver_sql("PRAGMA foreign_keys").scalar() != int(on):
        raise RuntimeError(f"could not turn SQLite's foreign keys {want} to rebuild players")


@contextmanager
def _rebuilding_players() -> Iterator[None]:
    """On SQLite, foreign keys off while ``players`` is rebuilt (see the module docstring)."""
    bind = op.get_bind()
    if bind.dialect.name != "sqlite":
        yield
        return
    _foreign_keys(bind, False)
    try:
        yield
        broken = bind.exec_driver_sql("PRAGMA foreign_key_check").all()
        if broken:
            raise RuntimeError(f"rebuilding players broke foreign keys: {broken[:5]}")
    except BaseException:
        with suppress(sa.exc.OperationalError):  # no transaction open: nothing to undo
            bind.exec_driver_sql("ROLLBACK")
        _foreign_keys(bind, True)
        raise
    _foreign_keys(bind, True)


def upgrade() -> None:
    if not _has_token_hash(op.get_bind()):
        return
    with _rebuilding_players(), op.batch_alter_table("players") as batch:
        batch.drop_constraint("uq_players_token_hash", type_="unique")
        batch.drop_column("token_hash")


def downgrade() -> None:
    bind = op.get_bind()
    if not _has_token_hash(bind):
        op.add_column("players", sa.Column("token_hash", sa.String(length=64), nullable=True))
    # Back to 0007's NOT NULL UNIQUE column: each player's first session's hash (what it was
    # created with, unless that session was revoked), or a mark no hash can equal.
    op.execute(
        "UPDATE players SET token_hash = COALESCE("
        "(SELECT s.token_hash FROM sessions s WHERE s.player_id = players.id"
        " ORDER BY s.created_at, s.id LIMIT 1), 'none:' || players.id) WHERE token_hash IS NULL"
    )
    with _rebuilding_players(), op.batch_alter_table("players") as batch:
        batch.alter_column("token_hash", existing_type=sa.String(length=64), nullable=False)
        batch.create_unique_constraint("uq_players_token_hash", ["token_hash"])
