"""The match service on a real SQLite store: one writer per match (even across two services on
one database), nothing is shown before it is committed, writes in flight finish on shutdown,
and changes reach other processes through the broadcaster."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random

import pytest

from server.service import (
    Broadcaster,
    FakeClock,
    InProcessBroadcaster,
    MatchService,
    SeatUpdate,
    SequentialIds,
)
from server.service.errors import (
    BadRequest,
    IdReused,
    IllegalAction,
    NotYourTurn,
    StaleVersion,
    Unauthorized,
    Unavailable,
)
from server.storage import MemoryStore, SqlStore, create_engine, upgrade
from server.transport.present import state_message


class Recorder:
    """A subscriber that keeps what it is sent."""

    def __init__(self, seat):
        self.seat = seat
        self.messages: list[dict] = []

    def deliver(self, update: SeatUpdate) -> None:
        self.messages.append(json.loads(state_message(update)))


class SlowStore(SqlStore):
    """Commits take a while, to catch anything that runs between an apply and its commit."""

    delay = 0.2

    async def commit(self, change):
        await asyncio.sleep(self.delay)
        return await super().commit(change)


@pytest.fixture
async def engine(tmp_path):
    eng = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'service.db'}")
    await upgrade(eng)
    yield eng
    await eng.dispose()


async def human_match(service: MatchService):
    ada, _ = await service.create_player("Ada")
    bob, _ = await service.create_player("Bob")
    created = await service.create_match(ada, opponent="human")
    await service.join(bob, created.meta.match_id, created.invite)
    live = await service.cache.get(created.meta.match_id)
    return live, ada, bob


async def play_until_the_computer_moved(service: MatchService, live, store: SqlStore) -> None:
    """Play seat 0's first legal action at each of its turns until the computer has moved."""
    for _ in range(1000):
        _, actions = await store.load_match(live.match_id)
        if any(a.seat == 1 for a in actions):
            return
        async with live.lock:
            version, legal = live.meta.version, live.state.legal_actions(0)
        if legal:
            await service.act(live, 0, None, version, legal[0].to_wire())
        else:
            await asyncio.sleep(0.01)
    raise AssertionError("the computer never moved")


async def test_an_action_raced_twice_at_one_version_is_applied_once(engine):
    service = MatchService(SqlStore(engine), bot_delay=0)
    live, *_ = await human_match(service)
    seat, version = live.state.to_act, live.meta.version
    results = await asyncio.gather(
        service.act(live, seat, "a", version, {"kind": "pass"}),
        service.act(live, seat, "b", version, {"kind": "pass"}),
        return_exceptions=True,
    )
    assert sorted(type(r).__name__ for r in results) == ["StaleVersion", "tuple"]
    assert live.meta.version == version + 1
    await service.close()


async def test_two_services_on_one_database_never_both_write_a_match(engine):
    """Two processes (here two services) holding the same match: the database lets one write
    land; the other is told its version is stale and catches up."""
    one = MatchService(SqlStore(engine), bot_delay=0)
    live, *_ = await human_match(one)
    two = MatchService(SqlStore(engine), bot_delay=0)
    other = await two.cache.get(live.match_id)
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


async def test_nobody_sees_an_action_before_its_commit(engine):
    service = MatchService(SlowStore(engine), bot_delay=0)
    live, *_ = await human_match(service)
    seat, version = live.state.to_act, live.meta.version
    acting = asyncio.create_task(service.act(live, seat, "a", version, {"kind": "pass"}))
    await asyncio.sleep(0.05)  # the action is applied in memory and its commit is under way
    seen = json.loads(state_message(await service.current_state(live, None)))
    assert seen["version"] == version + 1  # it waited for the commit
    assert seen["view"]["hand"]["history"][-1]["kind"] == "pass"
    await acting
    await service.close()


async def test_the_ack_goes_out_before_any_state(engine):
    service = MatchService(SqlStore(engine), bot_delay=0)
    live, *_ = await human_match(service)
    watcher = Recorder(None)
    await service.subscribe(live, watcher)
    order: list[str] = []
    watcher.deliver = lambda update: order.append("state")  # type: ignore[method-assign]
    await service.act(
        live, live.state.to_act, "a", live.meta.version, {"kind": "pass"}, lambda v: order.append("ack")
    )
    assert order == ["ack", "state"]
    await service.close()


async def test_a_write_in_flight_commits_even_when_its_caller_is_cancelled_at_shutdown(engine):
    service = MatchService(SlowStore(engine), bot_delay=0)
    live, *_ = await human_match(service)
    version = live.meta.version
    caller = asyncio.create_task(service.act(live, live.state.to_act, "x", version, {"kind": "pass"}))
    await asyncio.sleep(0.05)
    caller.cancel()  # the socket handler goes away, as on shutdown
    await service.close()
    _, actions = await SqlStore(engine).load_match(live.match_id)
    assert [a.client_id for a in actions] == ["x"]
    with pytest.raises(Unavailable):
        await service.act(live, live.state.to_act, "y", version + 1, {"kind": "pass"})


async def test_errors_change_nothing(engine):
    service = MatchService(SqlStore(engine), bot_delay=0)
    live, *_ = await human_match(service)
    seat, version = live.state.to_act, live.meta.version

    def shown() -> dict:
        # Without the countdown to a claim, which moves with the (real) clock.
        message = json.loads(state_message(service.update(live, seat)))
        del message["view"]["claim_in_ms"]
        return message

    before = shown()
    for call, error in (
        (service.act(live, seat, "a", version, {"kind": "fly"}), BadRequest),
        (service.act(live, 1 - seat, "b", version, {"kind": "pass"}), NotYourTurn),
        (service.act(live, seat, "c", version, {"kind": "discard", "card": "7h"}), IllegalAction),
        (service.act(live, seat, "d", version + 5, {"kind": "pass"}), StaleVersion),
    ):
        with pytest.raises(error):
            await call
    assert shown() == before
    _, actions = await SqlStore(engine).load_match(live.match_id)
    assert actions == []
    await service.close()


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


async def test_a_match_against_the_computer_is_played_by_the_service_to_its_end(engine):
    import random

    service = MatchService(SqlStore(engine), bot_delay=0)
    ada, _ = await service.create_player("Ada")
    created = await service.create_match(ada, difficulty="easy")
    live = await service.cache.get(created.meta.match_id)
    rng = random.Random(4)
    for _ in range(5000):
        if live.meta.status == "finished":
            break
        async with live.lock:
            mine = live.state.to_act == 0
            legal = live.state.legal_actions(0) if mine else []
            version = live.meta.version
        if not mine:
            await asyncio.sleep(0.001)
            continue
        await service.act(live, 0, None, version, rng.choice(legal).to_wire())
    assert live.meta.status == "finished" and live.meta.outcome["reason"] == "target"
    reloaded = await MatchService(SqlStore(engine)).cache.get(live.match_id)
    assert reloaded.state.scores == live.state.scores and reloaded.meta.version == live.meta.version
    await service.close()


async def test_a_broken_computer_still_moves_so_the_match_never_stalls(engine):
    class Broken:
        def __init__(self, level, seed):
            self.calls = 0

        def choose(self, view):
            self.calls += 1
            if self.calls % 2:
                raise RuntimeError("bot bug")
            return {"kind": "not an action"}

    service = MatchService(SqlStore(engine), bot_delay=0, bot_factory=Broken)
    ada, _ = await service.create_player("Ada")
    created = await service.create_match(ada)
    live = await service.cache.get(created.meta.match_id)
    await play_until_the_computer_moved(service, live, SqlStore(engine))
    assert live.bot.calls >= 1
    await service.close()


async def test_resync_catches_up_on_a_change_whose_news_was_lost(engine):
    one = MatchService(SqlStore(engine), bot_delay=0)
    live, *_ = await human_match(one)
    two = MatchService(SqlStore(engine), bot_delay=0)  # no shared broadcaster: news is lost
    other = await two.cache.get(live.match_id)
    watcher = Recorder(None)
    await two.subscribe(other, watcher)
    await one.act(live, live.state.to_act, "a", live.meta.version, {"kind": "pass"})
    assert other.meta.version == live.meta.version - 1
    await two.resync()
    assert other.meta.version == live.meta.version
    assert watcher.messages[-1]["version"] == live.meta.version
    await one.close()
    await two.close()


async def test_a_failed_write_with_the_store_down_is_rebuilt_before_the_next_use(engine):
    class DownStore(SqlStore):
        down = False

        async def commit(self, change):
            if self.down:
                raise ConnectionError("database unreachable")
            return await super().commit(change)

        async def load_match(self, match_id):
            if self.down:
                raise ConnectionError("database unreachable")
            return await super().load_match(match_id)

    store = DownStore(engine)
    service = MatchService(store, bot_delay=0)
    live, *_ = await human_match(service)
    seat, version = live.state.to_act, live.meta.version
    store.down = True
    with pytest.raises(ConnectionError):
        await service.act(live, seat, "lost", version, {"kind": "pass"})
    assert live.stale  # it applied the pass in memory and could not rebuild
    store.down = False
    seen = json.loads(state_message(await service.current_state(live, None)))
    assert seen["version"] == version and seen["view"]["hand"]["history"] == []
    await service.act(live, seat, "again", version, {"kind": "pass"})
    _, actions = await SqlStore(engine).load_match(live.match_id)
    assert [a.client_id for a in actions] == ["again"]
    await service.close()


async def test_a_computer_move_given_as_a_subclass_of_an_action_is_played_as_chosen(engine):
    from server.rules import Action

    class Chosen:
        """Plays the last legal action, wrapped in a subclass of its own class."""

        def __init__(self, level, seed):
            self.chosen: list[dict] = []

        def choose(self, view):
            action = view.legal_actions[-1]
            sub = type("Sub" + type(action).__name__, (type(action),), {})
            wrapped = sub(**{f.name: getattr(action, f.name) for f in dataclasses.fields(action)})
            self.chosen.append(action.to_wire())
            return wrapped

    service = MatchService(SqlStore(engine), bot_delay=0, bot_factory=Chosen)
    ada, _ = await service.create_player("Ada")
    created = await service.create_match(ada)
    live = await service.cache.get(created.meta.match_id)
    store = SqlStore(engine)
    await play_until_the_computer_moved(service, live, store)
    await service.close()
    _, actions = await store.load_match(live.match_id)
    played = [a.action for a in actions if a.seat == 1]
    assert played and played == live.bot.chosen[: len(played)]
    assert all(isinstance(Action.from_wire(p), Action) for p in played)


async def test_idle_matches_leave_memory_and_come_back_from_the_store(engine):
    service = MatchService(SqlStore(engine), bot_delay=0, max_live=2)
    ada, _ = await service.create_player("Ada")
    made = [await service.create_match(ada, opponent="human") for _ in range(4)]
    assert len(service.cache) <= 2
    first = made[0].meta.match_id
    assert first not in service.cache
    live = await service.cache.get(first)  # rebuilt by replay
    assert live.meta.version == made[0].meta.version and live.state.hand_number == 1
    await service.close()


async def test_a_repeated_id_sent_to_a_process_with_an_old_copy_is_answered_not_applied(engine):
    one = MatchService(SqlStore(engine), bot_delay=0)
    live, *_ = await human_match(one)
    two = MatchService(SqlStore(engine), bot_delay=0)  # no broadcaster between them
    other = await two.cache.get(live.match_id)
    seat, version = live.state.to_act, live.meta.version
    first = await one.act(live, seat, "once", version, {"kind": "pass"})
    again = await two.act(other, seat, "once", version, {"kind": "pass"})
    assert again == (first[0], True)
    _, actions = await SqlStore(engine).load_match(live.match_id)
    assert [a.client_id for a in actions] == ["once"]
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


async def test_the_live_matches_gauge_counts_matches_in_play_only(engine):
    service = MatchService(SqlStore(engine), bot_delay=0)
    ada, _ = await service.create_player("Ada")
    for _ in range(3):
        await service.create_match(ada, opponent="human")
    done = await service.create_match(ada)
    await service.resign(ada, done.meta.match_id)
    registry = service.metrics.registry
    assert registry.get_sample_value("ginrummy_live_matches") == 3
    assert registry.get_sample_value("ginrummy_cached_matches") == 4
    await service.close()


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


async def test_players_are_remembered_by_token_but_unknown_tokens_are_not(engine):
    class CountingStore(SqlStore):
        player_reads = 0

        async def player_by_token_hash(self, token_hash):
            self.player_reads += 1
            return await super().player_by_token_hash(token_hash)

    one = MatchService(SqlStore(engine), bot_delay=0)
    store = CountingStore(engine)
    two = MatchService(store, bot_delay=0)
    two.players.known = 2
    ada, ada_token = await one.create_player("Ada")  # made by another process
    assert (await two.authenticate(ada_token)) == ada and store.player_reads == 1
    created = await two.create_match(ada)
    _, seat = await two.open(created.meta.match_id, ada_token)
    assert seat == 0 and (await two.authenticate(ada_token)) == ada
    assert store.player_reads == 1  # remembered
    for _ in range(2):
        with pytest.raises(Unauthorized):
            await two.authenticate("no-such-token")
    assert store.player_reads == 3  # an unknown token is asked every time
    _, bob_token = await two.create_player("Bob")  # known from the start
    await two.authenticate(bob_token)
    assert store.player_reads == 3
    _, cy_token = await two.create_player("Cy")  # a third: the least recent (Ada) is forgotten
    await two.authenticate(cy_token)
    await two.authenticate(bob_token)
    assert store.player_reads == 3
    assert (await two.authenticate(ada_token)) == ada and store.player_reads == 4
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


async def test_details_show_only_the_hands_their_match_row_knows_of(engine):
    service = MatchService(SqlStore(engine), bot_delay=0)
    live, ada, _ = await human_match(service)
    rng = random.Random(4)
    while not live.state.results:  # play hand 1 to its end
        seat = live.state.to_act
        await service.act(
            live, seat, None, live.meta.version, rng.choice(live.state.legal_actions(seat)).to_wire()
        )
    meta, hands = await service.details(ada, live.match_id)
    assert meta.hand_number == 2 and [h.number for h in hands] == [1]
    # The row as read just before hand 1 ended, and the hands read after: hand 1 is not shown.
    before = meta.copy()
    before.version, before.hand_number = meta.version - 1, 1

    async def row_read_earlier(match_id):
        return before

    service.queries.read_meta = row_read_earlier
    assert await service.details(ada, live.match_id) == (before, [])
    await service.close()


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


def test_a_match_row_copy_has_every_field_and_shares_no_list():
    from datetime import UTC, datetime

    from server.service.ports import MatchMeta

    values = {}
    for i, f in enumerate(dataclasses.fields(MatchMeta)):
        if f.name.endswith("_at"):
            values[f.name] = datetime(2026, 1, 1 + i, tzinfo=UTC)
        elif f.name in ("seat_ids", "seat_names", "scores", "hands_won"):
            values[f.name] = [f"{f.name}0", f"{f.name}1"]
        else:
            values[f.name] = f"{f.name}-{i}"
    meta = MatchMeta(**values)
    copy = meta.copy()
    assert copy == meta
    for name in ("seat_ids", "seat_names", "scores", "hands_won"):
        assert getattr(copy, name) is not getattr(meta, name)


class PresenceLink(Broadcaster):
    """Two processes' broadcasters, joined: each one's presence reports reach the other's
    listeners, as the Postgres one does (changes are left to the other tests)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.peer: PresenceLink | None = None
        self.listeners: list = []
        self.sent: list[tuple[str, tuple[bool, bool]]] = []

    async def publish(self, match_id, version):
        pass

    def listen(self, listener):
        pass

    async def publish_presence(self, match_id, seats):
        self.sent.append((match_id, seats))
        for listener in self.peer.listeners:
            await listener(match_id, self.name, seats)

    def listen_presence(self, listener):
        self.listeners.append(listener)

    async def close(self):
        pass


def linked() -> tuple[PresenceLink, PresenceLink]:
    a, b = PresenceLink("a"), PresenceLink("b")
    a.peer, b.peer = b, a
    return a, b


def connected_flags(message: dict) -> list[bool]:
    return [p["connected"] for p in message["view"]["players"]]


async def test_a_seat_connected_to_another_process_shows_as_connected_until_it_leaves(engine):
    link_a, link_b = linked()
    here = MatchService(SqlStore(engine), bot_delay=0, broadcaster=link_a)
    there = MatchService(SqlStore(engine), bot_delay=0, broadcaster=link_b)
    live, *_ = await human_match(here)
    ada = Recorder(0)
    await here.subscribe(live, ada)
    assert connected_flags(ada.messages[-1]) == [True, False]

    bob = Recorder(1)
    live_there = await there.cache.get(live.match_id)
    await there.subscribe(live_there, bob)
    assert connected_flags(ada.messages[-1]) == [True, True]  # told at once, same version
    assert ada.messages[-1]["version"] == live.meta.version
    assert connected_flags(bob.messages[-1]) == [True, True]  # Ada's report came first

    await there.unsubscribe(live_there, bob)
    assert connected_flags(ada.messages[-1]) == [True, False]
    await here.close()
    await there.close()


async def test_a_report_from_a_process_that_died_expires_and_the_clients_are_told():
    clock = FakeClock()
    link_a, _ = linked()
    here = MatchService(MemoryStore(), bot_delay=0, broadcaster=link_a, presence_ttl=30, clock=clock)
    live, *_ = await human_match(here)
    ada = Recorder(0)
    await here.subscribe(live, ada)
    # Another process says Bob has a socket there, then dies: it never reports again.
    for listener in link_a.listeners:
        await listener(live.match_id, "dead-peer", (False, True))
    assert connected_flags(ada.messages[-1]) == [True, True]
    await clock.settle()
    assert clock.sleepers == 1  # the presence loop, every third of the 30 s
    await clock.advance(29.9)
    assert connected_flags(ada.messages[-1]) == [True, True]  # not expired yet
    # Meanwhile this process kept reporting its own socket (at 10 s and 20 s).
    assert link_a.sent.count((live.match_id, (True, False))) == 3  # (and once on subscribing)
    await clock.advance(0.1)  # 30 s: the report is forgotten at the loop's next round
    assert connected_flags(ada.messages[-1]) == [True, False]
    await here.close()


async def test_the_computer_pauses_before_each_of_its_moves():
    clock = FakeClock()
    service = MatchService(MemoryStore(), bot_delay=0.6, clock=clock, ids=SequentialIds())
    ada, _ = await service.create_player("Ada")
    created = await service.create_match(ada, difficulty="easy")
    live = await service.cache.get(created.meta.match_id)
    while live.state.to_act == 0:
        await service.act(live, 0, None, live.meta.version, live.state.legal_actions(0)[0].to_wire())
    await clock.settle()
    version = live.meta.version
    assert live.bot_task is not None and clock.sleepers == 1
    await clock.advance(0.59)
    assert live.meta.version == version  # still thinking
    await clock.advance(0.01)
    assert live.meta.version == version + 1  # one move, then another pause if it is still its turn
    if live.state.to_act == 1:
        await clock.advance(0.59)
        assert live.meta.version == version + 1
        await clock.advance(0.01)
        assert live.meta.version == version + 2
    await service.close()


async def test_the_computer_still_moves_after_losing_several_version_races_in_a_row(engine):
    class RacedStore(SqlStore):
        """Refuses the computer's first commits as if another process had written first."""

        refusals = 3

        async def commit(self, change):
            if change.action is not None and change.action.seat == 1 and self.refusals:
                self.refusals -= 1
                return False
            return await super().commit(change)

    store = RacedStore(engine)
    service = MatchService(store, bot_delay=0)
    ada, _ = await service.create_player("Ada")
    created = await service.create_match(ada)
    live = await service.cache.get(created.meta.match_id)
    await play_until_the_computer_moved(service, live, store)
    assert store.refusals == 0
    await service.close()


# --- What the store keeps of a finished hand and of a match's end --------------------------------

# The guide's worked example (docs/rules.md): seat 0 knocks with 8 after drawing the 8d, seat 1
# lays off Tc and 5c and undercuts. As the rules' old HandResult.to_wire() stored it: existing
# databases hold exactly this, so it may not change.
STORED_UNDERCUT = {
    "kind": "undercut",
    "winner": 1,
    "points": 28,
    "knocker": 0,
    "deadwood": [8, 5],
    "hands": [
        ["2c", "3c", "4c", "7c", "8c", "9c", "5d", "8d", "5h", "5s"],
        ["5c", "Tc", "Qc", "Qd", "9h", "Th", "Jh", "As", "4s", "Qs"],
    ],
    "melds": [
        [["2c", "3c", "4c"], ["7c", "8c", "9c"], ["5d", "5h", "5s"]],
        [["9h", "Th", "Jh"], ["Qc", "Qd", "Qs"]],
    ],
    "unmatched": [["8d"], ["As", "4s"]],
    "layoffs": [{"card": "Tc", "meld": 1}, {"card": "5c", "meld": 2}],
    "breakdown": "25 + 8 - 5 = 28",
}
STORED_OUTCOME = {
    "winner": 0,
    "reason": "target",
    "totals": [
        {"points": 104, "box_bonus": 50, "game_bonus": 100, "total": 254},
        {"points": 40, "box_bonus": 25, "game_bonus": 0, "total": 65},
    ],
}


def test_a_finished_hand_and_an_outcome_are_stored_in_the_shape_databases_hold():
    from server.rules import RULES, Draw, Knock, MatchOutcome, Pass, SeatTotal, Source, new_hand
    from server.service.writer import stored_outcome, stored_result

    h = new_hand(
        RULES["house"],
        starter=0,
        hands=("2c 3c 4c 5h 5d 5s 7c 8c 9c Kh", "Qs Qd Qc Jh Th 9h 4s As 5c Tc"),
        upcard="Kd",
        stock="8d 2h 3h",
    )
    h.apply(Pass()).apply(Pass()).apply(Draw(Source.STOCK)).apply(Knock("Kh"))
    stored = stored_result(h.result)
    assert stored == STORED_UNDERCUT
    assert json.dumps(stored) == json.dumps(STORED_UNDERCUT)  # the keys in the same order too
    outcome = MatchOutcome(0, "target", (SeatTotal(104, 50, 100), SeatTotal(40, 25, 0)))
    assert json.dumps(stored_outcome(outcome)) == json.dumps(STORED_OUTCOME)


async def test_the_store_keeps_each_finished_hand_and_the_outcome_in_their_stored_form(engine):
    from server.service.writer import stored_outcome, stored_result

    store = SqlStore(engine)
    service = MatchService(store, bot_delay=0)
    live, ada, _ = await human_match(service)
    rng = random.Random(7)
    while len(live.state.results) < 2:  # two hands to their end
        seat = live.state.to_act
        await service.act(
            live, seat, None, live.meta.version, rng.choice(live.state.legal_actions(seat)).to_wire()
        )
    await service.resign(ada, live.match_id)
    hands = await store.finished_hands(live.match_id)
    assert [h.result for h in hands] == [stored_result(r) for r in live.state.results]
    assert {h.result["kind"] for h in hands} <= {"gin", "knock", "undercut", "dead"}
    meta = await store.load_meta(live.match_id)
    assert meta.outcome == stored_outcome(live.state.outcome) and meta.outcome["reason"] == "resign"
    assert list(meta.outcome) == ["winner", "reason", "totals"]
    await service.close()


async def test_a_repeated_id_with_another_action_is_id_reused_and_changes_nothing(engine):
    service = MatchService(SqlStore(engine), bot_delay=0)
    live, *_ = await human_match(service)
    seat, version = live.state.to_act, live.meta.version
    first = await service.act(live, seat, "once", version, {"kind": "pass"})
    assert await service.act(live, seat, "once", version, {"kind": "pass"}) == (first[0], True)
    other = live.state.to_act
    second = await service.act(live, other, "two", live.meta.version, {"kind": "pass"})
    now = live.meta.version
    assert live.state.to_act == seat
    with pytest.raises(IdReused):  # the same id, another action (now legal): not its old ack
        await service.act(live, seat, "once", now, {"kind": "draw", "source": "stock"})
    assert live.meta.version == now
    # After a reload from the store (a restart) it is still remembered with its action.
    fresh = MatchService(SqlStore(engine), bot_delay=0)
    again = await fresh.cache.get(live.match_id)
    with pytest.raises(IdReused):
        await fresh.act(again, seat, "once", now, {"kind": "draw", "source": "stock"})
    assert await fresh.act(again, seat, "once", now, {"kind": "pass"}) == (first[0], True)
    assert await fresh.act(again, other, "two", now, {"kind": "pass"}) == (second[0], True)
    _, actions = await SqlStore(engine).load_match(live.match_id)
    assert [a.client_id for a in actions] == ["once", "two"]
    await service.close()
    await fresh.close()


async def test_the_service_caps_a_players_waiting_and_active_matches(engine):
    from server.service import MatchCaps
    from server.service.errors import TooManyMatches

    service = MatchService(SqlStore(engine), bot_delay=0)
    ada, _ = await service.create_player("Ada")
    bob, _ = await service.create_player("Bob")
    caps = MatchCaps(waiting=1, active=1)
    await service.create_match(ada, opponent="human", caps=caps)
    with pytest.raises(TooManyMatches):
        await service.create_match(ada, opponent="human", caps=caps)
    await service.create_match(ada, caps=caps)
    with pytest.raises(TooManyMatches):
        await service.create_match(ada, caps=caps)
    theirs = await service.create_match(bob, opponent="human", caps=caps)
    with pytest.raises(TooManyMatches):
        await service.join(ada, theirs.meta.match_id, theirs.invite, caps)
    assert (await service.store.load_meta(theirs.meta.match_id)).status == "waiting"  # nothing changed
    await service.close()


async def test_a_cancelled_match_is_gone_from_the_store_and_the_cache(engine):
    from server.service.errors import Conflict, Forbidden, NotFound

    service = MatchService(SqlStore(engine), bot_delay=0)
    ada, _ = await service.create_player("Ada")
    bob, _ = await service.create_player("Bob")
    created = await service.create_match(ada, opponent="human")
    match_id = created.meta.match_id
    with pytest.raises(Forbidden):
        await service.cancel(bob, match_id)
    await service.cancel(ada, match_id)
    assert service.cache.find(match_id) is None
    assert await service.store.load_meta(match_id) is None
    with pytest.raises(NotFound):
        await service.join(bob, match_id, created.invite)
    assert (await service.stats(ada))["matches"] == 0
    # Joined through another process: this one's copy is behind, and still refuses.
    other = await service.create_match(ada, opponent="human")
    two = MatchService(SqlStore(engine), bot_delay=0)
    await service.cache.get(other.meta.match_id)
    await two.join(bob, other.meta.match_id, other.invite)
    with pytest.raises(Conflict):
        await service.cancel(ada, other.meta.match_id)
    assert (await service.store.load_meta(other.meta.match_id)).status == "active"
    await service.close()
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
