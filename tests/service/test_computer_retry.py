"""A computer move whose write fails is tried again, after a pause doubling from 0.5 s up to
10 s on the service clock, for as long as it is still the computer's turn: when the store is
back the move lands and the subscribers see it, so the human is never left waiting."""

from __future__ import annotations

import asyncio
import sqlite3
import time

import pytest

from server.service import FakeClock, MatchService, SeatUpdate
from server.service.computer import RETRY_FIRST, RETRY_MOST
from server.service.ports import COMPUTER_SEAT
from server.storage import MemoryStore, SqlStore, create_engine, upgrade
from server.storage.group_commit import GroupCommitStore
from tests.scale import conftest as scale

# The Postgres fixtures of the scale tests (a fresh database per test, skipped when unreachable).
postgres_admin = scale.postgres_admin
fresh_database = scale.fresh_database


class Recorder:
    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.updates: list[SeatUpdate] = []

    def deliver(self, update: SeatUpdate) -> None:
        self.updates.append(update)


class FlakyStore(MemoryStore):
    """Fails the computer's commits ``failures`` times; while ``down`` every commit and load
    fails (so a copy left holding the unwritten move cannot be rebuilt either)."""

    def __init__(self, clock: FakeClock, failures: int = 0) -> None:
        super().__init__()
        self.clock = clock
        self.failures = failures
        self.down = False
        self.attempts: list[float] = []
        """When the computer's commits were tried (on the fake clock), or while ``down``, when
        its tries failed to rebuild the match first."""

    async def commit(self, change):
        if change.action is not None and change.action.seat == COMPUTER_SEAT:
            self.attempts.append(self.clock.elapsed)
            if self.failures > 0:
                self.failures -= 1
                raise ConnectionRefusedError("the database is not there")
        if self.down:
            raise ConnectionRefusedError("the database is not there")
        return await super().commit(change)

    async def load_match(self, match_id):
        if self.down:
            if self.attempts[-1:] != [self.clock.elapsed]:
                self.attempts.append(self.clock.elapsed)  # a try that failed at rebuilding
            raise ConnectionRefusedError("the database is not there")
        return await super().load_match(match_id)


async def computer_to_move(service: MatchService):
    """A match against the computer, watched by seat 0, the human having played until it is the
    computer's turn (no time passes: the computer moves only once the clock moves)."""
    ada, _ = await service.create_player("Ada")
    created = await service.create_match(ada)
    live = await service.cache.get(created.meta.match_id)
    watcher = Recorder(0)
    await service.subscribe(live, watcher)
    while live.state.to_act != COMPUTER_SEAT:
        legal = live.state.legal_actions(0)
        await service.act(live, 0, None, live.meta.version, legal[0].to_wire())
    watcher.updates.clear()
    if isinstance(service.clock, FakeClock):
        await service.clock.settle()  # the computer's task is asleep on the clock now
    return live, watcher


async def test_a_computer_move_that_fails_to_write_is_retried_with_backoff_until_it_lands():
    clock = FakeClock()
    store = FlakyStore(clock)
    service = MatchService(store, bot_delay=0.5, clock=clock)
    live, watcher = await computer_to_move(service)
    version = live.meta.version
    store.failures = 3
    start = clock.elapsed
    # Tried at 0.5 s (the computer's pause), then after 0.5, 1 and 2 s more.
    await clock.advance(0.5 + 0.5 + 1 + 2 - 0.1)
    assert [round(t - start, 3) for t in store.attempts] == [0.5, 1.0, 2.0]
    assert live.meta.version == version and watcher.updates == []
    assert live.bot_task is not None  # still on it
    await clock.advance(0.2)
    assert [round(t - start, 3) for t in store.attempts] == [0.5, 1.0, 2.0, 4.0]
    assert live.meta.version > version
    assert watcher.updates and watcher.updates[-1].meta.version == live.meta.version
    stored, actions = await store.load_match(live.match_id)
    assert stored.version == live.meta.version and actions[-1].seat == COMPUTER_SEAT
    await service.close()


async def test_while_the_store_is_down_the_pause_doubles_up_to_its_cap_and_the_move_lands_after():
    clock = FakeClock()
    store = FlakyStore(clock)
    service = MatchService(store, bot_delay=0.5, clock=clock)
    live, watcher = await computer_to_move(service)
    version = live.meta.version
    store.down = True
    start = clock.elapsed
    await clock.advance(60)
    gaps = [round(b - a, 3) for a, b in zip([start, *store.attempts], store.attempts)]
    assert gaps[:7] == [0.5, RETRY_FIRST, 1.0, 2.0, 4.0, 8.0, RETRY_MOST]
    assert set(gaps[7:]) <= {RETRY_MOST}
    assert live.meta.version == version and watcher.updates == []
    store.down = False
    await clock.advance(RETRY_MOST)
    assert live.meta.version > version
    assert watcher.updates[-1].meta.version == live.meta.version
    assert live.state.to_act != COMPUTER_SEAT or live.bot_task is not None
    await service.close()


async def test_the_computer_stops_retrying_when_the_service_closes():
    clock = FakeClock()
    store = FlakyStore(clock, failures=10**6)
    service = MatchService(store, bot_delay=0.5, clock=clock)
    live, _ = await computer_to_move(service)
    await clock.advance(5)
    tries = len(store.attempts)
    assert tries >= 3
    await service.close()
    await clock.advance(60)
    assert len(store.attempts) == tries and live.bot_task is None


async def test_on_a_sqlite_file_locked_by_another_connection_the_computer_moves_once_it_is_released(tmp_path):
    path = tmp_path / "locked.db"
    engine = create_engine(f"sqlite+aiosqlite:///{path}")
    await upgrade(engine)
    store = GroupCommitStore(engine, sqlite_timeout=0.05)
    service = MatchService(store, bot_delay=0.3)
    try:
        live, watcher = await computer_to_move(service)
        version = live.meta.version
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN EXCLUSIVE")
        try:
            started = time.monotonic()
            # The computer's write at 0.3 s fails, and so does its try again 0.5 s later.
            await asyncio.sleep(1.0)
            assert live.meta.version == version and watcher.updates == []
        finally:
            other.execute("ROLLBACK")
            other.close()
        for _ in range(100):
            if live.meta.version > version:
                break
            await asyncio.sleep(0.05)
        assert live.meta.version > version, "the computer never moved after the lock was released"
        assert time.monotonic() - started < 4
        assert watcher.updates[-1].meta.version == live.meta.version
        stored, actions = await SqlStore(engine).load_match(live.match_id)
        assert stored.version == live.meta.version and actions[-1].seat == COMPUTER_SEAT
    finally:
        await service.close()
        await store.close()
        await engine.dispose()


@pytest.mark.postgres
async def test_on_postgres_the_computer_moves_after_the_servers_backends_are_terminated(fresh_database):
    """Every backend of the database terminated once mid-match, in the middle of the computer's
    write (between its statements, where no driver or pool can hide it): the move is written
    on the next try."""
    import asyncpg
    from sqlalchemy import event

    engine = create_engine(fresh_database)
    await upgrade(engine)
    armed = False
    terminated = 0

    def terminate_all() -> int:
        async def run() -> int:
            admin = await asyncpg.connect(fresh_database.replace("+asyncpg", ""))
            try:
                rows = await admin.fetch(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
                return sum(1 for r in rows if r[0])
            finally:
                await admin.close()

        return asyncio.run(run())  # (this hook runs in the event loop's thread, blocking it)

    @event.listens_for(engine.sync_engine, "before_cursor_execute")
    def kill_mid_write(conn, cursor, statement, parameters, context, executemany):
        nonlocal armed, terminated
        if armed and statement.lstrip().upper().startswith("UPDATE MATCHES"):
            armed = False
            import concurrent.futures

            with concurrent.futures.ThreadPoolExecutor(1) as pool:
                terminated = pool.submit(terminate_all).result()

    store = SqlStore(engine)
    service = MatchService(store, bot_delay=0.05)
    try:
        live, watcher = await computer_to_move(service)
        version = live.meta.version
        armed = True
        for _ in range(100):
            if live.meta.version > version:
                break
            await asyncio.sleep(0.05)
        assert terminated >= 1 and not armed  # the kill did happen, mid-write
        assert live.meta.version > version, "the computer never moved after the backends were terminated"
        assert watcher.updates[-1].meta.version == live.meta.version
        stored, actions = await store.load_match(live.match_id)
        assert stored.version == live.meta.version and actions[-1].seat == COMPUTER_SEAT
    finally:
        await service.close()
        await engine.dispose()
