"""On SQLite the group commit reads what a hello needs (the match, the player by token, the seats'
bot accounts) in one step each on a connection of its own (server/storage/sqlite_read.py): the
same values as the engine's reads, whatever the columns hold (times, JSON, flags), and the
engine's reads when the file cannot be read at once."""

from __future__ import annotations

import sqlite3

from server.service import MatchService
from server.service.players import hash_token
from server.service.timecontrol import TimeControl
from server.storage import SqlStore, create_engine, upgrade
from server.storage.group_commit import GroupCommitStore


async def played(url):
    """A database (``url``) with matches of every kind of row: against the computer part-played,
    a timed rated match between two people resigned with a rematch offered, and one waiting;
    and a bot account. Returns the engine, an open store, the match ids and the players'
    (id, token) pairs, the bot's last. (tests/scale/test_pg_read.py plays it on Postgres.)"""
    engine = create_engine(url)
    await upgrade(engine)
    store = GroupCommitStore(engine)
    service = MatchService(store, bot_delay=0)
    ada, ada_token = await service.create_player("Ada")
    bob, bob_token = await service.create_player("Bob")
    bot, bot_token, _ = await service.bots.create("Botty", "ada@example.org", "plays its first card")
    players = [(p.player_id, t) for p, t in ((ada, ada_token), (bob, bob_token), (bot, bot_token))]
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
    return engine, store, ids, players


def sqlite_url(tmp_path):
    return f"sqlite+aiosqlite:///{tmp_path / 'read.db'}"


async def same_reads(engine, store, ids, players):
    """Every read of a hello (of ``played``'s rows) gives through ``store``'s own connection
    what it gives through the engine; ``store`` reads with no engine at all meanwhile."""
    engines_store = SqlStore(engine)
    everyone = [p for p, _ in players] + ["p_nobody"]
    tokens = [hash_token(t) for _, t in players] + [hash_token("no such token")]
    asked = (everyone, everyone[:2], everyone[2:], [])
    matches = [(m, seq) for m in [*ids, "m_nothing"] for seq in (0, 3)]
    expected = (
        [await engines_store.player_by_token_hash(t) for t in tokens],
        [await engines_store.bots(a) for a in asked],
        [await engines_store.load_match_after(m, seq) for m, seq in matches],
    )
    store.engine = None  # not through the engine: the store's own connection answers
    try:
        ours = (
            [await store.player_by_token_hash(t) for t in tokens],
            [await store.bots(a) for a in asked],
            [await store.load_match_after(m, seq) for m, seq in matches],
        )
    finally:
        store.engine = engine
    assert ours == expected
    players_read, bots_read, matches_read = ours
    assert all(p is not None and p.created_at.tzinfo is not None for p in players_read[:-1])
    assert players_read[-1] is None and list(bots_read[0]) == [players[2][0]]
    assert all(m is not None for m in matches_read[:-2]) and matches_read[-1] is None
    meta, actions = matches_read[2]  # ids[1], from the start
    assert meta.time_control and meta.clock and meta.outcome and meta.rematch and meta.rated
    assert meta.updated_at.tzinfo is not None and actions[-1].created_at.tzinfo is not None


async def test_the_read_in_one_step_gives_what_the_engines_read_gives(tmp_path):
    engine, store, ids, players = await played(sqlite_url(tmp_path))
    try:
        await same_reads(engine, store, ids, players)
        assert store._read.conn is not None  # read in one step, not through the engine
    finally:
        await store.close()
        await engine.dispose()


async def test_a_file_that_cannot_be_read_at_once_is_read_through_the_engine(tmp_path):
    engine, store, ids, players = await played(sqlite_url(tmp_path))

    class Refusing:
        in_transaction = False

        def execute(self, *args):
            raise sqlite3.OperationalError("database is locked")

        def close(self):
            pass

    try:
        engines_store = SqlStore(engine)
        expected = await engines_store.load_match(ids[1])
        token_hash, bot_id = hash_token(players[0][1]), players[2][0]
        player, bots = (
            await engines_store.player_by_token_hash(token_hash),
            await engines_store.bots([bot_id]),
        )
        store._read.conn = Refusing()
        assert await store.load_match(ids[1]) == expected
        assert await store.player_by_token_hash(token_hash) == player and player is not None
        assert await store.bots([bot_id]) == bots and bots
    finally:
        await store.close()
        await engine.dispose()
