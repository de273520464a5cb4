"""Databases for storage tests: a SQLite file, or a schema of its own on the PostgreSQL server
at 127.0.0.1:5432 (dropped afterwards), skipping saying why when it is not reachable."""

from __future__ import annotations

import os
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from server.storage import create_engine, upgrade

POSTGRES_URL = os.environ.get("GINRUMMY_TEST_POSTGRES", "postgresql+asyncpg://postgres@127.0.0.1:5432/test")


async def _postgres_engine(schema: str) -> AsyncEngine:
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


@asynccontextmanager
async def database(kind: str, tmp_path: Path, revision: str = "head") -> AsyncIterator[AsyncEngine]:
    """An engine on ``kind`` ("sqlite" or "postgres") migrated to ``revision``."""
    if kind == "sqlite":
        eng = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'storage.db'}")
        schema = None
    else:
        schema = f"test_{secrets.token_hex(6)}"
        eng = await _postgres_engine(schema)
    try:
        await upgrade(eng, revision)
        yield eng
    finally:
        if schema is not None:
            async with eng.begin() as conn:
                await conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        await eng.dispose()
