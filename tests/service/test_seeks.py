"""Quick pairing through the service, on the injected clock: two compatible seeks are paired into
one started match at once, incompatible ones are not, a cancelled or dropped (socket closed) seek
is gone, a seek nobody refreshes expires, the computer comes when nobody else does, the caps
hold, a seeker on another process is told (by the broadcaster, or by its heartbeat when the
notice is lost), and many seekers on two processes racing on one database (SQLite, and
PostgreSQL when reachable) each end in exactly one match."""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import timedelta

import pytest

from server.service import FakeClock, InProcessBroadcaster, MatchService, SequentialIds, TimeControl
from server.service.commands import MatchCaps
from server.service.errors import BadRequest, Conflict, NotFound, TooManyMatches
from server.service.seeks import SeekTiming

from .test_ratings import quick_store, store  # noqa: F401  (the fixtures)

REALTIME = TimeControl.realtime(20, 120)


async def outcome(seek):
    """The seek's pairing, once the store's I/O the clock set off has run (SQLite is real I/O)."""
    return await asyncio.wait_for(asyncio.shield(seek.paired), 5)


async def advance(clock: FakeClock, seconds: float) -> None:
    """Advance once the seek loop is asleep (its store I/O done), so no wake-up is missed."""
    for _ in range(500):
        if clock.sleepers:
            break
        await asyncio.sleep(0.005)
    await clock.advance(seconds)


def service(on, prefix: str = "", broadcaster=None, clock=None) -> MatchService:
    return MatchService(
        on,
        bot_delay=0,
        clock=clock or FakeClock(),
        ids=SequentialIds(prefix),
        broadcaster=broadcaster,
        seek_timing=SeekTiming(heartbeat_seconds=10, alive_seconds=30, tick_seconds=1),
    )


async def test_two_compatible_seeks_are_paired_into_one_started_match_at_once(quick_store):  # noqa: F811
    s = service(quick_store)
    ada, _ = await s.create_player("Ada")
    bob, _ = await s.create_player("Bob")
    first = await s.seeks.seek(ada, rules="house", time_control=REALTIME, rated=True)
    assert not first.paired.done()
    assert (await s.lobby.counts()).seeking == 1
    second = await s.seeks.seek(bob, rules="house", time_control=REALTIME, rated=True)
    paired_b = second.paired.result()
    paired_a = first.paired.result()  # told at once, in the same call
    assert paired_a.match_id == paired_b.match_id
    assert (paired_a.seat, paired_b.seat) == (0, 1) and paired_a.opponent == "human"
    meta = await quick_store.load_meta(paired_a.match_id)
    assert meta.status == "active" and meta.seat_ids == [ada.player_id, bob.player_id]
    assert meta.seat_names == ["Ada", "Bob"] and meta.rated and not meta.public
    assert meta.time_control == REALTIME.to_dict() and meta.deadline_at is not None  # the clock runs
    assert (await s.lobby.counts()).seeking == 0 and s.seeks.local == {}
    await s.close()


async def test_seeks_differing_in_rules_clock_or_rating_are_not_paired(quick_store):  # noqa: F811
    s = service(quick_store)
    players = [(await s.create_player(n))[0] for n in ("Ada", "Bob", "Cy", "Di")]
    seeks = [
        await s.seeks.seek(players[0], rules="house", time_control=REALTIME, rated=True),
        await s.seeks.seek(players[1], rules="classic", time_control=REALTIME, rated=True),
        await s.seeks.seek(players[2], rules="house", rated=True),
        await s.seeks.seek(players[3], rules="house", time_control=REALTIME, rated=False),
    ]
    assert not any(k.paired.done() for k in seeks)
    assert (await s.lobby.counts()).seeking == 4
    await s.close()


async def test_a_cancelled_seek_is_gone_and_a_dropped_one_too(quick_store):  # noqa: F811
    s = service(quick_store)
    ada, _ = await s.create_player("Ada")
    bob, _ = await s.create_player("Bob")
    cy, _ = await s.create_player("Cy")
    a = await s.seeks.seek(ada)
    with pytest.raises(NotFound):
        await s.seeks.cancel(bob, a.record.seek_id)  # not Bob's
    assert await s.seeks.cancel(ada, a.record.seek_id) is None
    assert a.paired.cancelled() and await quick_store.load_seek(a.record.seek_id) is None
    b = await s.seeks.seek(bob)
    await s.seeks.drop(b.record.seek_id)  # its socket closed
    c = await s.seeks.seek(cy)
    assert not c.paired.done() and (await s.lobby.counts()).seeking == 1
    again = await s.seeks.seek(ada)  # a cancelled seek can be sought again
    assert again.paired.result().seat == 1 and c.paired.result().seat == 0
    await s.close()


async def test_a_seek_nobody_refreshes_expires_and_a_refreshed_one_lives(quick_store):  # noqa: F811
    clock = FakeClock()
    dead, alive = service(quick_store, "a", clock=FakeClock()), service(quick_store, "b", clock=clock)
    ada, _ = await dead.create_player("Ada")
    bob, _ = await alive.create_player("Bob")
    cy, _ = await alive.create_player("Cy")
    await dead.seeks.seek(ada)
    dead.seeks._task.cancel()  # its process died: nobody refreshes Ada's seek
    b = await alive.seeks.seek(bob, rules="classic")
    for _ in range(45):  # Bob's is refreshed every 10 s; Ada's not since 0
        await advance(clock, 1)
    assert (await alive.lobby.counts()).seeking == 1
    assert await quick_store.count_seeking(clock.now() - timedelta(days=1)) == 1
    c = await alive.seeks.seek(cy)  # Ada's dead seek is neither pairable nor kept
    assert not c.paired.done()
    assert not b.paired.done()
    d = await alive.seeks.seek((await alive.create_player("Di"))[0], rules="classic")
    assert d.paired.result().match_id == b.paired.result().match_id
    await alive.close()
    await dead.close()


async def test_the_computer_comes_when_nobody_else_does_in_time(quick_store):  # noqa: F811
    clock = FakeClock()
    s = service(quick_store, clock=clock)
    ada, _ = await s.create_player("Ada")
    a = await s.seeks.seek(ada, rules="classic", time_control=REALTIME, computer_after=5, difficulty="easy")
    await advance(clock, 4)
    assert not a.paired.done()
    await advance(clock, 2)
    paired = await outcome(a)
    assert paired.opponent == "computer" and paired.seat == 0
    meta = await quick_store.load_meta(paired.match_id)
    # The computer keeps no clock and has no rating: the match is untimed and casual.
    assert meta.opponent == "computer" and meta.difficulty == "easy" and meta.rules == "classic"
    assert meta.time_control is None and not meta.rated
    assert (await s.lobby.counts()).seeking == 0
    with pytest.raises(BadRequest):
        await s.seeks.seek(ada, computer_after=0)
    await s.close()


async def test_one_open_seek_per_player_and_the_active_cap(quick_store):  # noqa: F811
    s = service(quick_store)
    ada, _ = await s.create_player("Ada")
    await s.seeks.seek(ada)
    with pytest.raises(Conflict):
        await s.seeks.seek(ada, rules="classic")  # another pool: still one seek at a time
    bob, _ = await s.create_player("Bob")
    await s.create_match(bob)  # one match against the computer in play
    with pytest.raises(TooManyMatches):
        await s.seeks.seek(bob, caps=MatchCaps(active=1))
    assert (await s.lobby.counts()).seeking == 1
    with pytest.raises(BadRequest):
        await s.seeks.seek(bob, rules="nope")
    await s.close()


async def test_a_seeker_on_another_process_is_told_by_the_broadcaster_or_else_its_heartbeat(
    quick_store,  # noqa: F811
):
    shared = InProcessBroadcaster()
    one, two = service(quick_store, "a", shared), service(quick_store, "b", shared)
    ada, _ = await one.create_player("Ada")
    bob, _ = await two.create_player("Bob")
    a = await one.seeks.seek(ada)
    b = await two.seeks.seek(bob)
    assert (await outcome(a)).match_id == b.paired.result().match_id
    for _ in range(200):  # told (first), then forgotten
        if await quick_store.load_seek(a.record.seek_id) is None:
            break
        await asyncio.sleep(0.005)
    assert await quick_store.load_seek(a.record.seek_id) is None

    # Two processes whose notices are lost: the heartbeat reads the pairing from the store.
    clock = FakeClock()
    three, four = service(quick_store, "c", clock=clock), service(quick_store, "d")
    cy, _ = await three.create_player("Cy")
    di, _ = await four.create_player("Di")
    c = await three.seeks.seek(cy, rules="classic")
    d = await four.seeks.seek(di, rules="classic")
    assert d.paired.done() and not c.paired.done()
    for _ in range(10):
        await advance(clock, 1)
    told = await outcome(c)
    assert told.match_id == d.paired.result().match_id and told.seat == 0
    for s in (one, two, three, four):
        await s.close()


async def test_a_paired_rated_match_is_rated_at_its_end(quick_store):  # noqa: F811
    s = service(quick_store)
    ada, _ = await s.create_player("Ada")
    bob, _ = await s.create_player("Bob")
    await s.seeks.seek(ada, rated=True)
    paired = (await s.seeks.seek(bob, rated=True)).paired.result()
    await s.resign(bob, paired.match_id)
    assert (await s.ratings.rating(ada.player_id)).rating.games == 1
    assert (await s.ratings.rating(bob.player_id)).rating.games == 1
    await s.close()


async def test_many_seekers_on_two_processes_racing_each_end_in_exactly_one_match(store):  # noqa: F811
    shared = InProcessBroadcaster()
    one, two = service(store, "a", shared), service(store, "b", shared)
    players = [(await (one if i % 2 else two).create_player(f"P{i}"))[0] for i in range(24)]
    seeks = await asyncio.gather(
        *((one if i % 2 else two).seeks.seek(p, rated=True) for i, p in enumerate(players))
    )
    pairings = [await outcome(k) for k in seeks]
    per_match = Counter(p.match_id for p in pairings)
    assert len(per_match) == 12 and set(per_match.values()) == {2}
    for match_id in per_match:
        meta = await store.load_meta(match_id)
        assert meta.status == "active" and len(set(meta.seat_ids)) == 2
    assert sorted(p.player_id for k in seeks for p in [k.record]) == sorted(p.player_id for p in players)
    for s in (one, two):
        await s.close()
