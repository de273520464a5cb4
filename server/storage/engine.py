"""Database engine setup for any SQLAlchemy async URL (SQLite via aiosqlite, Postgres via
asyncpg) and the Alembic upgrade run at startup.

SQLite gets WAL journaling, foreign keys and a busy timeout on every connection; its folder is
created if missing. This module never defines tables (see :mod:`.models`).
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import weakref
from pathlib import Path
from typing import Any

import asyncpg
import msgspec
from alembic import command
from alembic.config import Config
from sqlalchemy import URL, event, make_url, text
from sqlalchemy.engine import Connection, ExceptionContext
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlalchemy.ext.asyncio import AsyncSession as AsyncSession

from .. import resources
from . import sqlite_lock

ROOT = Path(__file__).resolve().parents[2]
ALEMBIC_INI = resources.path("alembic.ini")
MIGRATIONS = resources.path("migrations")


def is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def sqlite_path(url: str | URL) -> Path | None:
    """The database file of a SQLite URL (None for an in-memory database)."""
    database = make_url(url).database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database)


SQLITE_BUSY_SECONDS = 5.0
"""How long a statement waits for another connection's lock on a SQLite file before it fails
(and the caller answers ``unavailable`` at once instead of hanging). Writes take milliseconds:
a longer wait means something else holds the file."""

_CONNECTION_ERRORS: tuple[type[BaseException], ...] = (
    OSError,  # connection refused or reset, a timeout
    asyncpg.exceptions.PostgresConnectionError,
    asyncpg.exceptions.OperatorInterventionError,  # the server shutting down, a backend killed
    asyncpg.exceptions.InterfaceError,
)


def store_unreachable(error: BaseException) -> bool:
    """Whether ``error`` means the database cannot be reached or is held by someone else now
    (try again later), rather than that something is wrong with the request or the schema.

    >>> import sqlite3
    >>> from sqlalchemy.exc import OperationalError
    >>> store_unreachable(OperationalError("UPDATE", {}, sqlite3.OperationalError("database is locked")))
    True
    >>> store_unreachable(OperationalError("INSERT", {}, sqlite3.OperationalError("no such table: players")))
    False

    Every pooled connection busy past the pool's timeout (a burst of thousands of requests at
    once) is the same "try again later":

    >>> from sqlalchemy.exc import TimeoutError as PoolTimeout
    >>> store_unreachable(PoolTimeout("QueuePool limit of size 5 overflow 10 reached"))
    True
    """
    if (isinstance(error, DBAPIError) and error.connection_invalidated) or broken_connection(error):
        return True
    if isinstance(error, PoolTimeout):
        return True
    raw = error.orig if isinstance(error, DBAPIError) else error  # (the group commit's are raw)
    if isinstance(raw, _CONNECTION_ERRORS):
        return True
    if isinstance(raw, sqlite3.OperationalError):
        message = str(raw).lower()
        return "database is locked" in message or "database is busy" in message
    return False


_probes: weakref.WeakKeyDictionary[AsyncEngine, asyncio.Task[None]] = weakref.WeakKeyDictionary()


async def reachable(engine: AsyncEngine, timeout: float) -> bool:
    """Whether the database answers a trivial query within ``timeout`` seconds.

    The query is never cancelled halfway: cancelling a pooled asyncpg connection mid-query can
    put it back in the pool still busy, and the next request on it fails with "another
    operation is in progress". A probe that outlives ``timeout`` finishes on its own (one at a
    time per engine; later calls wait on it)."""

    async def probe() -> None:
        async with engine.connect() as conn:
            await conn.execute(text("SELECT 1"))

    task = _probes.get(engine)
    if task is None or task.done():
        task = _probes[engine] = asyncio.ensure_future(probe())
        task.add_done_callback(lambda t: t.cancelled() or t.exception())  # retrieved, never logged
    try:
        await asyncio.wait_for(asyncio.shield(task), timeout)
    except Exception:
        return False
    return True


async def dispose(engine: AsyncEngine, wait: float = 5.0) -> None:
    """Dispose of ``engine`` once its health probe in flight, if any, has finished (at most
    ``wait`` seconds): a probe still running when the event loop closes leaves the driver's
    thread answering a closed loop ("Event loop is closed", seen in the tests' teardowns)."""
    task = _probes.get(engine)
    if task is not None and not task.done():
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.shield(task), wait)
    await engine.dispose()


def error_code(error: BaseException) -> str:
    """The driver's code for a database error, safe to log (never a statement's parameters, which
    may hold a seed): SQLite's error name, Postgres's SQLSTATE, else the exception's class.

    >>> import sqlite3
    >>> from sqlalchemy.exc import OperationalError
    >>> raw = sqlite3.OperationalError("database is locked")
    >>> raw.sqlite_errorname = "SQLITE_BUSY"
    >>> error_code(OperationalError("UPDATE matches SET seed=?", {"seed": "x"}, raw))
    'SQLITE_BUSY'
    """
    raw = error.orig if isinstance(error, DBAPIError) else error
    code = getattr(raw, "sqlite_errorname", None) or getattr(raw, "sqlstate", None)
    return str(code) if code else type(raw).__name__


_JSON = msgspec.json.Encoder()


def json_text(value: Any) -> str:
    """A JSON column's text (an action, a clock, a hand's result, on every write): msgspec's
    compact encoding, a tenth of the standard library's time for the same values. Read back with
    the standard library's decoder, like the rows written before (spaced, ASCII-escaped).

    >>> json_text({"kind": "discard", "card": "Qs"})
    '{"kind":"discard","card":"Qs"}'
    """
    return _JSON.encode(value).decode()


def create_engine(url: str, **kwargs: Any) -> AsyncEngine:
    kwargs.setdefault("json_serializer", json_text)
    if is_sqlite(url):
        path = sqlite_path(url)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        engine = create_async_engine(url, connect_args={"timeout": SQLITE_BUSY_SECONDS}, **kwargs)
        event.listen(engine.sync_engine, "connect", sqlite_on_connect)
        sqlite_lock.install(engine)
        return engine
    engine = create_async_engine(url, pool_pre_ping=True, **kwargs)
    event.listen(engine.sync_engine, "handle_error", discard_broken_connection)
    return engine


def broken_connection(error: BaseException | None) -> bool:
    """Whether ``error`` says the asyncpg connection itself is in a state no later statement can
    use: the client's protocol still busy with an earlier operation (one whose backend was
    terminated, say: the server's error arrived before the socket closed).

    >>> broken_connection(asyncpg.exceptions.InternalClientError(
    ...     "cannot switch to state 15; another operation (2) is in progress"))
    True
    >>> broken_connection(asyncpg.exceptions.UniqueViolationError("duplicate key"))
    False
    """
    while error is not None:
        if isinstance(error, asyncpg.exceptions.InternalClientError):
            return True
        if isinstance(error, asyncpg.exceptions.InterfaceError) and "another operation" in str(error):
            return True
        error = error.__cause__
    return False


def discard_broken_connection(context: ExceptionContext) -> None:
    """Tell SQLAlchemy a broken connection (:func:`broken_connection`) is a disconnect, so the
    pool throws it away instead of handing it out again. On the pre-ping at checkout (the
    common case: the connection broke while idle in the pool) SQLAlchemy then connects afresh
    and the request goes on as if nothing happened."""
    if not context.is_disconnect and broken_connection(context.original_exception):
        context.is_disconnect = True


WAL_AUTOCHECKPOINT = 10_000
"""The write-ahead log's length in pages (40 MB) past which a commit checkpoints it (SQLite's
default: 1,000). A backstop: the group commit's checkpointer copies the log beside the writes,
at most half a second behind them."""


def sqlite_on_connect(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    # WAL lets readers run beside the one writer; NORMAL sync in WAL mode survives a process
    # crash (kill -9): only an OS crash could lose the last commits.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    # The group commit's checkpointer keeps the log short (.sqlite_checkpoint); a commit
    # checkpoints only past this, should it ever fall that far behind.
    cursor.execute(f"PRAGMA wal_autocheckpoint={WAL_AUTOCHECKPOINT}")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA busy_timeout={int(SQLITE_BUSY_SECONDS * 1000)}")
    cursor.close()


def session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, expire_on_commit=False)


def alembic_config(url: str | None = None) -> Config:
    cfg = Config(str(ALEMBIC_INI))
    cfg.set_main_option("script_location", str(MIGRATIONS))
    if url is not None:
        cfg.attributes["url"] = url
    return cfg


async def upgrade(engine: AsyncEngine, revision: str = "head") -> None:
    """Bring the database to ``revision`` over one of the engine's connections."""
    async with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            # Several server processes may start at once: one migrates, the others wait.
            await conn.execute(text("SELECT pg_advisory_xact_lock(7243010)"))
        await conn.run_sync(_upgrade, revision)


def _upgrade(connection: Connection, revision: str) -> None:
    cfg = alembic_config()
    cfg.attributes["connection"] = connection
    command.upgrade(cfg, revision)


def own_connection(path: Path, timeout: float, cached_statements: int = 128) -> sqlite3.Connection:
    """A raw sqlite3 connection to the file at ``path`` set up as the engine's are, waiting
    ``timeout`` seconds for a lock (its own ``busy_timeout``, not the engine's), for the group
    commit's writer and reader (``cached_statements``: sqlite3's own default unless given)."""
    conn = sqlite3.connect(
        str(path),
        timeout=timeout,
        isolation_level=None,
        check_same_thread=False,
        cached_statements=cached_statements,
    )
    try:
        sqlite_on_connect(conn, None)
        conn.execute(f"PRAGMA busy_timeout={int(timeout * 1000)}")
    except BaseException:
        conn.close()
        raise
    return conn
