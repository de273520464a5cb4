"""The SQLite file's write lock inside one process (:mod:`server.storage.sqlite_lock`): writers
wait for each other in turn instead of polling SQLite's own lock, so a write never fails for
being overtaken. Every test runs with SQLite's busy timeout at 0, where any write that reached
SQLite while another held the file would fail at once: passing means they waited in turn."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import text

from server.storage import create_engine, upgrade
from server.storage import engine as engine_module
from server.storage.group_commit import GroupCommitStore
from server.storage.sqlite_lock import write_lock
from tests.scale.test_group_commit import matches, step

TOUCH = text("UPDATE matches SET version = version WHERE id = :id")


@pytest.fixture
async def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(engine_module, "SQLITE_BUSY_SECONDS", 0.0)
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'lock.db'}")
    await upgrade(engine)
    s = GroupCommitStore(engine, sqlite_timeout=0.0, sqlite_inline=4)
    try:
        yield s
    finally:
        await s.close()
        await engine.dispose()


async def hold_the_file(store: GroupCommitStore, match_id: str, release: asyncio.Event) -> None:
    """A REST-style transaction that has written and then waits (as one does for the event loop
    between its statement and its COMMIT)."""
    async with store.engine.begin() as conn:
        await conn.execute(TOUCH, {"id": match_id})
        await release.wait()


async def until(condition: Callable[[], bool]) -> None:
    """Until ``condition`` holds (the other tasks' statements run on aiosqlite's threads), at
    most 10 s."""
    for _ in range(2000):
        if condition():
            return
        await asyncio.sleep(0.005)
    raise AssertionError("never happened")


def queued(lock: asyncio.Lock) -> int:
    return len(lock._waiters or ())  # asyncio.Lock's own queue of waiters


async def test_a_write_waits_in_turn_for_another_transactions_write(store):
    (m,) = await matches(store, 1)
    lock = write_lock(store.engine)
    assert lock is not None and not lock.locked()
    release = asyncio.Event()
    holder = asyncio.create_task(hold_the_file(store, m.match_id, release))
    second = asyncio.create_task(matches(store, 1))  # a new player and a new match: two writes
    await until(lambda: queued(lock) == 1 or second.done())
    assert not second.done(), second.exception()  # without the lock: "database is locked"
    release.set()
    await holder
    (created,) = await second
    assert (await store.load_match(created.match_id)) is not None
    assert not lock.locked()


async def test_a_group_commit_batch_waits_in_turn_on_the_writer_thread(store):
    (m,) = await matches(store, 1)
    lock = write_lock(store.engine)
    assert lock is not None
    release = asyncio.Event()
    holder = asyncio.create_task(hold_the_file(store, m.match_id, release))
    await until(lock.locked)
    commit = asyncio.create_task(store.commit(step(m, 1)))
    await until(lambda: queued(lock) == 1 or commit.done())
    assert not commit.done(), commit.exception()
    release.set()
    await holder
    assert await commit
    assert store.sqlite is not None and store.sqlite.thread_batches == 1  # not inline while held
    assert (await store.load_match(m.match_id))[0].version == 1


async def test_the_lock_is_let_go_on_rollback_and_never_taken_by_reads(store):
    (m,) = await matches(store, 1)
    lock = write_lock(store.engine)
    assert lock is not None
    with pytest.raises(RuntimeError):
        async with store.engine.begin() as conn:
            await conn.execute(TOUCH, {"id": m.match_id})
            assert lock.locked()
            raise RuntimeError("the request failed half-way")
    assert not lock.locked()
    async with store.engine.connect() as conn:
        await conn.execute(text("SELECT version FROM matches"))
        assert not lock.locked()
    assert await store.commit(step(m, 1))  # and the group commit writes as before


async def test_a_cancelled_holder_and_a_cancelled_waiter_leave_the_lock_free(store):
    (m,) = await matches(store, 1)
    lock = write_lock(store.engine)
    assert lock is not None
    holder = asyncio.create_task(hold_the_file(store, m.match_id, asyncio.Event()))
    await until(lock.locked)
    waiter = asyncio.create_task(hold_the_file(store, m.match_id, asyncio.Event()))
    await until(lambda: queued(lock) == 1)
    waiter.cancel()  # cancelled while queued: SQLAlchemy throws its connection away
    holder.cancel()  # cancelled while holding the file, its transaction open
    for task in (waiter, holder):
        with pytest.raises(asyncio.CancelledError):
            await task
    await until(lambda: not lock.locked())
    assert await store.commit(step(m, 1))
    (created,) = await matches(store, 1)
    assert (await store.load_match(created.match_id)) is not None
