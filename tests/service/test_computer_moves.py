"""The computer's moves, played by the service: a match against it to its end, a broken bot
that still moves, a move given as a subclass of an action, the pause before each move (on the
injected clock) and lost version races."""

from __future__ import annotations

import asyncio
import dataclasses
import random

from server.service import FakeClock, MatchService, SequentialIds
from server.storage import MemoryStore, SqlStore

from .helpers import Recorder, SlowStore, play_until_the_computer_moved


async def test_a_match_against_the_computer_is_played_by_the_service_to_its_end(engine):
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


async def paused_match(clock: FakeClock):
    """A service whose computer pauses 0.6 s before each move, and a match against it (Easy)."""
    service = MatchService(MemoryStore(), bot_delay=0.6, clock=clock, ids=SequentialIds())
    ada, _ = await service.create_player("Ada")
    created = await service.create_match(ada, difficulty="easy")
    return service, await service.cache.get(created.meta.match_id)


async def persons_turn(service: MatchService, live) -> None:
    """Seat 0 plays its first legal actions until it is the computer's turn."""
    while live.state.to_act == 0:
        await service.act(live, 0, None, live.meta.version, live.state.legal_actions(0)[0].to_wire())


async def computer_pausing(clock: FakeClock):
    """A paused match (:func:`paused_match`) after the person's turn: the computer pausing."""
    service, live = await paused_match(clock)
    await persons_turn(service, live)
    await clock.settle()
    assert live.bot_task is not None and clock.sleepers == 1
    return service, live


async def test_the_computer_pauses_before_each_of_its_moves():
    clock = FakeClock()
    service, live = await computer_pausing(clock)
    version = live.meta.version
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


async def test_the_computers_turn_ends_with_its_last_move_not_after_another_pause():
    clock = FakeClock()
    service, live = await paused_match(clock)
    for _ in range(40):  # whole turns of the person's, each answered by the computer's
        while live.meta.status == "active" and live.state.to_act == 0:
            await service.act(live, 0, None, live.meta.version, live.state.legal_actions(0)[0].to_wire())
        while live.meta.status == "active" and live.state.to_act == 1:
            await clock.advance(0.6)
        if live.meta.status != "active":
            break
        # The person's turn: no computer's loop left waiting out one more pause to see it.
        await clock.settle()
        assert live.bot_task is None and clock.sleepers == 0
    await service.close()


async def test_at_close_a_computer_move_being_written_commits_and_tells_the_person(engine):
    # Close cancels the computer's turn, but a move it is writing still commits and reaches the
    # person (the write is shielded from its turn's cancellation), and no further move follows.
    service = MatchService(SlowStore(engine), bot_delay=0)
    ada, _ = await service.create_player("Ada")
    created = await service.create_match(ada, difficulty="easy")
    live = await service.cache.get(created.meta.match_id)
    person = Recorder(0)
    await service.subscribe(live, person)
    await persons_turn(service, live)
    version = live.meta.version
    await asyncio.sleep(0.05)  # the computer's move is applied and its commit under way
    assert live.bot_task is not None and live.meta.version == version
    await service.close()
    _, actions = await SqlStore(engine).load_match(live.match_id)
    assert live.meta.version == version + 1 and actions[-1].seat == 1 and len(actions) == version + 1
    assert person.messages[-1]["version"] == version + 1
    assert live.bot_task is None


async def test_at_close_a_computer_turn_pausing_before_its_move_is_called_off():
    clock = FakeClock()
    service, live = await computer_pausing(clock)
    version = live.meta.version
    await asyncio.wait_for(service.close(), 5)  # the fake clock never reaches the pause's end
    assert live.meta.version == version and live.bot_task is None


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
