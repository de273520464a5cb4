"""The group commit's writes to a SQLite file: a small batch on the event loop's own thread, the
rest on a writer thread.

A batch is one ``BEGIN IMMEDIATE`` .. ``COMMIT`` transaction either way (:meth:`BatchSql.
sqlite_write`: a few statements whatever its size), committed before its callers hear of it,
and the group commit's one writer task sends one batch at a time, so the two paths never
overlap. On the writer thread a batch costs a thread hop each way (the executor's queue, waking
the loop, the GIL passed back and forth), which at a human pace is most of a commit's CPU. A
batch of at most ``inline_max`` changes runs on the loop's thread instead, on a connection of its
own that never waits for the file's write lock (``busy_timeout`` 0): when another connection
holds the lock (a REST write through the engine, another process), its ``BEGIN IMMEDIATE`` fails
at once and the batch goes to the writer thread, which waits for the lock as before. So the loop
is held only for the writing of a few rows (tens of microseconds), never for a wait.

Only while the loop's thread has time to spare, though: once it was busy for ``BUSY_BELOW`` of
the last second or more (its CPU time over the wall time, read once a second), every batch goes
to the writer thread. Near saturation the loop's thread is the bottleneck and SQLite's own work
(which lets go of the GIL) runs beside it on the writer thread, while the changes arriving
meanwhile make the next batch larger; written inline, batches stayed small and the saturated
throughput fell (the peer benchmark, one run, quiet machine: 2,192 against 2,708 moves/s with
every batch on the thread, at the same CPU per move). Not the rate of changes, which an earlier
rule used (inline below 200 a second): a thousand matches at a human pace make 500 a second
with the loop three quarters idle, and there the thread's hop cost a sixth of the CPU per move.

While a batch is on the writer thread and the loop's thread is busy (``BUSY_BELOW``), the
interpreter's thread switch interval may be made short (``switch_interval``; Python's own is
5 ms; by default it is left as it is). The writer thread lets go of the GIL around each SQLite
call and must then win it back from the loop's thread, which, busy, hands it over only when the
interval has passed: a batch of a few statements waited tens of milliseconds for the GIL, not
for SQLite, the changes behind it waiting in turn. Measured with the peer benchmark (1,000
matches against the computer, saturated, two rounds interleaved): 1,934 and 1,819 moves a second
with Python's interval, 2,221 and 2,120 with 50 microseconds for the whole process, 1,928 and
2,083 with it only while a batch is on the thread (against 1,901 and 1,716 in that run). At a
human pace, with the loop's thread mostly free, the GIL comes back at once anyway, and the short
interval only cost CPU (1.37 against 1.18 ms a move at 660 moves a second): then it is left as
it is. So kept, a third run: 2,257 and 2,465 against 2,194 and 2,201, at a person's pace within
the noise.

Measured again at stop 59 (admission now in front, refusing new matches while commits are
slow), it cost more than it saved up to saturation, so the default is now Python's own:
saturated, 1,859 and 1,811 moves a second with 50 microseconds against 2,214 and 2,182 without
(medians of two runs of two and three rounds; 0.60 against 0.48 ms of CPU a move), at 500 moves
a second 1.43 and 1.60 against 1.04 and 0.97 ms a move, and at a thousand actions a second (the
scale benchmark, 1,000 players, the loop three quarters busy) 1.10 and 1.03 against 0.96 and
0.94 ms with the acks' p99 47 and 32 against 32 and 28 ms. Each forced switch takes the loop's
thread off its core and brings the other thread's work into its caches; it waits for the GIL
back in turn. Past capacity, though (10,000 arriving, batches of hundreds of rows), it still
halved the acks' p99 (311 against 647 ms; commits 89 against 264 ms): there an operator may set
it (docs/benchmarks.md, stop 59).

No commit checkpoints the write-ahead log (a checkpoint copies pages into the database file and
syncs it, milliseconds no batch should wait for): a :class:`.sqlite_checkpoint.Checkpointer`
does, beside the writes, after a committed batch at most twice a second. The loop's connection
never does; the others only past :data:`.engine.WAL_AUTOCHECKPOINT`, a backstop.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from .batch_sql import MAX_STATEMENTS, BatchSql, Rows
from .engine import own_connection
from .sqlite_checkpoint import Checkpointer
from .sqlite_thread import ConnectionThread

INLINE_MAX = 4
"""The largest batch written on the loop's thread by default (``GINRUMMY_SQLITE_INLINE``)."""
SWITCH_INTERVAL = 0.0
"""The interpreter's switch interval while a batch is on the writer thread and the loop's thread
is busy, by default (``GINRUMMY_SQLITE_SWITCH_INTERVAL``): 0, Python's own."""
BUSY_BELOW = 0.5
"""The share of the last second the loop's thread spent working from which every batch goes to
the writer thread. A thousand matches at a human pace keep it about a quarter busy; a saturated
server, four fifths or more."""


class SqliteWriter:
    """Writes the group commit's batches to the SQLite file at ``path``. ``timeout``: how long
    the writer thread waits for the file's write lock; ``inline_max``: the largest batch written
    on the loop's thread (0: none)."""

    def __init__(
        self,
        path: Path,
        sql: BatchSql,
        timeout: float,
        inline_max: int = INLINE_MAX,
        monotonic: Callable[[], float] = time.monotonic,
        lock: asyncio.Lock | None = None,
        thread_time: Callable[[], float] = time.thread_time,
        switch_interval: float = SWITCH_INTERVAL,
    ) -> None:
        self.path = path
        self.switch_interval = switch_interval
        """The interpreter's switch interval while a batch is on the writer thread (0: left as it is)."""
        self.lock = lock
        """This process's write lock on the file (:mod:`.sqlite_lock`), shared with the engine's
        connections: a batch on the writer thread waits for it in turn; one on the loop's thread
        (which cannot wait) is written only while nobody holds it."""
        self.sql = sql
        self.timeout = timeout
        self.inline_max = inline_max
        self.inline: sqlite3.Connection | None = None
        """The loop thread's connection (``busy_timeout`` 0)."""
        self._thread = ConnectionThread("sqlite-writer", lambda: self._connect(self.timeout))
        self.checkpointer = Checkpointer(path, monotonic)
        self._monotonic = monotonic
        self._thread_time = thread_time
        """The CPU time of the calling thread (the loop's: :meth:`write` is only called there)."""
        self._second = monotonic()
        self._worked = thread_time()
        self.busy = 0.0
        """The share of the last whole second (or more, after a quiet spell) the loop's thread
        spent working; small batches are written inline below ``BUSY_BELOW``."""
        self.inline_batches = 0
        self.thread_batches = 0

    async def write(self, rows: list[Rows]) -> list[bool]:
        """Compare-and-set every row and insert the actions and hands of those that held, in one
        committed transaction; which held."""
        now = self._monotonic()
        if now - self._second >= 1.0:
            worked = self._thread_time()
            self.busy = max(0.0, worked - self._worked) / (now - self._second)
            self._second, self._worked = now, worked
        if (
            0 < len(rows) <= self.inline_max
            and self.busy < BUSY_BELOW
            and not (self.lock is not None and self.lock.locked())  # else wait in turn, below
        ):
            ok = self._write_inline(rows)
            if ok is not None:
                self.inline_batches += 1
                self.checkpointer.after_batch()
                return ok
        async with self.lock or contextlib.nullcontext():
            with self._switching(self.busy >= BUSY_BELOW):
                ok = await self._thread.run(lambda conn: self._write_threaded(conn, rows))
        self.thread_batches += 1
        self.checkpointer.after_batch()
        return ok

    @contextlib.contextmanager
    def _switching(self, busy: bool) -> Iterator[None]:
        """The switch interval short while the writer thread writes, when the loop's thread is
        ``busy`` (one batch at a time: the group commit's writer task sends the next only once
        this one is done)."""
        if self.switch_interval <= 0 or not busy:
            yield
            return
        before = sys.getswitchinterval()
        sys.setswitchinterval(self.switch_interval)
        try:
            yield
        finally:
            sys.setswitchinterval(before)

    def _write_inline(self, rows: list[Rows]) -> list[bool] | None:
        """On the loop's thread; None when the file is busy (or failing) and nothing was
        written: the writer thread takes the batch."""
        conn = self.inline
        if conn is None:
            try:
                conn = self._connect(0.0)
                conn.execute("PRAGMA wal_autocheckpoint=0")  # never on the loop, even as a backstop
            except sqlite3.OperationalError:
                return None  # the file busy even for that: the thread opens its own as before
            self.inline = conn
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError:
            return None  # another connection holds the write lock: wait for it on the thread
        try:
            ok = self.sql.sqlite_write(conn, rows)
            conn.execute("COMMIT")
        except sqlite3.OperationalError:
            # Busy or failing part-way (nothing committed: a failed COMMIT leaves the
            # transaction open or rolled back): the writer thread tries it, waiting as it does.
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            return None
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        return ok

    @property
    def threaded(self) -> sqlite3.Connection | None:
        """The writer thread's connection, once opened there."""
        return self._thread.connection

    def _write_threaded(self, conn: sqlite3.Connection, rows: list[Rows]) -> list[bool]:
        """On the writer thread (``BEGIN IMMEDIATE`` takes the file's write lock first, so no other
        process can move a row between the SELECT and the UPDATE)."""
        conn.execute("BEGIN IMMEDIATE")
        try:
            ok = self.sql.sqlite_write(conn, rows)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        return ok

    def _connect(self, timeout: float) -> sqlite3.Connection:
        return own_connection(self.path, timeout, cached_statements=MAX_STATEMENTS)

    async def close(self) -> None:
        await self.checkpointer.close()
        if self.inline is not None:
            self.inline.close()
            self.inline = None
        await self._thread.close()
