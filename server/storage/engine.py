"""Database engine setup for any SQLAlchemy async URL (SQLite via aiosqlite, Postgres via
asyncpg) and the Alembic upgrade run at startup.

SQLite gets WAL journaling, foreign keys and a busy timeout on every connection; its folder is
created if missing. This module never defines tables (see :mod:`.models`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import URL, event, make_url, text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlalchemy.ext.asyncio import AsyncSession as AsyncSession

from .. import resources

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


def create_engine(url: str, **kwargs: Any) -> AsyncEngine:
    if is_sqlite(url):
        path = sqlite_path(url)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        engine = create_async_engine(url, connect_args={"timeout": 30}, **kwargs)
        event.listen(engine.sync_engine, "connect", sqlite_on_connect)
        return engine
    return create_async_engine(url, pool_pre_ping=True, **kwargs)


def sqlite_on_connect(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    # WAL lets readers run beside the one writer; NORMAL sync in WAL mode survives a process
    # crash (kill -9): only an OS crash could lose the last commits.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
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
