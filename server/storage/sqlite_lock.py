"""One SQLite file's write lock inside this process, taken in turn (first come, first served).

SQLite lets one connection write at a time. A connection that finds the file locked sleeps and
looks again (its busy timeout: 1 ms, 2 ms, ... then every 100 ms), so under load it can lose to
the others again and again: with 10,000 players arriving, a REST write (a new player, a new
match) waited more than the 5 s timeout behind the group commit's batches and the other REST
writes, each of which holds the file for as long as the event loop takes to come back to it
between its statement and its ``COMMIT``, and failed with ``unavailable`` (``python -m
server.bench restart --matches 10000``; setups of 6 s when they did not fail).

So every writer in this process first takes an :class:`asyncio.Lock` kept per engine, whose
waiters are served in order: SQLAlchemy's connections when they are about to run their first
write statement of a transaction (released when it commits or rolls back, or when the connection
goes back to the pool), and the group commit's writer (:mod:`.sqlite_writer`) around each batch.
SQLite's own lock is then free whenever this process asks for it; its busy timeout is left for
other processes on the same file (a second server, an operator's ``sqlite3`` shell). Reads take
no lock (WAL: readers never wait for the writer).
"""

from __future__ import annotations

import asyncio
import re
import weakref
from collections.abc import Callable
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.util import await_only

_LOCKS: weakref.WeakKeyDictionary[Engine, asyncio.Lock] = weakref.WeakKeyDictionary()
_HELD = "ginrummy_write_lock"
"""The key in a pooled connection's ``info`` while it holds the lock."""
_WRITE = re.compile(r"\s*(INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER)\b", re.IGNORECASE)


def is_write(statement: str) -> bool:
    """Whether a statement writes (the ones SQLAlchemy and this project send to SQLite).

    >>> is_write("INSERT INTO players (id) VALUES (?)"), is_write(" update matches SET version=?")
    (True, True)
    >>> is_write("SELECT * FROM matches WHERE id = ?"), is_write("PRAGMA foreign_keys=ON")
    (False, False)
    """
    return _WRITE.match(statement) is not None


def install(engine: AsyncEngine) -> None:
    """Give ``engine`` (a SQLite engine) its write lock: its connections take it before their
    first write of a transaction (the group commit's writer finds it by :func:`write_lock`)."""
    sync = engine.sync_engine
    lock = _LOCKS[sync] = asyncio.Lock()

    def before_execute(conn: Connection, _cursor: Any, statement: str, *_args: Any) -> None:
        if not conn.info.get(_HELD) and is_write(statement):
            # SQLAlchemy runs this on the event loop's thread, inside its greenlet: it may await.
            await_only(lock.acquire())
            conn.info[_HELD] = True

    def let_go(info: dict[Any, Any]) -> None:
        if info.pop(_HELD, False):
            lock.release()

    def release_record(_dbapi: Any, record: Any, *_args: Any) -> None:
        let_go(record.info)

    def after(end: Callable[[Any], None]) -> Callable[[Any], None]:
        def end_then_release(pooled: Any) -> None:
            try:
                end(pooled)
            finally:
                # Not every caller passes a pooled connection with its record's info (the
                # dialect's first connect passes a bare one): those never held the lock.
                try:
                    info = pooled.info
                except (AttributeError, NotImplementedError):
                    info = {}
                let_go(info)

        return end_then_release

    event.listen(sync, "before_cursor_execute", before_execute)
    # Let go once SQLite's own COMMIT or ROLLBACK has run, not at SQLAlchemy's commit and
    # rollback events: those come before it, and the next writer (the group commit's thread,
    # say) would find the file still locked. The dialect is this engine's own.
    dialect: Any = sync.dialect
    dialect.do_commit = after(dialect.do_commit)
    dialect.do_rollback = after(dialect.do_rollback)
    # An invalidated connection (a statement cancelled or broken half-way) is never rolled
    # back; one checked in holding the lock (it never ended its transaction) lets go there.
    event.listen(sync.pool, "checkin", release_record)
    event.listen(sync.pool, "invalidate", release_record)


def write_lock(engine: AsyncEngine) -> asyncio.Lock | None:
    """The write lock :func:`install` gave ``engine``, if any."""
    return _LOCKS.get(engine.sync_engine)
