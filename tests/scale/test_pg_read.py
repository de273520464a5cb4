"""On Postgres, the reads a hello and a replica's catch-up make (the match's row and the actions
after a number, the player by token, the seats' bot accounts): each one statement on a connection
of the store's own (server/storage/pg_read.py), giving exactly what the engine's reads give, and
surviving a connection that Postgres dropped."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from server.storage import SqlStore, create_engine, upgrade
from server.storage.group_commit import GroupCommitStore
from tests.scale.test_group_commit import step
from tests.storage.records import make_match, make_player
from tests.storage.test_sqlite_read import played, same_reads

pytestmark = pytest.mark.postgres


@pytest.fixture
async def stores(fresh_database):
    engine = create_engine(fresh_database)
    await upgrade(engine)
    store = GroupCommitStore(engine)
    try:
        yield store, SqlStore(engine)
    finally:
        await store.close()
        await engine.dispose()


async def test_the_postgres_catch_up_read_gives_what_the_sql_read_gives(stores):
    store, plain = stores
    ada, bob = await make_player(store, "Ada"), await make_player(store, "Bob")
    waiting = await make_match(store, ada, opponent="human", status="waiting")
    both = await make_match(store, ada, opponent="human", seat_ids=[ada.player_id, bob.player_id])
    both.seat_names = ["Ada", "Bob"]
    meta = both
    for seq in range(1, 6):
        change = step(meta, seq, client_id=f"c{seq}", hand=seq == 3)
        assert await store.commit(change)
        meta = change.meta
    assert store._pg_read is not None  # Postgres: the read of its own
    for match, after in ((both, 0), (both, 2), (both, 5), (waiting, 0)):
        fast = await store.load_match_after(match.match_id, after)
        assert fast == await plain.load_match_after(match.match_id, after)
        assert fast is not None and [a.seq for a in fast[1]] == list(
            range(after + 1, 6 if match is both else 1)
        )
    assert (await store.load_match_after(both.match_id, 0))[0].seat_names == ["Ada", "Bob"]
    assert (await store.load_match_after(waiting.match_id, 0))[0].seat_names == ["Ada", None]
    assert await store.load_match_after("m_none", 0) is None


async def test_a_read_connection_postgres_dropped_is_replaced(stores, postgres_admin):
    store, _ = stores
    ada = await make_player(store)
    match = await make_match(store, ada)
    assert await store.commit(step(match, 1))
    assert len((await store.load_match_after(match.match_id, 0))[1]) == 1
    admin = await asyncpg.connect(postgres_admin)
    try:
        pid = store._pg_read.connection.connection.get_server_pid()
        assert await admin.fetchval("SELECT pg_terminate_backend($1)", pid)
    finally:
        await admin.close()
    await asyncio.sleep(0.1)
    assert len((await store.load_match_after(match.match_id, 0))[1]) == 1  # on a new connection
    assert store._pg_read.connection.connection.get_server_pid() != pid
    assert await store.player_by_token_hash("no such hash") is None


async def test_a_hellos_reads_on_postgres_give_what_the_engines_reads_give(fresh_database):
    """Every kind of row (times, JSON, flags; a bot account), read by the store's own statements
    and by the engine: the same values."""
    engine, store, ids, players = await played(fresh_database)
    try:
        await same_reads(engine, store, ids, players)
    finally:
        await store.close()
        await engine.dispose()
