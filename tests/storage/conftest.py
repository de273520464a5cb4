"""Storage fixtures: every storage test runs on SQLite, and on PostgreSQL too when the server at
127.0.0.1:5432 is reachable (in a schema of its own, dropped afterwards); otherwise the
Postgres run is skipped saying why."""

from __future__ import annotations

import os
import secrets
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest
from sqlalchemy import text

from server.service.ports import MatchMeta, PlayerRecord
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


def now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


async def make_player(store: SqlStore, name: str = "Ada") -> PlayerRecord:
    player = PlayerRecord("p_" + secrets.token_hex(8), name, secrets.token_hex(32), now())
    await store.create_player(player)
    return player


async def make_match(store: SqlStore, player: PlayerRecord, **changes) -> MatchMeta:
    meta = MatchMeta(
        match_id="m_" + secrets.token_hex(8),
        rules="house",
        opponent="computer",
        difficulty="normal",
        seed=secrets.token_hex(16),
        first_starter=0,
        status="active",
        version=0,
        seat_ids=[player.player_id, None],
        seat_names=[player.name, None],
        watch_token_hash=secrets.token_hex(32),
        invite_hash=None,
        hand_number=1,
        scores=[0, 0],
        hands_won=[0, 0],
        winner=None,
        resigned=None,
        outcome=None,
        created_at=now(),
        updated_at=now(),
    )
    for key, value in changes.items():
        setattr(meta, key, value)
    await store.create_match(meta)
    return meta
