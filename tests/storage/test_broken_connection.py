"""A pooled asyncpg connection whose protocol is stuck in an earlier operation is thrown away,
not handed to the next request. The soak met it after terminating a Postgres backend: the
server's "terminating connection" error reached the idle pooled connection before its socket
closed, and the next checkout's pre-ping failed with asyncpg's "cannot switch to state 15;
another operation (2) is in progress", failing a player's message instead of reconnecting."""

from __future__ import annotations

import asyncpg
import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from .databases import database

pytestmark = pytest.mark.postgres

STUCK = "cannot switch to state 15; another operation (2) is in progress"


async def test_a_connection_stuck_at_checkout_is_replaced_and_the_request_goes_on(
    tmp_path, monkeypatch
) -> None:
    async with database("postgres", tmp_path) as engine:
        async with engine.connect() as conn:
            first_pid = (await conn.execute(text("SELECT pg_backend_pid()"))).scalar_one()
        dialect = engine.sync_engine.dialect
        real_ping = dialect.do_ping
        stuck = {"left": 1}

        def ping(dbapi_connection):  # what the stuck protocol answers, once
            if stuck["left"]:
                stuck["left"] -= 1
                dbapi_connection._handle_exception(asyncpg.exceptions.InternalClientError(STUCK))
            return real_ping(dbapi_connection)

        monkeypatch.setattr(dialect, "do_ping", ping)
        async with engine.connect() as conn:
            pid = (await conn.execute(text("SELECT pg_backend_pid()"))).scalar_one()
        assert stuck["left"] == 0
        assert pid != first_pid  # a fresh connection, not the stuck one


async def test_a_statement_failing_on_a_stuck_connection_invalidates_it(tmp_path, monkeypatch) -> None:
    async with database("postgres", tmp_path) as engine:
        async with engine.connect() as conn:
            first_pid = (await conn.execute(text("SELECT pg_backend_pid()"))).scalar_one()
            raw = (await conn.get_raw_connection()).dbapi_connection

            async def prepare(*_args, **_kwargs):
                raise asyncpg.exceptions.InternalClientError(STUCK)

            monkeypatch.setattr(type(raw), "_prepare", prepare)
            with pytest.raises(DBAPIError) as failed:
                await conn.execute(text("SELECT 1"))
            monkeypatch.undo()
            assert failed.value.connection_invalidated
        async with engine.connect() as conn:
            pid = (await conn.execute(text("SELECT pg_backend_pid()"))).scalar_one()
        assert pid != first_pid


async def test_the_group_commits_own_connection_stuck_is_replaced_and_the_batch_lands(
    tmp_path, monkeypatch
) -> None:
    # The soak's terminated backend took the group commit's own (unpooled) connection too.
    from server.storage.group_commit import GroupCommitStore
    from tests.scale.test_group_commit import matches, step

    async with database("postgres", tmp_path) as engine:
        store = GroupCommitStore(engine)
        try:
            (m,) = await matches(store, 1)
            assert await store.commit(step(m, 1))
            stuck = store._pg.connection
            assert stuck is not None

            real_fetch = type(stuck).fetch

            async def fetch(self, *args, **kwargs):  # the stuck one only; a fresh one works
                if self is stuck:
                    raise asyncpg.exceptions.InternalClientError(STUCK)
                return await real_fetch(self, *args, **kwargs)

            monkeypatch.setattr(type(stuck), "fetch", fetch)
            m = (await store.load_match(m.match_id))[0]
            assert await store.commit(step(m, 2))  # on a fresh connection, not an error
            assert store._pg.connection is not stuck and stuck.is_closed()
            assert (await store.load_match(m.match_id))[0].version == 2
        finally:
            await store.close()
