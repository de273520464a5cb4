"""Group commit: many matches' writes share transactions, yet each is still all-or-nothing at
its expected version, a bad change never takes the others down, and on Postgres exactly the
committed changes are announced."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from datetime import UTC, datetime

import pytest

from server.service.ports import Change, FinishedHand, MatchMeta, StoredAction
from server.storage import create_engine, upgrade
from server.storage.group_commit import GroupCommitStore
from server.storage.notify import PostgresBroadcaster
from tests.storage.records import make_match, make_player


def now() -> datetime:
    return datetime.now(UTC)


def step(
    m: MatchMeta, seq: int, client_id: str | None = None, hand: bool = False, known: bool = True
) -> Change:
    """A change to ``m`` that knows the row it replaces, as the service's do (``known``), or not."""
    new = m.copy()
    new.version += 1
    new.scores = [new.scores[0] + 1, 0]
    action = StoredAction(seq, 0, {"kind": "draw", "source": "stock"}, client_id, new.version, now())
    hands = (FinishedHand(1, 0, "knock", 0, 0, 7, {"kind": "knock"}, now()),) if hand else ()
    return Change(m.version, new, action, hands, previous=m if known else None)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request, tmp_path) -> str:
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'gc.db'}"
    return request.getfixturevalue("fresh_database")


@pytest.fixture
async def store(database_url):
    engine = create_engine(database_url)
    await upgrade(engine)
    s = GroupCommitStore(engine, notify_channel="gin_gc_test")
    try:
        yield s
    finally:
        await s.close()
        await engine.dispose()


async def matches(store: GroupCommitStore, n: int) -> list[MatchMeta]:
    player = await make_player(store)
    return [await make_match(store, player) for _ in range(n)]


async def test_concurrent_writes_to_many_matches_all_land_in_fewer_transactions(store):
    ms = await matches(store, 60)
    for seq in (1, 2, 3):
        results = await asyncio.gather(*(store.commit(step(m, seq, f"c{seq}")) for m in ms))
        assert results == [True] * 60
        ms = [(await store.load_match(m.match_id))[0] for m in ms]
    assert store.changes == 180 and store.batches < 180 / 5
    for m in ms:
        loaded, actions = await store.load_match(m.match_id)
        assert loaded.version == 3 and loaded.scores == [3, 0]
        assert [(a.seq, a.version, a.client_id) for a in actions] == [
            (1, 1, "c1"),
            (2, 2, "c2"),
            (3, 3, "c3"),
        ]


async def test_on_sqlite_a_batch_is_a_few_statements_whatever_its_size(tmp_path):
    # The sqlite3 module lets go of the GIL around every step of a statement, and a busy event
    # loop makes each taking-back wait a switch interval: a batch written row by row took ~90 ms.
    import sqlite3

    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'few.db'}")
    await upgrade(engine)
    store = GroupCommitStore(engine)
    try:
        ms = await matches(store, 80)
        assert store.sqlite is not None
        store.sqlite.inline_max = 0  # every batch on the writer thread
        assert await store.commit(step(ms[0], 1))  # opens the writer's connection
        statements: list[str] = []
        conn = store.sqlite.threaded
        assert conn is not None
        conn.set_trace_callback(statements.append)
        conn.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, 300)  # so it must cut too
        batches = store.batches
        ms[0] = (await store.load_match(ms[0].match_id))[0]
        stale = ms[1].copy()
        stale.version = 5  # this one's compare-and-set fails; the rest land
        changes = [step(m, m.version + 1, hand=i % 10 == 0) for i, m in enumerate([ms[0], stale, *ms[2:]])]
        results = await asyncio.gather(*(store.commit(c) for c in changes))
        assert results == [True, False] + [True] * 78
        assert store.batches == batches + 1
        # At most 300 bound values a statement: 80 match rows of 18 values (16 rows a
        # statement: 5 statements); one compare-and-set failed (79 rows updated), so the
        # transaction is begun again and the stored versions read to learn which (80 matches:
        # runs past 16 rows in powers of two, 64 + 16), then 79 match rows (5), 79 actions of
        # 7 (42 rows at most, then runs past 16 in powers of two: 42 + 32 + 5, 3), 8 hands of 9
        # (1); COMMIT.
        kinds = [s.split()[0] + (" " + s.split()[2] if s.startswith("INSERT") else "") for s in statements]
        assert kinds == [
            "BEGIN", *["UPDATE"] * 5, "ROLLBACK", "BEGIN", *["SELECT"] * 2, *["UPDATE"] * 5,
            *["INSERT actions"] * 3, "INSERT hands", "COMMIT",
        ], statements  # fmt: skip
        for i, m in enumerate(ms[2:], start=2):
            loaded, actions = await store.load_match(m.match_id)
            assert loaded.version == 1 and len(actions) == 1
            assert len(await store.finished_hands(m.match_id)) == (1 if i % 10 == 0 else 0)
        assert (await store.load_match(ms[1].match_id))[0].version == 0

        # Every change knowing the row it replaces, every compare-and-set holding: nothing
        # read; not knowing them: the versions read first.
        for known, reads in ((True, []), (False, ["SELECT"] * 2)):
            statements.clear()
            ms = [(await store.load_match(m.match_id))[0] for m in ms]
            batches = store.batches
            results = await asyncio.gather(*(store.commit(step(m, m.version + 1, known=known)) for m in ms))
            assert results == [True] * 80 and store.batches == batches + 1
            kinds = [s.split()[0] for s in statements]
            assert kinds == ["BEGIN", *reads, *["UPDATE"] * 5, *["INSERT"] * 3, "COMMIT"], statements
    finally:
        await store.close()
        await engine.dispose()


async def test_a_sqlite_too_old_for_the_batched_writes_is_refused_at_start(tmp_path, monkeypatch):
    import sqlite3

    monkeypatch.setattr(sqlite3, "sqlite_version_info", (3, 31, 1))
    monkeypatch.setattr(sqlite3, "sqlite_version", "3.31.1")
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'old.db'}")
    try:
        with pytest.raises(RuntimeError, match=r"SQLite 3\.31\.1 is too old.*3\.33\.0 or later"):
            GroupCommitStore(engine)
    finally:
        await engine.dispose()


async def test_a_change_at_a_stale_version_writes_nothing_and_the_rest_of_its_batch_lands(store):
    a, b, c = await matches(store, 3)
    assert await store.commit(step(b, 1))
    # b is now at version 1; a change still expecting 0 is stale.
    results = await asyncio.gather(
        store.commit(step(a, 1)), store.commit(step(b, 1, hand=True)), store.commit(step(c, 1, hand=True))
    )
    assert results == [True, False, True]
    b_meta, b_actions = await store.load_match(b.match_id)
    assert b_meta.version == 1 and len(b_actions) == 1
    assert await store.finished_hands(b.match_id) == []
    assert len(await store.finished_hands(c.match_id)) == 1


async def test_a_change_that_breaks_a_constraint_fails_alone(store):
    a, b = await matches(store, 2)
    assert await store.commit(step(a, 1, "first"))
    a1 = (await store.load_match(a.match_id))[0]
    # At the right version but under an action number already taken: the primary key
    # (match_id, seq) refuses it.
    results = await asyncio.gather(
        store.commit(step(a1, 1, "again")), store.commit(step(b, 1, "other")), return_exceptions=True
    )
    assert results[0] is False or isinstance(results[0], Exception)
    assert results[1] is True
    assert (await store.load_match(a.match_id))[0].version == 1
    assert (await store.load_match(b.match_id))[0].version == 1


@contextlib.asynccontextmanager
async def announcing(database_url: str, channel: str):
    """A group-commit store that notifies on ``channel`` and what a listener on it heard:
    yields ``(store, heard)``."""
    engine = create_engine(database_url)
    await upgrade(engine)
    store = GroupCommitStore(engine, notify_channel=channel)
    heard: list[tuple[str, int]] = []
    listener = await PostgresBroadcaster.connect(database_url, channel=channel, transactional=True)
    listener.listen(lambda m, v: heard.append((m, v)))
    try:
        yield store, heard
    finally:
        await listener.close()
        await store.close()
        await engine.dispose()


async def until_heard(heard: list[tuple[str, int]], n: int) -> None:
    for _ in range(50):
        if len(heard) >= n:
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.2)  # and nothing more


@pytest.mark.postgres
async def test_on_postgres_exactly_the_committed_changes_are_announced(postgres_admin, fresh_database):
    async with announcing(fresh_database, "gin_gc_announce") as (store, heard):
        a, b = await matches(store, 2)
        assert await store.commit(step(b, 1))
        results = await asyncio.gather(store.commit(step(a, 1)), store.commit(step(b, 1)))
        assert results == [True, False]
        await until_heard(heard, 2)
        assert sorted(heard) == sorted([(b.match_id, 1), (a.match_id, 1)])


async def test_a_batch_writes_rows_that_read_back_exactly_as_written(store):
    """The batch goes to the driver as plain SQL: every column must still read back as the
    repository's own path would store it (JSON, UTC datetimes, NULLs)."""
    (a,) = await matches(store, 1)
    change = step(a, 1, "c1", hand=True)
    done = change.meta
    done.status, done.winner, done.resigned, done.hand_number = "finished", 1, 0, 3
    done.outcome = {"winner": 1, "reason": "resign", "totals": [{"points": 0}]}
    assert await store.commit(Change(0, done, change.action, change.hands))
    loaded, actions = await store.load_match(a.match_id)
    assert loaded == done
    assert actions == [change.action]
    assert await store.finished_hands(a.match_id) == list(change.hands)


@pytest.mark.postgres
async def test_on_postgres_a_writer_connection_killed_meanwhile_is_replaced(postgres_admin, fresh_database):
    import asyncpg

    engine = create_engine(fresh_database)
    await upgrade(engine)
    store = GroupCommitStore(engine)
    try:
        a, b = await matches(store, 2)
        assert await store.commit(step(a, 1))
        admin = await asyncpg.connect(postgres_admin)
        try:
            assert await admin.fetchval(
                "SELECT pg_terminate_backend($1)", store._pg.connection.get_server_pid()
            )
        finally:
            await admin.close()
        await asyncio.sleep(0.1)
        assert await store.commit(step(b, 1))  # tried again on a new connection
        assert (await store.load_match(b.match_id))[0].version == 1
    finally:
        await store.close()
        await engine.dispose()


@pytest.mark.postgres
async def test_on_postgres_the_changes_of_a_batch_redone_one_by_one_are_announced_too(fresh_database):
    async with announcing(fresh_database, "gin_gc_redo") as (store, heard):
        a, b = await matches(store, 2)
        assert await store.commit(step(a, 1, "first"))
        a1 = (await store.load_match(a.match_id))[0]
        # One batch: a's change takes an action number already taken (the primary key), b's is good.
        results = await asyncio.gather(
            store.commit(step(a1, 1, "again")), store.commit(step(b, 1, "other")), return_exceptions=True
        )
        assert results[1] is True
        await until_heard(heard, 2)
        assert sorted(heard) == sorted([(a.match_id, 1), (b.match_id, 1)])


@pytest.mark.postgres
async def test_on_postgres_two_writers_racing_for_the_same_matches_never_deadlock(fresh_database):
    """Two processes' batches holding the same matches in opposite orders: each match is won by
    exactly one of them, and neither batch fails."""
    engine_a, engine_b = create_engine(fresh_database), create_engine(fresh_database)
    await upgrade(engine_a)
    a, b = GroupCommitStore(engine_a), GroupCommitStore(engine_b)
    try:
        ms = await matches(a, 40)
        for seq in range(1, 9):
            first = [a.commit(step(m, seq)) for m in ms]
            second = [b.commit(step(m, seq)) for m in reversed(ms)]
            results = await asyncio.gather(*first, *second, return_exceptions=True)
            assert not [r for r in results if isinstance(r, BaseException)], results
            won_a, won_b = results[:40], results[40:][::-1]
            assert all(x != y for x, y in zip(won_a, won_b))  # exactly one writer per match
            ms = [(await a.load_match(m.match_id))[0] for m in ms]
            assert all(m.version == seq for m in ms)
    finally:
        await a.close()
        await b.close()
        await engine_a.dispose()
        await engine_b.dispose()


def bad_step(m: MatchMeta, kind: str) -> Change:
    """A change the database (or its driver) refuses for what one of its values holds."""
    change = step(m, 1, "bad\u0000id" if kind == "nul" else "fine")
    assert change.action is not None
    if kind == "huge":  # no integer column holds it
        return dataclasses.replace(change, action=dataclasses.replace(change.action, seat=2**70))
    return change


@pytest.mark.parametrize("kind", ["nul", "huge"])
async def test_a_change_the_database_refuses_fails_alone_and_the_rest_of_its_batch_lands(store, kind):
    if kind == "nul" and store.engine.dialect.name != "postgresql":
        pytest.skip("SQLite stores a NUL in a text")
    ms = await matches(store, 32)
    bad, stale, good = ms[15], ms[31], ms[:15] + ms[16:31]
    assert await store.commit(step(stale, 1))
    batches = store.batches
    # Written straight through the store: the edge would refuse such a client id.
    results = await asyncio.gather(
        *(store.commit(step(m, 1, f"good-{i}")) for i, m in enumerate(good[:15])),
        store.commit(bad_step(bad, kind)),
        *(store.commit(step(m, 1, f"good-{i}")) for i, m in enumerate(good[15:], start=15)),
        store.commit(step(stale, 1)),  # its version moved: False, for it alone
        return_exceptions=True,
    )
    assert store.batches == batches + 1  # all of them came in one batch
    assert len(good) == 30
    assert results[:15] + results[16:31] == [True] * 30
    assert isinstance(results[15], Exception), results[15]
    assert results[31] is False
    for i, m in enumerate(good):
        loaded, actions = await store.load_match(m.match_id)
        assert loaded.version == 1 and [(a.seq, a.client_id) for a in actions] == [(1, f"good-{i}")]
    loaded, actions = await store.load_match(bad.match_id)
    assert loaded.version == 0 and actions == []
    assert (await store.load_match(stale.match_id))[0].version == 1
    # And the store still works for the match whose change was refused.
    assert await store.commit(step(bad, 1, "now-fine"))


async def test_a_batch_failing_because_the_store_is_locked_is_not_tried_change_by_change(tmp_path):
    import sqlite3

    path = tmp_path / "locked.db"
    engine = create_engine(f"sqlite+aiosqlite:///{path}")
    await upgrade(engine)
    store = GroupCommitStore(engine, sqlite_timeout=0.05)
    try:
        ms = await matches(store, 8)
        tries = 0
        commit_batch = store._commit_batch

        async def counted(changes):
            nonlocal tries
            tries += 1
            return await commit_batch(changes)

        store._commit_batch = counted  # type: ignore[method-assign]
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN EXCLUSIVE")
        try:
            results = await asyncio.gather(*(store.commit(step(m, 1)) for m in ms), return_exceptions=True)
        finally:
            other.execute("ROLLBACK")
            other.close()
        # No change's fault: all fail at once, after one try, not one per half down to each.
        assert all(isinstance(r, sqlite3.OperationalError) for r in results), results
        assert tries == 1
        assert await asyncio.gather(*(store.commit(step(m, 1)) for m in ms)) == [True] * 8
    finally:
        await store.close()
        await engine.dispose()


def test_batches_of_every_size_share_a_few_statement_lengths():
    # The sqlite3 module keeps every statement its connection prepared (up to its cache's size),
    # and a statement grows with its rows: one per batch size held tens of megabytes.
    from server.storage.batch_sql import EXACT_ROWS, MAX_BATCH, MAX_STATEMENTS, _chunks

    lengths: set[int] = set()
    for n in range(1, MAX_BATCH + 1):
        rows = list(range(n))
        chunks = _chunks(rows, 7, 32766)
        assert [r for c in chunks for r in c] == rows
        assert len(chunks) <= 1 + max(0, n.bit_length() - EXACT_ROWS.bit_length() + 1)
        lengths |= {len(c) for c in chunks}
    assert lengths == set(range(1, EXACT_ROWS + 1)) | {1 << k for k in range(5, MAX_BATCH.bit_length())}
    assert 5 * len(lengths) + 2 <= MAX_STATEMENTS  # five statements, BEGIN and COMMIT
