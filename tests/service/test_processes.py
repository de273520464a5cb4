"""Two processes (here two services) on one database: never both write a match, changes reach
the other's clients through the broadcaster, a copy that fell behind catches up (on resync, on
a hello, on an action) instead of answering from what it held, and reads go to the store."""

from __future__ import annotations

import asyncio

import pytest

from server.service import InProcessBroadcaster, MatchService
from server.service.errors import IdReused, StaleVersion
from server.service.live import LiveMatch
from server.storage import SqlStore

from .helpers import Recorder, human_match


async def two_copies(engine) -> tuple[MatchService, MatchService, LiveMatch, LiveMatch]:
    """Two services on one database with no broadcaster between them, and each one's copy of
    a new match between two people: ``(one, two, one's copy, two's copy)``."""
    one = MatchService(SqlStore(engine), bot_delay=0)
    live, *_ = await human_match(one)
    two = MatchService(SqlStore(engine), bot_delay=0)
    return one, two, live, await two.cache.get(live.match_id)


async def test_two_services_on_one_database_never_both_write_a_match(engine):
    """Two processes (here two services) holding the same match: the database lets one write
    land; the other is told its version is stale and catches up."""
    one, two, live, other = await two_copies(engine)
    seat, version = live.state.to_act, live.meta.version
    await one.act(live, seat, "first", version, {"kind": "pass"})
    with pytest.raises(StaleVersion):
        await two.act(other, seat, "second", version, {"kind": "pass"})
    # The loser reloaded: it now agrees with the database, and can act at the new version.
    assert other.meta.version == live.meta.version and other.state.to_act == live.state.to_act
    await two.act(other, other.state.to_act, "third", other.meta.version, {"kind": "pass"})
    loaded = await SqlStore(engine).load_match(live.match_id)
    assert [a.client_id for a in loaded[1]] == ["first", "third"]
    await one.close()
    await two.close()


async def test_a_change_reaches_the_clients_of_another_process_through_the_broadcaster(engine):
    hub = InProcessBroadcaster()
    one = MatchService(SqlStore(engine), bot_delay=0, broadcaster=hub)
    two = MatchService(SqlStore(engine), bot_delay=0, broadcaster=hub)
    live, *_ = await human_match(one)
    other = await two.cache.get(live.match_id)
    watcher = Recorder(None)
    await two.subscribe(other, watcher)
    await one.act(live, live.state.to_act, "a", live.meta.version, {"kind": "pass"})
    assert watcher.messages[-1]["version"] == live.meta.version
    assert watcher.messages[-1]["view"]["hand"]["history"][-1]["kind"] == "pass"
    await one.close()
    await two.close()


async def test_resync_catches_up_on_a_change_whose_news_was_lost(engine):
    one, two, live, other = await two_copies(engine)  # no shared broadcaster: news is lost
    watcher = Recorder(None)
    await two.subscribe(other, watcher)
    await one.act(live, live.state.to_act, "a", live.meta.version, {"kind": "pass"})
    assert other.meta.version == live.meta.version - 1
    await two.resync()
    assert other.meta.version == live.meta.version
    assert watcher.messages[-1]["version"] == live.meta.version
    await one.close()
    await two.close()


async def test_a_write_that_loses_the_race_tells_this_processs_clients_what_won(engine):
    """The loser rebuilds its copy at the winner's version; the winner's notice, when it comes,
    finds nothing new to tell. So the rebuild itself tells the loser's clients: else a watcher
    (or the player, for the computer's move another replica made) waited for good."""
    one, two, live, other = await two_copies(engine)  # no broadcaster: the notice comes late
    watcher = Recorder(None)
    await two.subscribe(other, watcher)
    seat, version = live.state.to_act, live.meta.version
    await one.act(live, seat, "won", version, {"kind": "pass"})
    with pytest.raises(StaleVersion):
        await two.act(other, seat, "lost", version, {"kind": "pass"})
    assert [m["version"] for m in watcher.messages] == [version, version + 1]
    assert watcher.messages[-1]["view"]["hand"]["history"][-1]["kind"] == "pass"
    await two.resync()  # the late notice: nothing more to tell
    assert len(watcher.messages) == 2
    await one.close()
    await two.close()


async def test_a_repeated_id_sent_to_a_process_with_an_old_copy_is_answered_not_applied(engine):
    one, two, live, other = await two_copies(engine)
    seat, version = live.state.to_act, live.meta.version
    first = await one.act(live, seat, "once", version, {"kind": "pass"})
    again = await two.act(other, seat, "once", version, {"kind": "pass"})
    assert again == (first[0], True)
    _, actions = await SqlStore(engine).load_match(live.match_id)
    assert [a.client_id for a in actions] == ["once"]
    await one.close()
    await two.close()


async def test_a_reused_id_sent_to_a_process_with_an_old_copy_is_never_written(engine):
    # No index keeps a seat's client ids unique (migration 0009): the service does, from every id
    # of the match, caught up from the store when its copy is behind.
    one, two, live, other = await two_copies(engine)
    seat, old = live.state.to_act, live.meta.version
    await one.act(live, seat, "once", old, {"kind": "pass"})
    await one.act(live, live.state.to_act, "two", live.meta.version, {"kind": "pass"})
    now = live.meta.version
    assert live.state.to_act == seat and other.meta.version == old
    # At the version its old copy holds (where taking the upcard is legal): the write's
    # compare-and-set fails, and nothing is written.
    with pytest.raises((IdReused, StaleVersion)):
        await two.act(other, seat, "once", old, {"kind": "take_upcard"})
    # At the current version: caught up, the id is known with another action.
    with pytest.raises(IdReused):
        await two.act(other, seat, "once", now, {"kind": "draw", "source": "stock"})
    _, actions = await SqlStore(engine).load_match(live.match_id)
    assert [a.client_id for a in actions] == ["once", "two"]
    await one.close()
    await two.close()


async def test_a_resignation_at_a_process_with_an_old_copy_goes_through(engine):
    one = MatchService(SqlStore(engine), bot_delay=0)
    live, ada, _ = await human_match(one)
    two = MatchService(SqlStore(engine), bot_delay=0)
    await two.cache.get(live.match_id)
    await one.act(live, live.state.to_act, "a", live.meta.version, {"kind": "pass"})
    meta = await two.resign(ada, live.match_id)
    assert meta.status == "finished" and meta.version == live.meta.version + 1
    assert meta.outcome["reason"] == "resign" and meta.winner == 1
    await one.close()
    await two.close()


async def test_a_process_whose_copy_is_behind_catches_up_instead_of_refusing(engine):
    """No broadcaster between two services: the one with the old copy must not answer
    waiting, unauthorized or stale from it."""
    one = MatchService(SqlStore(engine), bot_delay=0)
    ada, _ = await one.create_player("Ada")
    bob, bob_token = await one.create_player("Bob")
    created = await one.create_match(ada, opponent="human")
    two = MatchService(SqlStore(engine), bot_delay=0)
    behind = await two.cache.get(created.meta.match_id)  # cached while waiting
    await one.join(bob, created.meta.match_id, created.invite)
    # Bob's hello reaches the process that still thinks the seat is empty.
    live, seat = await two.open(created.meta.match_id, bob_token)
    assert seat == 1 and live is behind and live.meta.status == "active"
    # A move made at the first process, then the next one sent to the second at the new version.
    first = await one.cache.get(created.meta.match_id)
    mover = first.state.to_act
    await one.act(first, mover, "m1", first.meta.version, {"kind": "pass"})
    version, repeated = await two.act(behind, 1 - mover, "m2", first.meta.version, {"kind": "pass"})
    assert not repeated and version == first.meta.version + 1
    await one.close()
    await two.close()


async def test_a_hello_to_a_process_whose_copy_is_behind_starts_from_the_current_state(engine):
    """No broadcaster between two services. The store's version is read again only for a copy
    the process already held, not for one the hello itself just loaded."""

    class CountingStore(SqlStore):
        version_reads = 0

        async def match_versions(self, match_ids):
            self.version_reads += 1
            return await super().match_versions(match_ids)

    async def match(service):
        ada, ada_token = await service.create_player("Ada")
        bob, _ = await service.create_player("Bob")
        created = await service.create_match(ada, opponent="human")
        await service.join(bob, created.meta.match_id, created.invite)
        return await service.cache.get(created.meta.match_id), ada_token, created.watch_token

    one = MatchService(SqlStore(engine), bot_delay=0)
    live, ada_token, watch_token = await match(one)
    store = CountingStore(engine)
    two = MatchService(store, bot_delay=0)
    held = await two.cache.get(live.match_id)  # two's copy, soon behind
    await one.act(live, live.state.to_act, "m1", live.meta.version, {"kind": "pass"})
    assert held.meta.version == live.meta.version - 1
    for token, seat in ((ada_token, 0), (watch_token, None)):
        store.version_reads = 0
        opened, got = await two.open(live.match_id, token)
        assert (opened, got) == (held, seat) and store.version_reads == 1
        reader = Recorder(seat)
        await two.subscribe(opened, reader)
        assert reader.messages[0]["version"] == live.meta.version  # not the old copy's
    # A match the hello loads itself: its version is not read again.
    other, other_token, _ = await match(one)
    store.version_reads = 0
    opened, seat = await two.open(other.match_id, other_token)
    await two.subscribe(opened, Recorder(seat))
    assert seat == 0 and store.version_reads == 0
    await one.close()
    await two.close()


async def test_resync_brings_every_copy_that_fell_behind_up_to_date_and_tells_its_clients(engine):
    """What a process does after its notices may have been lost (a dropped LISTEN connection)."""
    one = MatchService(SqlStore(engine), bot_delay=0)
    behind, _, _ = await human_match(one)
    untouched, _, _ = await human_match(one)
    two = MatchService(SqlStore(engine), bot_delay=0)
    copies = [await two.cache.get(behind.match_id), await two.cache.get(untouched.match_id)]
    watchers = [Recorder(None), Recorder(None)]
    for live, watcher in zip(copies, watchers):
        await two.subscribe(live, watcher)
    mover = behind.state.to_act
    await one.act(behind, mover, "m1", behind.meta.version, {"kind": "pass"})
    assert copies[0].meta.version == behind.meta.version - 1  # no broadcaster: two has not heard
    await two.resync()
    assert copies[0].meta.version == behind.meta.version
    assert copies[0].state.hand.view(None) == behind.state.hand.view(None)
    assert watchers[0].messages[-1]["version"] == behind.meta.version
    assert [len(w.messages) for w in watchers] == [2, 1]  # the one that did not move: no message
    await one.close()
    await two.close()


async def test_details_and_record_read_the_store_not_an_old_copy(engine):
    one = MatchService(SqlStore(engine), bot_delay=0)
    live, ada, _ = await human_match(one)
    two = MatchService(SqlStore(engine), bot_delay=0)
    await two.cache.get(live.match_id)  # an old copy at the second process
    await one.resign(ada, live.match_id)
    meta, _ = await two.details(ada, live.match_id)
    assert meta.status == "finished"
    record = await two.record(ada, live.match_id)
    assert record.meta.outcome["reason"] == "resign"
    await one.close()
    await two.close()


async def test_a_player_who_joined_through_another_process_can_resign_here(engine):
    one = MatchService(SqlStore(engine), bot_delay=0)
    ada, _ = await one.create_player("Ada")
    bob, _ = await one.create_player("Bob")
    created = await one.create_match(ada, opponent="human")
    two = MatchService(SqlStore(engine), bot_delay=0)
    await two.cache.get(created.meta.match_id)  # cached while Bob's seat was empty
    await one.join(bob, created.meta.match_id, created.invite)
    meta = await two.resign(bob, created.meta.match_id)
    assert meta.status == "finished" and meta.winner == 0
    await one.close()
    await two.close()


class HeldLoad(SqlStore):
    """Its next ``load_match`` reads the match, says so (``read``), then waits for ``gate``
    before answering: a change committed and announced meanwhile is not in what it read."""

    def __init__(self, engine) -> None:
        super().__init__(engine)
        self.read, self.gate = asyncio.Event(), asyncio.Event()

    async def load_match(self, match_id):
        loaded = await super().load_match(match_id)
        if not self.gate.is_set():
            self.read.set()
            await self.gate.wait()
        return loaded


class TellingHub(InProcessBroadcaster):
    """Sets ``published`` as a change starts going out to the listeners."""

    def __init__(self) -> None:
        super().__init__()
        self.published = asyncio.Event()

    async def publish(self, match_id, version):
        self.published.set()
        await super().publish(match_id, version)


async def test_a_change_announced_while_another_process_loads_the_match_is_not_missed(engine):
    hub = TellingHub()
    one = MatchService(SqlStore(engine), bot_delay=0, broadcaster=hub)
    held = HeldLoad(engine)
    two = MatchService(held, bot_delay=0, broadcaster=hub)
    held.gate.set()
    live, _, _ = await human_match(one)
    before = live.meta.version
    held.gate.clear()
    hub.published.clear()
    loading = asyncio.ensure_future(two.cache.get(live.match_id))
    await held.read.wait()  # two has read the match as it is before the change
    seat = live.state.to_act
    acting = asyncio.ensure_future(
        one.act(live, seat, "a1", before, live.state.legal_actions(seat)[0].to_wire())
    )
    await hub.published.wait()  # committed, and announced to two while its load is under way
    held.gate.set()
    copy = await loading
    await acting
    assert copy.meta.version == before + 1, "the copy loaded before the change never caught up"
    await one.close()
    await two.close()
