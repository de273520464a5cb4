"""The group commit's SQLite file checkpointed beside its writes, never in them.

In WAL mode a commit appends to the write-ahead log, and a checkpoint copies the log's pages
into the database file and syncs it. By default SQLite checkpoints inside the ``COMMIT`` that
takes the log past 1,000 pages: that batch, and every change queued behind it, waits for the copy
and the sync (7 to 20 ms on a busy server), which at 10,000 live matches was most of the acks'
slowest percent. Here a commit checkpoints only as a backstop (past :data:`.engine.
WAL_AUTOCHECKPOINT` pages, ten times SQLite's default; the loop's own connection never), and
after a committed batch, at most every :data:`CHECKPOINT_SECONDS`, a ``PASSIVE`` checkpoint runs on
a thread and a connection of its own: it waits for no reader and no writer, and writers go on
appending to the log meanwhile (SQLite's WAL design), so no commit waits for it. Once it has
copied every page, the next write starts the log from its beginning again, so the log stays a
checkpoint's worth of writes long.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from .engine import own_connection
from .sqlite_thread import ConnectionThread

log = logging.getLogger("server.storage.sqlite_checkpoint")

CHECKPOINT_SECONDS = 0.5
"""The least time between the starts of two checkpoints (a busy server writes a few thousand
pages to the log in that time; a quiet one checkpoints after its next batch)."""


class Checkpointer:
    """``PASSIVE`` checkpoints of the SQLite file at ``path``, one at a time, on a thread of its
    own, started by :meth:`after_batch` (on the event loop's thread)."""

    def __init__(self, path: Path, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._monotonic = monotonic
        # A second to open it (setting the journal mode reads the file); PASSIVE itself never
        # waits for a lock: it copies what it can now.
        self._thread = ConnectionThread(
            "sqlite-checkpoint", lambda: own_connection(path, 1.0, cached_statements=4)
        )
        self._running: asyncio.Future[tuple[int, int, int]] | None = None
        self._started: float | None = None
        self.runs = 0
        """Checkpoints finished."""
        self.last: tuple[int, int, int] | None = None
        """The last one's answer: (1 if it could not run, the log's pages, the pages copied)."""

    def after_batch(self) -> None:
        """A batch was committed: start a checkpoint unless one is running or one started less
        than :data:`CHECKPOINT_SECONDS` ago."""
        now = self._monotonic()
        if self._running is not None or (
            self._started is not None and now - self._started < CHECKPOINT_SECONDS
        ):
            return
        self._started = now
        self._running = self._thread.run(self._checkpoint)
        self._running.add_done_callback(self._done)

    async def idle(self) -> None:
        """Wait for the checkpoint under way, if any."""
        if self._running is not None:
            await asyncio.wait([self._running])

    @staticmethod
    def _checkpoint(conn: sqlite3.Connection) -> tuple[int, int, int]:
        """On the checkpoint thread."""
        busy, pages, copied = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        return int(busy), int(pages), int(copied)

    def _done(self, future: asyncio.Future[tuple[int, int, int]]) -> None:
        self._running = None
        if future.cancelled():
            return
        failure = future.exception()
        if failure is not None:
            # The next batch's checkpoint tries again; meanwhile the log only grows.
            log.warning("a checkpoint of the SQLite file failed: %s: %s", type(failure).__name__, failure)
            return
        self.runs += 1
        self.last = future.result()

    async def close(self) -> None:
        """Wait for the checkpoint under way; close the connection and the thread."""
        await self.idle()
        await self._thread.close()
