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
then the cost per transaction is what counts, and SQLAlchemy is left out of this one path (it
keeps the reads and the one-by-one fallback). On a SQLite file the whole batch runs in one call
on a writer thread of its own (``BEGIN IMMEDIATE`` through ``COMMIT``): one thread hop per batch
instead of about a dozen, and a few multi-row statements, never one per row (see
:meth:`.batch_sql.BatchSql.sqlite_write` for why that matters under load); a batch of a few
changes, at a light load and with the file's write lock free, runs on the loop's own thread
instead, with no hop at all (:mod:`.sqlite_writer`). On Postgres it is one
statement on the writer's own connection, its rows passed as one array per column: one round
trip instead of seven. Measured, a change committed alone: SQLite 1.16 to 0.18 ms of CPU,
Postgres 0.94 to 0.24 ms.
A batch the database refuses for what one change holds (an integrity error, a text with a NUL
that Postgres will not store, a value the driver cannot bind) is split in halves, each tried
apart, down to the change at fault: that one fails, every other lands.
This module decides nothing about the game.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import time
from collections.abc import Callable

import asyncpg
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from server.service.ladder_ports import BotRecord
from server.service.ports import Change, MatchMeta, PlayerRecord, StoredAction

from . import engine as engine_module
from .batch_sql import MAX_BATCH, BatchSql, Rows
from .engine import sqlite_path
from .notify import CHANNEL
from .pg_connection import OwnConnection
from .pg_read import PostgresRead
from .repository import SqlStore
from .sqlite_lock import write_lock
from .sqlite_read import Busy, SqliteRead
from .sqlite_writer import INLINE_MAX, SWITCH_INTERVAL, SqliteWriter

log = logging.getLogger("server.storage.group_commit")

SQLITE_AT_LEAST = (3, 33, 0)
"""``UPDATE .. FROM``, which the batched writes use, came with SQLite 3.33 (August 2020)."""


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
        sqlite_timeout: float | None = None,
        sqlite_inline: int = INLINE_MAX,
        sqlite_switch_interval: float = SWITCH_INTERVAL,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(engine)
        self._monotonic = monotonic
        self.committed_at: float | None = None
        """When (``monotonic``) the database last answered a batch: it was reachable then."""
        self.notify_channel = notify_channel if engine.dialect.name == "postgresql" else None
        self.max_batch = max_batch
        self.on_batch = on_batch
        """Called with the size of every committed batch (metrics)."""
        self.sqlite_timeout = engine_module.SQLITE_BUSY_SECONDS if sqlite_timeout is None else sqlite_timeout
        """How long the SQLite writer waits for the file's write lock before its batch fails."""
        self._queue: list[tuple[Change, asyncio.Future[bool]]] = []
        self._wake = asyncio.Event()
        self._writer: asyncio.Task[None] | None = None
        self._closed = False
        self._busy = False
        self._sql = BatchSql(engine.dialect)
        self._sqlite_file = sqlite_path(engine.url) if engine.dialect.name == "sqlite" else None
        if self._sqlite_file is not None and sqlite3.sqlite_version_info < SQLITE_AT_LEAST:
            # Say so at start-up rather than fail every write.
            raise RuntimeError(
                f"SQLite {sqlite3.sqlite_version} is too old: the batched writes need "
                f"{'.'.join(map(str, SQLITE_AT_LEAST))} or later (UPDATE .. FROM); use Postgres, "
                "or a Python built against a newer SQLite"
            )
        self.sqlite: SqliteWriter | None = None
        """The SQLite file's writer (small batches on the loop's thread: ``sqlite_inline``)."""
        if self._sqlite_file is not None:
            self.sqlite = SqliteWriter(
                self._sqlite_file,
                self._sql,
                self.sqlite_timeout,
                sqlite_inline,
                monotonic=monotonic,
                lock=write_lock(engine),
                switch_interval=sqlite_switch_interval,
            )
        self._pg = OwnConnection(engine)
        """The Postgres writer's connection (:mod:`.pg_connection`)."""
        self.batches = 0
        self.changes = 0
        self._pg_read = PostgresRead(engine) if engine.dialect.name == "postgresql" else None
        """On Postgres, a hello's reads and a replica's catch-up, each one statement (:mod:`.pg_read`)."""
        self._read = SqliteRead(self._sqlite_file, engine.dialect) if self._sqlite_file is not None else None
        """On SQLite, a hello's reads in one step on the loop's thread (:mod:`.sqlite_read`)."""

    async def load_match_after(self, match_id: str, seq: int) -> tuple[MatchMeta, list[StoredAction]] | None:
        if self._pg_read is not None:
            return await self._pg_read.load_match_after(match_id, seq)
        if (read := self._one_step()) is not None:
            with contextlib.suppress(Busy):  # else through the engine, which waits for the file
                return read.load_match_after(match_id, seq)
        return await super().load_match_after(match_id, seq)

    async def player_by_token_hash(self, token_hash: str) -> PlayerRecord | None:
        if self._pg_read is not None:
            return await self._pg_read.player_by_token_hash(token_hash)
        if (read := self._one_step()) is not None:
            with contextlib.suppress(Busy):
                return read.player_by_token_hash(token_hash)
        return await super().player_by_token_hash(token_hash)

    async def bots(self, player_ids: list[str]) -> dict[str, BotRecord]:
        if player_ids and self._pg_read is not None:
            return await self._pg_read.bots(player_ids)
        if player_ids and (read := self._one_step()) is not None:
            with contextlib.suppress(Busy):
                return read.bots(player_ids)
        return await super().bots(player_ids)

    def _one_step(self) -> SqliteRead | None:
        """The one-step reader, on SQLite while the store is open."""
        return None if self._closed else self._read

    async def commit(self, change: Change) -> bool:
        if self._closed:
            raise RuntimeError("the store is closed")
        writer = self._writer
        # The writer task's loop (asking asyncio for the running one is a system call on 3.11).
        loop = writer.get_loop() if writer is not None else asyncio.get_running_loop()
        future: asyncio.Future[bool] = loop.create_future()
        self._queue.append((change, future))
        if writer is None:
            self._writer = loop.create_task(self._write_loop())
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
        if self.sqlite is not None:
            await self.sqlite.close()
        if self._read is not None:
            self._read.close()
        await self._pg.close()
        if self._pg_read is not None:
            await self._pg_read.close()

    async def _write_loop(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._queue:
                self._busy = True
                batch, self._queue = self._queue[: self.max_batch], self._queue[self.max_batch :]
                changes = [c for c, _ in batch]
                # Per change: whether it landed, or the error its caller gets.
                results = await self._commit_isolating(changes)
                if not all(isinstance(r, BaseException) for r in results):
                    self.committed_at = self._monotonic()
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

    def answered_within(self, seconds: float) -> bool:
        """Whether the database answered a batch in the last ``seconds``: a health check's
        proof that needs no pooled connection (which a reconnecting crowd may all be using)."""
        return self.committed_at is not None and self._monotonic() - self.committed_at <= seconds

    async def _commit_isolating(self, changes: list[Change]) -> list[bool | Exception]:
        """Commit ``changes`` together; if the database refuses the batch for what one of its
        rows holds (a constraint, a text Postgres will not store, a value the driver cannot
        bind), the two halves are tried apart, and so on down to the change at fault, so every
        other change still lands and only that one fails. A failure of the store itself (its
        connection, its lock) is no change's fault: every change of the batch gets it at once,
        rather than trying each in turn against a store that is down."""
        try:
            return list(await self._commit_batch(changes))
        except Exception as e:
            if len(changes) == 1:
                # Nothing of it was written. An integrity error alone is, as for SqlStore,
                # another writer having taken this action number first.
                return [False if isinstance(e, IntegrityError) else e]
            if not _one_rows_fault(e):
                return [e] * len(changes)
            log.warning(
                "a batch of %d changes failed (%s: %s); committing its halves apart",
                len(changes),
                type(e).__name__,
                e,
            )
        half = len(changes) // 2
        return [*await self._commit_isolating(changes[:half]), *await self._commit_isolating(changes[half:])]

    async def _commit_batch(self, changes: list[Change]) -> list[bool]:
        sql = self._sql
        rows = [sql.rows(c) for c in changes]
        if self.sqlite is not None:
            try:
                return await self.sqlite.write(rows)
            except sqlite3.IntegrityError as e:
                raise IntegrityError(str(e), None, e) from e
        if self.engine.dialect.name != "postgresql":
            # An in-memory SQLite (no file for a writer thread to open): one at a time.
            return [await super().commit(c) for c in changes]
        return await self._postgres_batch(rows)

    # --- Postgres: the whole batch in one statement -------------------------------------------------

    async def _postgres_batch(self, rows: list[Rows]) -> list[bool]:
        """One round trip, on a connection of the writer's own: :attr:`.batch_sql.BatchSql.postgres` is a
        single statement (so a transaction of its own) that compare-and-sets every row, inserts
        the actions and hands of those that held, and notifies them. A connection found broken
        (Postgres restarted, say) is replaced and the batch tried once more: safe, since a
        change that did land the first time fails its compare-and-set the second. So is one
        whose protocol is stuck in an earlier operation (asyncpg's "cannot switch to state ..;
        another operation is in progress", after Postgres terminated its backend)."""
        # In match id order, the order in which the rows get locked whichever way the plan goes
        # (by these rows or by the table): two replicas' batches never wait on each other in a
        # cycle.
        args = self._sql.postgres_args(sorted(rows, key=lambda r: r.match_id), self.notify_channel or "")
        try:
            landed = {r[0] for r in await self._pg.fetch(self._sql.postgres, *args)}
        except asyncpg.IntegrityConstraintViolationError as e:
            raise IntegrityError(str(e), None, e) from e
        return [r.match_id in landed for r in rows]


def _one_rows_fault(e: BaseException) -> bool:
    """Whether a batch's failure may be the fault of what one of its changes holds (so worth
    trying its changes apart), rather than of the store: a connection lost or refused, Postgres
    shutting down or out of resources, a SQLite file locked, busy or failing."""
    if isinstance(e, asyncpg.InterfaceError) and isinstance(e, ValueError):
        return True  # asyncpg could not encode an argument (an int out of range, say)
    if isinstance(
        e,
        OSError
        | TimeoutError
        | asyncpg.InterfaceError
        | asyncpg.PostgresConnectionError
        | asyncpg.OperatorInterventionError
        | asyncpg.InsufficientResourcesError
        | asyncpg.PostgresSystemError
        | sqlite3.OperationalError,
    ):
        return False
    return not isinstance(e.__cause__, sqlite3.OperationalError | asyncpg.PostgresConnectionError)


__all__ = ["CHANNEL", "GroupCommitStore"]
