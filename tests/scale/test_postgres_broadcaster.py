"""The Postgres LISTEN/NOTIFY broadcaster: what one process publishes reaches the listeners of
every other process, in order, only once committed, and survives a lost connection."""

from __future__ import annotations

import asyncio
import secrets

import asyncpg
import pytest

from server.storage.notify import PostgresBroadcaster

pytestmark = pytest.mark.postgres


def sa_url(dsn: str) -> str:
    return dsn.replace("postgresql://", "postgresql+asyncpg://", 1)


@pytest.fixture
def channel() -> str:
    return f"gin_test_{secrets.token_hex(6)}"


class Heard:
    """A listener that records what it hears and lets a test wait for it."""

    def __init__(self) -> None:
        self.events: list[tuple[str, int]] = []
        self.changed = asyncio.Event()

    def __call__(self, match_id: str, version: int) -> None:
        self.events.append((match_id, version))
        self.changed.set()

    async def until(self, count: int, timeout: float = 5.0) -> list[tuple[str, int]]:
        async def wait() -> None:
            while len(self.events) < count:
                self.changed.clear()
                await self.changed.wait()

        await asyncio.wait_for(wait(), timeout)
        return self.events


async def broadcasters(dsn: str, channel: str, n: int = 2, **kw) -> list[PostgresBroadcaster]:
    return [await PostgresBroadcaster.connect(sa_url(dsn), channel=channel, **kw) for _ in range(n)]


async def test_a_change_published_by_one_process_reaches_the_listeners_of_another(postgres_admin, channel):
    a, b = await broadcasters(postgres_admin, channel)
    heard_a, heard_b = Heard(), Heard()
    a.listen(heard_a)
    b.listen(heard_b)
    try:
        await a.publish("m_one", 3)
        assert await heard_b.until(1) == [("m_one", 3)]
        await asyncio.sleep(0.2)
        # The publisher told its own sockets already: its notification does not come back to it.
        assert heard_a.events == []
    finally:
        await a.close()
        await b.close()


async def test_many_changes_arrive_in_the_order_they_were_published(postgres_admin, channel):
    a, b = await broadcasters(postgres_admin, channel)
    heard = Heard()
    b.listen(heard)
    try:
        for v in range(1, 1201):  # more than one batch
            await a.publish(f"m_{v % 7}", v)
        events = await heard.until(1200)
        assert [v for _, v in events] == list(range(1, 1201))
        assert [m for m, _ in events] == [f"m_{v % 7}" for v in range(1, 1201)]
    finally:
        await a.close()
        await b.close()


async def test_the_liveness_check_never_drops_a_connection_busy_publishing(postgres_admin, channel):
    # The check ran a query beside a publish on the same connection: asyncpg refused the second
    # ("another operation is in progress"), taken for a dead connection: dropped, reconnected,
    # and what the other processes would have heard meanwhile lost.
    (a,) = await broadcasters(postgres_admin, channel, n=1, check_interval=0.01)
    (b,) = await broadcasters(postgres_admin, channel, n=1)
    heard = Heard()
    b.listen(heard)
    try:
        for v in range(1, 3001):
            await a.publish("m_busy", v)
            if v % 20 == 0:
                await asyncio.sleep(0.002)  # publishing in bursts, the check between them
        assert [v for _, v in await heard.until(3000, timeout=20)] == list(range(1, 3001))
        assert a.reconnections == 0
        # Quiet, the check still runs its query, between publishes: the connection stays.
        await asyncio.sleep(0.1)
        await a.publish("m_busy", 3001)
        assert (await heard.until(3001))[-1] == ("m_busy", 3001) and a.reconnections == 0
    finally:
        await a.close()
        await b.close()


async def test_async_listeners_run_and_a_failing_listener_does_not_stop_the_others(postgres_admin, channel):
    a, b = await broadcasters(postgres_admin, channel)
    heard = Heard()
    done = asyncio.Event()

    def broken(match_id: str, version: int) -> None:
        raise RuntimeError("listener bug")

    async def slow(match_id: str, version: int) -> None:
        await asyncio.sleep(0.01)
        done.set()

    b.listen(broken)
    b.listen(slow)
    b.listen(heard)
    try:
        await a.publish("m_x", 1)
        assert await heard.until(1) == [("m_x", 1)]
        await asyncio.wait_for(done.wait(), 5)
    finally:
        await a.close()
        await b.close()


async def test_a_notification_is_delivered_only_when_its_transaction_commits(postgres_admin, channel):
    (b,) = await broadcasters(postgres_admin, channel, n=1)
    heard = Heard()
    b.listen(heard)
    sql = "SELECT pg_notify($1, $2)"
    conn = await asyncpg.connect(postgres_admin)
    try:
        tx = conn.transaction()
        await tx.start()
        await conn.execute(sql, channel, "m_rolled_back 1")
        await tx.rollback()
        async with conn.transaction():
            await conn.execute(sql, channel, "m_committed 2")
            await asyncio.sleep(0.3)
            assert heard.events == [], "a notification was delivered before its commit"
        assert await heard.until(1) == [("m_committed", 2)]
        await asyncio.sleep(0.2)
        assert heard.events == [("m_committed", 2)]
    finally:
        await conn.close()
        await b.close()


async def test_malformed_payloads_on_the_channel_are_ignored(postgres_admin, channel):
    (b,) = await broadcasters(postgres_admin, channel, n=1)
    heard = Heard()
    b.listen(heard)
    conn = await asyncpg.connect(postgres_admin)
    try:
        for payload in ["", "m_x", "m_x seven", "m_x 1 2", "m_x -1", " 3", "m_ok 4"]:
            await conn.execute("SELECT pg_notify($1, $2)", channel, payload)
        assert await heard.until(1) == [("m_ok", 4)]
        await asyncio.sleep(0.2)
        assert heard.events == [("m_ok", 4)]
    finally:
        await conn.close()
        await b.close()


async def test_a_lost_connection_is_restored_and_reported_as_a_gap(postgres_admin, channel):
    a, b = await broadcasters(postgres_admin, channel, reconnect_delay=0.1, check_interval=0.5)
    heard = Heard()
    gaps = asyncio.Event()
    b.listen(heard)
    b.on_gap(gaps.set)
    admin = await asyncpg.connect(postgres_admin)
    try:
        pid = b._conn.get_server_pid()
        assert await admin.fetchval("SELECT pg_terminate_backend($1)", pid)
        await asyncio.wait_for(gaps.wait(), 10)
        assert b.reconnections == 1
        assert b._conn.get_server_pid() != pid
        await a.publish("m_after", 9)
        assert await heard.until(1) == [("m_after", 9)]
        # The publishing side recovers too.
        assert await admin.fetchval("SELECT pg_terminate_backend($1)", a._conn.get_server_pid())
        await asyncio.sleep(0.1)
        await a.publish("m_after", 10)
        assert (await heard.until(2, timeout=10))[-1] == ("m_after", 10)
    finally:
        await admin.close()
        await a.close()
        await b.close()


async def test_a_closed_broadcaster_hears_nothing_more_and_closes_twice_quietly(postgres_admin, channel):
    a, b = await broadcasters(postgres_admin, channel)
    heard = Heard()
    b.listen(heard)
    await b.close()
    await b.close()
    try:
        await a.publish("m_x", 1)
        await asyncio.sleep(0.3)
        assert heard.events == []
    finally:
        await a.close()


async def test_transactional_mode_leaves_notifying_to_the_commit(postgres_admin, channel):
    a, b = await broadcasters(postgres_admin, channel, transactional=True)
    heard = Heard()
    b.listen(heard)
    try:
        await a.publish("m_x", 1)  # a no-op: the store's commit sends it
        await asyncio.sleep(0.3)
        assert heard.events == [] and a.published == 0
    finally:
        await a.close()
        await b.close()


def test_a_channel_name_that_is_not_an_identifier_is_refused():
    with pytest.raises(ValueError, match="channel"):
        PostgresBroadcaster("postgresql+asyncpg://x@localhost/db", channel='x"; DROP TABLE matches; --')
    with pytest.raises(ValueError, match="not a Postgres URL"):
        PostgresBroadcaster("sqlite+aiosqlite:///x.db")


class _Gone:
    """A connection already closed (as after a drop, before its termination callback has run)."""

    def is_closed(self) -> bool:
        return True


@pytest.mark.timeout(30)  # before the fix: the event loop held for good, and this test with it
async def test_a_connection_gone_before_it_is_noticed_never_holds_the_event_loop():
    b = PostgresBroadcaster("postgresql://127.0.0.1/unused", channel="gin_unit", reconnect_delay=0.01)
    b._conn = _Gone()  # type: ignore[assignment]
    b._connected.set()  # the supervisor has not yet heard that it is gone
    b._pending.append("m_1:1")
    with pytest.raises(TimeoutError):  # it waits, yielding, for the reconnection
        await asyncio.wait_for(b._drain(), 0.2)
    assert b._pending == ["m_1:1"]  # kept, to be sent once reconnected
