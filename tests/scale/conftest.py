"""Fixtures for the hosting-at-scale tests: the real Postgres (skipped, saying why, when it
cannot be reached) and a fresh database per test, created under a random name and dropped
afterwards, so runs never see each other's matches."""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import secrets
from collections.abc import AsyncIterator

import asyncpg
import pytest

# The admin connection used to create and drop the per-test databases.
ADMIN_DSN = os.environ.get("GINRUMMY_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")


def _reachable(dsn: str) -> str | None:
    async def probe() -> None:
        conn = await asyncpg.connect(dsn, timeout=3)
        await conn.close()

    # In a thread of its own: the fixture may first be asked for from inside a running loop.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        try:
            pool.submit(asyncio.run, probe()).result()
        except Exception as e:
            return f"{type(e).__name__}: {e}"
    return None


@pytest.fixture(scope="session")
def postgres_admin() -> str:
    """The admin DSN of a reachable Postgres, or the test is skipped with the reason."""
    problem = _reachable(ADMIN_DSN)
    if problem is not None:
        pytest.skip(f"PostgreSQL not reachable at {ADMIN_DSN} ({problem}); set GINRUMMY_TEST_POSTGRES")
    return ADMIN_DSN


def _with_database(dsn: str, name: str) -> str:
    head, _, _ = dsn.rpartition("/")
    return f"{head}/{name}"


@pytest.fixture
async def fresh_database(postgres_admin: str) -> AsyncIterator[str]:
    """A new empty database; yields its SQLAlchemy URL (``postgresql+asyncpg://...``)."""
    name = f"gin_test_{secrets.token_hex(6)}"
    admin = await asyncpg.connect(postgres_admin)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    try:
        yield _with_database(postgres_admin, name).replace("postgresql://", "postgresql+asyncpg://", 1)
    finally:
        admin = await asyncpg.connect(postgres_admin)
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()
