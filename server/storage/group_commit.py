"""Group commit: the writes of many matches share one transaction.

Under load the cost of a write is mostly per transaction (a round trip or a thread hop per
statement, the commit itself, and on SQLite a single file lock that concurrent transactions
fight over with sleeping retries). :class:`GroupCommitStore` keeps :class:`SqlStore`'s reads and
its contract (``commit(change)`` applies the change whole at ``expected_version`` or returns
False), but one writer task takes every change waiting at that moment and commits them
together: each match's row is still a compare-and-set on its version, the actions and hands of
the changes whose compare-and-set held are inserted in bulk, and on Postgres the notification
of every committed change is sent inside the same transaction (so other processes hear of a
version if and only if it committed).

With nothing else waiting a change commits alone at once, so light load sees no added delay;
then the cost per transaction is what counts. So the statements go to the driver as plain SQL
with rows of values, and on a SQLite file the whole batch runs in one call on a writer thread
of its own (``BEGIN IMMEDIATE`` through ``COMMIT``): one thread hop per batch instead of one per
statement, each of which cost about as much CPU as a player's action.
A failure of the whole batch (an integrity error, say) falls back to committing its changes one
by one, so one bad change cannot fail the others. This module decides nothing about the game.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from server.service.ports import Change

from .engine import sqlite_on_connect, sqlite_path
from .models import HandRecord, Match, MatchAction
from .notify import CHANNEL, encode_payload
from .repository import _ROW_COLUMNS, SqlStore, _row_values

log = logging.getLogger("server.storage.group_commit")

MAX_BATCH = 200

_MATCHES = Match.__table__


class GroupCommitStore(SqlStore):
    """A :class:`SqlStore` whose match writes are committed in groups by one writer task.

    ``notify_channel``: on Postgres, the LISTEN/NOTIFY channel to announce committed changes on
    (see :mod:`.notify`); None sends nothing.
    """

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        notify_channel: str | None = None,
        max_batch: int = MAX_BATCH,
        on_batch: Callable[[int], None] | None = None,
    ) -> None:
        super().__init__(engine)
        self.notify_channel = notify_channel if engine.dialect.name == "postgresql" else None
        self.max_batch = max_batch
        self.on_batch = on_batch
        """Called with the size of every committed batch (metrics)."""
        self._queue: list[tuple[Change, asyncio.Future[bool]]] = []
        self._wake = asyncio.Event()
        self._writer: asyncio.Task[None] | None = None
        self._closed = False
        self._busy = False
        self._sql = _BatchSql(engine.dialect)
        self._sqlite_file = sqlite_path(engine.url) if engine.dialect.name == "sqlite" else None
        self._sqlite: sqlite3.Connection | None = None
        self._thread: ThreadPoolExecutor | None = None
        self.batches = 0
        self.changes = 0

    async def commit(self, change: Change) -> bool:
        if self._closed:
            raise RuntimeError("the store is closed")
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._queue.append((change, future))
        if self._writer is None:
            self._writer = asyncio.get_running_loop().create_task(self._write_loop())
        self._wake.set()
        return await future

    async def close(self) -> None:
        """Commit what is queued, then stop the writer."""
        self._closed = True
        if self._writer is not None:
            self._wake.set()
            while self._queue or self._busy:
                await asyncio.sleep(0.005)
            self._writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer
        if self._thread is not None:
            await asyncio.get_running_loop().run_in_executor(self._thread, self._close_sqlite)
            self._thread.shutdown()

    async def _write_loop(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._queue:
                self._busy = True
                batch, self._queue = self._queue[: self.max_batch], self._queue[self.max_batch :]
                changes = [c for c, _ in batch]
                try:
                    results = await self._commit_batch(changes)
                except IntegrityError:
                    results = []
                    for c in changes:
                        try:
                            results.append(await super().commit(c))
                        except Exception as e:
                            results.append(e)
                except Exception as e:
                    results = [e] * len(changes)
                self.batches += 1
                self.changes += len(changes)
                if self.on_batch is not None:
                    self.on_batch(len(changes))
                for (_, future), result in zip(batch, results):
                    if future.done():
                        continue
                    if isinstance(result, BaseException):
                        future.set_exception(result)
                    else:
                        future.set_result(result)
            self._busy = False

    async def _commit_batch(self, changes: list[Change]) -> list[bool]:
        sql = self._sql
        if self._sqlite_file is not None:
            rows = [
                (
                    c.meta.match_id,
                    c.expected_version,
                    sql.update_row(c),
                    sql.action_row(c) if c.action is not None else None,
                    [sql.hand_row(c.meta.match_id, h) for h in c.hands],
                )
                for c in changes
            ]
            if self._thread is None:
                self._thread = ThreadPoolExecutor(1, thread_name_prefix="sqlite-writer")
            try:
                return await asyncio.get_running_loop().run_in_executor(
                    self._thread, self._sqlite_batch, rows
                )
            except sqlite3.IntegrityError as e:
                raise IntegrityError(str(e), None, e) from e
        # Elsewhere (Postgres) a handful of round trips per batch, whatever its size.
        async with self.engine.begin() as conn:
            ids = [c.meta.match_id for c in changes]
            stored = dict((await conn.exec_driver_sql(sql.select_versions(len(ids)), tuple(ids))).all())
            ok = [stored.get(c.meta.match_id) == c.expected_version for c in changes]
            landed = [c for c, good in zip(changes, ok) if good]
            if not landed:
                return ok
            result = await conn.exec_driver_sql(sql.update, [sql.update_row(c) for c in landed])
            # Postgres holds the rows locked since the SELECT; a driver that could not would
            # show the move here (the version guard in the UPDATE matched fewer rows), and the
            # batch is redone one change at a time.
            if sql.counts_rows and result.rowcount != len(landed):
                raise _Moved()
            actions = [sql.action_row(c) for c in landed if c.action is not None]
            if actions:
                await conn.exec_driver_sql(sql.insert_action, actions)
            hands = [sql.hand_row(c.meta.match_id, h) for c in landed for h in c.hands]
            if hands:
                await conn.exec_driver_sql(sql.insert_hand, hands)
            if self.notify_channel:
                await conn.exec_driver_sql(
                    sql.notify,
                    (self.notify_channel, [encode_payload(c.meta.match_id, c.meta.version) for c in landed]),
                )
        return ok

    # --- SQLite: the whole batch in one call on the writer thread --------------------------------

    def _sqlite_batch(self, rows: list[tuple[Any, ...]]) -> list[bool]:
        """Runs on the writer thread: compare-and-set every row, insert the actions and hands of
        those that held, all in one ``BEGIN IMMEDIATE`` transaction (which takes the file's
        write lock first, so no other process can move a row between the SELECT and the
        UPDATE)."""
        conn = self._sqlite
        if conn is None:
            conn = self._sqlite = sqlite3.connect(
                str(self._sqlite_file), timeout=30, isolation_level=None, check_same_thread=False
            )
            sqlite_on_connect(conn, None)
        sql = self._sql
        conn.execute("BEGIN IMMEDIATE")
        try:
            ids = [r[0] for r in rows]
            stored = dict(conn.execute(sql.select_versions(len(ids)), ids).fetchall())
            ok = [stored.get(r[0]) == r[1] for r in rows]
            landed = [r for r, good in zip(rows, ok) if good]
            if landed:
                conn.executemany(sql.update, [r[2] for r in landed])
                conn.executemany(sql.insert_action, [r[3] for r in landed if r[3] is not None])
                conn.executemany(sql.insert_hand, [h for r in landed for h in r[4]])
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        return ok

    def _close_sqlite(self) -> None:
        if self._sqlite is not None:
            self._sqlite.close()
            self._sqlite = None


class _BatchSql:
    """The batch's statements for one dialect, as driver SQL, and its rows as tuples of driver
    values. Each column's value goes through the column type's own bind processor (the one
    SQLAlchemy would apply), so rows written here read back exactly like rows written by
    :class:`SqlStore`; a test compares the two."""

    def __init__(self, dialect: Any) -> None:
        self.dialect = dialect
        self.counts_rows = dialect.supports_sane_multi_rowcount
        self._numbered = dialect.paramstyle.startswith("numeric")
        if not self._numbered and dialect.paramstyle != "qmark":
            raise NotImplementedError(f"paramstyle {dialect.paramstyle}")
        m, a, h = _MATCHES, MatchAction.__table__, HandRecord.__table__
        self._row_columns = _ROW_COLUMNS
        self._row_bind = self._binders(m, self._row_columns)
        sets = ", ".join(f"{col} = {self._p(i + 1)}" for i, col in enumerate(self._row_columns))
        n = len(self._row_columns)
        self.update = f"UPDATE {m.name} SET {sets} WHERE id = {self._p(n + 1)} AND version = {self._p(n + 2)}"
        self._action_columns = ("match_id", "seq", "seat", "action", "client_id", "version", "created_at")
        self._action_bind = self._binders(a, self._action_columns)
        self.insert_action = self._insert(a.name, self._action_columns)
        self._hand_columns = (
            "match_id",
            "number",
            "starter",
            "kind",
            "winner",
            "knocker",
            "points",
            "result",
            "finished_at",
        )
        self._hand_bind = self._binders(h, self._hand_columns)
        self.insert_hand = self._insert(h.name, self._hand_columns)
        # One notification per committed change, sent inside the transaction (Postgres only).
        self.notify = f"SELECT pg_notify({self._p(1)}, p) FROM unnest(CAST({self._p(2)} AS text[])) AS p"
        self._locking = " FOR UPDATE" if dialect.name == "postgresql" else ""

    def _p(self, i: int) -> str:
        return f"${i}" if self._numbered else "?"

    def _insert(self, table: str, columns: tuple[str, ...]) -> str:
        marks = ", ".join(self._p(i + 1) for i in range(len(columns)))
        return f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})"

    def _binders(self, table: Any, columns: tuple[str, ...]) -> tuple[Callable[[Any], Any] | None, ...]:
        return tuple(table.c[col].type.bind_processor(self.dialect) for col in columns)

    @staticmethod
    def _row(binders: tuple[Callable[[Any], Any] | None, ...], values: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(v if b is None or v is None else b(v) for b, v in zip(binders, values))

    def select_versions(self, n: int) -> str:
        """The stored version of ``n`` matches, locked on Postgres so no other writer can move
        them before the UPDATE."""
        marks = ", ".join(self._p(i + 1) for i in range(n))
        return f"SELECT id, version FROM {_MATCHES.name} WHERE id IN ({marks}){self._locking}"

    def update_row(self, change: Change) -> tuple[Any, ...]:
        # The repository's own mapping of a row's changing columns: both paths write alike.
        values = _row_values(change.meta)
        row = self._row(self._row_bind, tuple(values[col] for col in self._row_columns))
        return (*row, change.meta.match_id, change.expected_version)

    def action_row(self, change: Change) -> tuple[Any, ...]:
        a = change.action
        assert a is not None
        return self._row(
            self._action_bind,
            (change.meta.match_id, a.seq, a.seat, a.action, a.client_id, a.version, a.created_at),
        )

    def hand_row(self, match_id: str, h: Any) -> tuple[Any, ...]:
        return self._row(
            self._hand_bind,
            (match_id, h.number, h.starter, h.kind, h.winner, h.knocker, h.points, h.result, h.finished_at),
        )


class _Moved(IntegrityError):
    """A row moved under the batch: commit its changes one by one instead."""

    def __init__(self) -> None:
        super().__init__("a match version moved during a group commit", None, Exception("moved"))


__all__ = ["CHANNEL", "GroupCommitStore"]
