"""A process that hears of another process's moves catches up by applying only the actions it
has not seen (its copy's state carries on), and rebuilds the match from the store when the
changes were not just actions (a resignation, a join) or the result disagrees with the row."""

from __future__ import annotations

import random

from server.rules import MatchState
from server.service import InProcessBroadcaster, MatchService
from server.service.live import replay
from server.storage import MemoryStore, SqlStore

from .helpers import Recorder, human_match


def services(engine) -> tuple[MatchService, MatchService]:
    """Two processes on one database, hearing of each other's changes."""
    hub = InProcessBroadcaster()
    return tuple(MatchService(SqlStore(engine), bot_delay=0, broadcaster=hub) for _ in range(2))


async def two_processes(engine):
    """A match created on ``one`` (``live``) and loaded on ``two`` (``other``), each copy in use
    (a socket on each): a process catches up only a copy it uses."""
    one, two = services(engine)
    live, ada, _ = await human_match(one)
    other = await two.cache.get(live.match_id)
    await one.subscribe(live, Recorder(0))
    await two.subscribe(other, Recorder(1))
    return one, two, live, other, ada


async def play(service: MatchService, live, moves: int, rng: random.Random, prefix: str) -> None:
    for _ in range(moves):
        seat = live.state.to_act
        legal = live.state.legal_actions(seat)
        await service.act(live, seat, f"{prefix}{live.seq}", live.meta.version, rng.choice(legal).to_wire())


def same_match(a: MatchState, b: MatchState) -> bool:
    return (
        a.view(0) == b.view(0)
        and a.view(1) == b.view(1)
        and a.hand.stock_order() == b.hand.stock_order()
        and a.scores == b.scores
    )


async def test_moves_from_another_process_are_applied_to_the_copy_not_replayed(engine):
    one, two, live, other, _ = await two_processes(engine)
    held = other.state
    watcher = Recorder(None)
    await two.subscribe(other, watcher)
    rng = random.Random(7)
    # Past the end of the first hand: its settlement and the next deal come from the rules.
    while live.state.hand_number < 3 and live.meta.status == "active":
        await play(one, live, 1, rng, "one-")
    assert other.state is held  # carried on, never rebuilt
    assert other.meta.version == live.meta.version and other.seq == live.seq
    assert other.answers == live.answers
    _, actions = await SqlStore(engine).load_match(live.match_id)
    assert same_match(other.state, replay(live.meta, actions))
    assert watcher.messages[-1]["version"] == live.meta.version
    # The copy acts on at the second process, and the first catches up the same way.
    before = live.state
    await play(two, other, 3, rng, "two-")
    assert live.state is before and same_match(live.state, other.state)
    await one.close()
    await two.close()


async def test_a_change_that_is_not_an_action_rebuilds_the_copy(engine):
    one, two, live, other, ada = await two_processes(engine)
    await play(one, live, 2, random.Random(1), "m")
    held = other.state
    await one.resign(ada, live.match_id)
    assert other.state is not held  # rebuilt: a resignation is no action to apply
    assert other.meta.status == "finished" and other.meta.resigned == live.meta.resigned
    assert other.state.outcome is not None and other.state.outcome.winner == 1
    await one.close()
    await two.close()


async def test_a_join_through_another_process_rebuilds_the_waiting_copy(engine):
    one, two = services(engine)
    ada, _ = await one.create_player("Ada")
    bob, _ = await one.create_player("Bob")
    created = await one.create_match(ada, opponent="human")
    waiting = await two.cache.get(created.meta.match_id)
    await two.subscribe(waiting, Recorder(0))  # the creator waiting at the table on ``two``
    await one.join(bob, created.meta.match_id, created.invite)
    assert waiting.meta.status == "active" and waiting.meta.seat_ids[1] is not None
    await one.close()
    await two.close()


async def test_a_copy_that_disagrees_with_the_row_is_rebuilt(engine):
    """Actions alone, but the copy's state had drifted (here: a hand forced to a different
    score): the rows' scores disagree after applying them, so the match is rebuilt."""
    one, two, live, other, _ = await two_processes(engine)
    other.state.scores[0] += 5  # a copy gone wrong somehow
    drifted = other.state
    await play(one, live, 2, random.Random(3), "m")
    assert other.state is not drifted and other.state.scores == live.state.scores
    assert same_match(other.state, live.state)
    await one.close()
    await two.close()


async def test_a_copy_nobody_here_uses_is_let_go_and_loaded_afresh_when_next_used(engine):
    # Created through one process and played through the other (a balancer without
    # stickiness): the creator's copy is not read again for every move made elsewhere.
    one, two = services(engine)
    live, _, _ = await human_match(one)
    other = await two.cache.get(live.match_id)
    await two.subscribe(other, Recorder(1))
    reads = 0
    load_after = one.store.load_match_after

    async def counted(*args):
        nonlocal reads
        reads += 1
        return await load_after(*args)

    one.store.load_match_after = counted
    await play(two, other, 1, random.Random(5), "two-")
    assert live.match_id not in one.cache and live.stale  # let go, marked for whoever holds it
    await play(two, other, 4, random.Random(6), "two-")
    assert reads == 0
    # Used again (a hello, a REST call): loaded as the store has it; a stale holder reloads.
    again = await one.cache.get(live.match_id)
    assert again is not live and again.meta.version == other.meta.version
    assert same_match(again.state, other.state)
    assert (await one.current_state(live, 1)).meta.version == other.meta.version
    assert not live.stale and same_match(live.state, other.state)
    await one.close()
    await two.close()


async def test_the_stores_give_the_actions_after_a_number(engine):
    for store in (SqlStore(engine), MemoryStore()):
        service = MatchService(store, bot_delay=0)
        live, *_ = await human_match(service)
        await play(service, live, 5, random.Random(5), "m")
        meta, after = await store.load_match_after(live.match_id, 2)
        assert [a.seq for a in after] == [3, 4, 5] and meta.version == live.meta.version
        assert (await store.load_match_after(live.match_id, 5))[1] == []
        assert await store.load_match_after("m_nope", 0) is None
        await service.close()
