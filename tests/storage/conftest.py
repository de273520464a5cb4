"""Storage fixtures: every storage test runs on SQLite, and on PostgreSQL too when the server at
127.0.0.1:5432 is reachable (in a schema of its own, dropped afterwards); otherwise the
Postgres run is skipped saying why."""

from __future__ import annotations

import os
import secrets
from collections.abc import AsyncIterator

import pytest
from sqlalchemy import text

from server.storage import SqlStore, create_engine, upgrade

POSTGRES_URL = os.environ.get("GINRUMMY_TEST_POSTGRES", "postgresql+asyncpg://postgres@127.0.0.1:5432/test")


async def _postgres_engine(schema: str):
    import asyncpg

    try:
        conn = await asyncpg.connect(POSTGRES_URL.replace("+asyncpg", ""), timeout=3)
    except (OSError, asyncpg.PostgresError) as e:
        pytest.skip(f"PostgreSQL is not reachable at {POSTGRES_URL}: {e}")
    try:
        await conn.execute(f'CREATE SCHEMA "{schema}"')
    finally:
        await conn.close()
    return create_engine(POSTGRES_URL, connect_args={"server_settings": {"search_path": schema}})


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def engine(request, tmp_path) -> AsyncIterator:
    if request.param == "sqlite":
        eng = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'storage.db'}")
        schema = None
    else:
        schema = f"test_{secrets.token_hex(6)}"
        eng = await _postgres_engine(schema)
    try:
        await upgrade(eng)
        yield eng
    finally:
        if schema is not None:
            async with eng.begin() as conn:
                await conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        await eng.dispose()


@pytest.fixture
async def store(engine) -> SqlStore:
    return SqlStore(engine)
