"""On SQLite, what a hello reads, each in one step on the loop's thread: the match (its row and
the actions after a sequence number), the player by token, the seats' bot accounts; on a
connection of the store's own, each column converted by SQLAlchemy's own result processor for
it (the stored times as UTC-aware datetimes, the JSON columns decoded), so the values are the
engine's.

Through SQLAlchemy on aiosqlite the same reads handed each call (a cursor, an execute, a fetch,
a close, the commit, the pool's rollback) to aiosqlite's thread and back: 1.9 ms of CPU for a
match of 40 actions, 3.8 ms for 200, most of a hello's cost in the herd after a restart; the
player and the bot accounts took as much again as the match at 40 actions. Here each is a
statement or two on a connection that never waits (``busy_timeout`` 0; in WAL mode a reader is
refused only in rare moments, such as a log being recovered): refused, it raises :class:`Busy`
and the store reads through the engine, as the group commit's inline writer leaves a busy batch
to its thread.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any, TypeVar

from sqlalchemy import bindparam
from sqlalchemy.engine import Dialect

from server.service.ladder_ports import BotRecord
from server.service.ports import MatchMeta, PlayerRecord, StoredAction, new_stored_action

from .engine import own_connection
from .ladder_sql import BOT_BY_ID
from .match_rows import ACTIONS_AFTER, META_QUERY, meta_of
from .models import MATCHES
from .read_statement import ReadStatement
from .repository import PLAYER_BY_TOKEN

T = TypeVar("T")


class Busy(Exception):
    """The file could not be read without waiting: read it through the engine instead."""


_META = META_QUERY.where(MATCHES.c.id == bindparam("match_id"))


class SqliteRead:
    """Reads from the SQLite file at ``path`` (``dialect``: the engine's, whose result
    processors convert the columns). Each read raises :class:`Busy` when the file cannot be
    read at once."""

    def __init__(self, path: Path, dialect: Dialect) -> None:
        self.path = path
        self.meta = ReadStatement(_META, dialect)
        self.actions = ReadStatement(ACTIONS_AFTER, dialect)
        self.player = ReadStatement(PLAYER_BY_TOKEN, dialect)
        self.bot = ReadStatement(BOT_BY_ID, dialect)
        self.conn: sqlite3.Connection | None = None

    def load_match_after(self, match_id: str, seq: int) -> tuple[MatchMeta, list[StoredAction]] | None:
        """The match and its actions after ``seq`` (None: no such match), as one snapshot."""

        def read(conn: sqlite3.Connection) -> tuple[list[list[Any]], list[list[Any]]]:
            conn.execute("BEGIN")  # both reads in one snapshot
            try:
                metas = _rows(conn, self.meta, match_id=match_id)
                return metas, _rows(conn, self.actions, match_id=match_id, after=seq) if metas else []
            finally:
                conn.execute("COMMIT")

        metas, actions = self._reading(read)
        if not metas:
            return None
        row = SimpleNamespace(**dict(zip(self.meta.names, metas[0], strict=True)))
        meta = meta_of(row, row.name0, row.name1)  # type: ignore[arg-type]
        return meta, [new_stored_action(*a) for a in actions]

    def player_by_token_hash(self, token_hash: str) -> PlayerRecord | None:
        rows = self._reading(lambda conn: _rows(conn, self.player, token_hash=token_hash))
        return PlayerRecord(*rows[0]) if rows else None

    def bots(self, player_ids: list[str]) -> dict[str, BotRecord]:
        rows = self._reading(lambda conn: [r for p in player_ids for r in _rows(conn, self.bot, player_id=p)])
        return {r[0]: BotRecord(*r) for r in rows}

    def _reading(self, read: Callable[[sqlite3.Connection], T]) -> T:
        try:
            conn = self.conn
            if conn is None:
                conn = self.conn = own_connection(self.path, 0.0)
            return read(conn)
        except sqlite3.OperationalError as e:
            if self.conn is not None and self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise Busy(str(e)) from e

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def _rows(conn: sqlite3.Connection, statement: ReadStatement, **values: Any) -> list[list[Any]]:
    return statement.converted(conn.execute(statement.sql, statement.args(**values)))
