"""actions lean: drop the unique index on ``actions (match_id, seat, client_id)``

Revision ID: actions_lean
Revises: sessions_only
Create Date: 2026-12-03

Every action inserted one more entry into that index, a long one (a 32-character match id and
a client id of up to 64) at a random place among a match's entries: on SQLite about half of what
writing an action cost, its insert and its share of the commit's pages (docs/benchmarks.md). It
guarded nothing the match's own writes do not: an action is written only by a compare-and-set on
the match's version and under its number (the primary key ``(match_id, seq)``), and a seat's
client id is answered or refused (``id_reused``) by the service from every id of the match, read
back from this table whenever the match is rebuilt or caught up.

SQLite cannot drop a table constraint in place: batch mode rebuilds ``actions`` (a copy, then
``DROP TABLE actions``, then a rename; nothing refers to ``actions``, so foreign keys may stay
on). PostgreSQL drops the constraint in place. Downgrade puts the index back (it would fail on a
database where one seat's client id was written twice: the service never writes that).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "actions_lean"
down_revision: str | Sequence[str] | None = "sessions_only"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NAME = "uq_actions_match_id_seat_client_id"


def _has_index() -> bool:
    uniques = sa.inspect(op.get_bind()).get_unique_constraints("actions")
    return any(u["name"] == NAME or u["column_names"] == ["match_id", "seat", "client_id"] for u in uniques)


def upgrade() -> None:
    if not _has_index():
        return
    with op.batch_alter_table("actions") as batch:
        batch.drop_constraint(NAME, type_="unique")


def downgrade() -> None:
    if _has_index():
        return
    with op.batch_alter_table("actions") as batch:
        batch.create_unique_constraint(NAME, ["match_id", "seat", "client_id"])
