"""On SQLite the group commit reads a match in one step on a connection of its own
(server/storage/sqlite_read.py): the same values as the engine's read, whatever the columns hold
(times, JSON, flags), and the engine's read when the file cannot be read at once."""

from __future__ import annotations

import sqlite3

from server.service import MatchService
from server.service.timecontrol import TimeControl
from server.storage import SqlStore, create_engine, upgrade
from server.storage.group_commit import GroupCommitStore


async def played(tmp_path):
    """A SQLite file with matches of every kind of row: against the computer part-played, a
    timed rated match between two people resigned with a rematch offered, and one waiting."""
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'read.db'}")
    await upgrade(engine)
    store = GroupCommitStore(engine)
    service = MatchService(store, bot_delay=0)
    ada, _ = await service.create_player("Ada")
    bob, _ = await service.create_player("Bob")
    ids = []
    computer = await service.create_match(ada, difficulty="easy")
    live = await service.cache.get(computer.meta.match_id)
    for _ in range(30):
        if live.state.to_act == 0 and live.meta.status == "active":
            await service.act(live, 0, None, live.meta.version, live.state.legal_actions(0)[0].to_wire())
        await service.writer.drain()
    ids.append(computer.meta.match_id)
    timed = await service.create_match(
        ada, opponent="human", time_control=TimeControl.realtime(20, 120), rated=True
    )
    await service.join(bob, timed.meta.match_id, timed.invite)
    live = await service.cache.get(timed.meta.match_id)
    for _ in range(6):
        seat = live.state.to_act
        await service.act(
            live,
            seat,
            f"c{live.meta.version}",
            live.meta.version,
            live.state.legal_actions(seat)[0].to_wire(),
        )
    await service.resign(bob, timed.meta.match_id)
    await service.offer_rematch(ada, timed.meta.match_id)
    ids.append(timed.meta.match_id)
    waiting = await service.create_match(bob, opponent="human", public=True)
    ids.append(waiting.meta.match_id)
    await service.close()
    return engine, store, ids


async def test_the_read_in_one_step_gives_what_the_engines_read_gives(tmp_path):
    engine, store, ids = await played(tmp_path)
    try:
        for match_id in ids:
            for seq in (0, 3):
                ours = await store.load_match_after(match_id, seq)
                engines = await SqlStore(engine).load_match_after(match_id, seq)
                assert ours == engines and ours is not None
        meta, actions = await store.load_match(ids[1])
        assert meta.time_control and meta.clock and meta.outcome and meta.rematch and meta.rated
        assert meta.updated_at.tzinfo is not None and actions[-1].created_at.tzinfo is not None
        assert await store.load_match("m_nothing") is None
        assert store._read.conn is not None  # read in one step, not through the engine
    finally:
        await store.close()
        await engine.dispose()


async def test_a_file_that_cannot_be_read_at_once_is_read_through_the_engine(tmp_path):
    engine, store, ids = await played(tmp_path)

    class Refusing:
        in_transaction = False

        def execute(self, *args):
            raise sqlite3.OperationalError("database is locked")

        def close(self):
            pass

    try:
        expected = await SqlStore(engine).load_match(ids[1])
        store._read.conn = Refusing()
        assert await store.load_match(ids[1]) == expected
    finally:
        await store.close()
        await engine.dispose()
