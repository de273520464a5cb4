"""Alembic environment (async). The database URL comes from, in order: a connection handed over
by the server (``config.attributes["connection"]``), ``config.attributes["url"]``, the
``DATABASE_URL`` environment variable, then ``sqlalchemy.url`` in alembic.ini."""

from __future__ import annotations

import asyncio
import os

from alembic import context
from sqlalchemy.engine import Connection

from server.config import normalize_database_url
from server.storage.engine import create_engine
from server.storage.models import Base

config = context.config
target_metadata = Base.metadata


def database_url() -> str:
    url = (
        config.attributes.get("url")
        or os.environ.get("DATABASE_URL")
        or config.get_main_option("sqlalchemy.url")
    )
    assert url, "no database URL: set DATABASE_URL"
    return normalize_database_url(url)


def do_run_migrations(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


async def run_async_migrations() -> None:
    engine = create_engine(database_url())
    try:
        async with engine.connect() as connection:
            await connection.run_sync(do_run_migrations)
            await connection.commit()
    finally:
        await engine.dispose()


def run_migrations_offline() -> None:
    context.configure(
        url=database_url(),
        target_metadata=target_metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
elif (connection := config.attributes.get("connection")) is not None:
    do_run_migrations(connection)
else:
    asyncio.run(run_async_migrations())
