"""passkey device: ``passkeys.device``, the label of the device that registered each passkey

Revision ID: passkey_device
Revises: actions_lean
Create Date: 2026-12-04

A player lists their passkeys to remove one they do not recognise (one added by a stolen
session outlives "sign out everywhere"); the device that registered it, as its session's
label ("Chrome on Android"), tells them apart. Passkeys from before say ``unknown device``, as
sessions from before accounts do. Adding a column with a default is in place on SQLite and
PostgreSQL; downgrade drops it (batch mode rebuilds ``passkeys`` on SQLite: nothing refers to it).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "passkey_device"
down_revision: str | Sequence[str] | None = "actions_lean"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "passkeys",
        sa.Column("device", sa.String(length=80), nullable=False, server_default="unknown device"),
    )


def downgrade() -> None:
    with op.batch_alter_table("passkeys") as batch:
        batch.drop_column("device")
