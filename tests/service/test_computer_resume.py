"""The computer's turn in a match another process (a replica) wrote moments ago: that process
plays it, and this one, which loaded the match for a player's hello, waits a grace beyond the
pause, catches up and plays only what the other did not. Both services share one store, one
broadcaster and one injected clock."""

from __future__ import annotations

from datetime import datetime, timedelta

from server.bots import make_bot
from server.service import FakeClock, InProcessBroadcaster, MatchService, SequentialIds
from server.service.computer import RESUME_GRACE
from server.storage import MemoryStore

PAUSE = 0.6


class Counted:
    """A bot factory whose bots count their choices in ``chosen``."""

    def __init__(self):
        self.chosen = 0

    def __call__(self, difficulty, seed):
        bot, factory = make_bot(difficulty, seed), self

        class Counting:
            def choose(self, view):
                factory.chosen += 1
                return bot.choose(view)

        return Counting()


class Ahead:
    """``clock`` as a host whose clock runs ``seconds`` ahead sees it (its sleeps are the same)."""

    def __init__(self, clock: FakeClock, seconds: float):
        self.clock, self.offset = clock, timedelta(seconds=seconds)

    def now(self) -> datetime:
        return self.clock.now() + self.offset

    def monotonic(self) -> float:
        return self.clock.monotonic()

    async def sleep(self, seconds: float) -> None:
        await self.clock.sleep(seconds)


async def replicas(clock: FakeClock, one_clock=None):
    """Two services on one store (``one``, ``two``, each with its counted bots), a match against
    the computer (Easy) created on ``one`` and played there up to the computer's turn, and its
    player's token. ``one_clock``: ``one``'s own clock (default ``clock``)."""
    store, hub = MemoryStore(), InProcessBroadcaster()
    services = []
    for own in (one_clock or clock, clock):
        bots = Counted()
        service = MatchService(
            store, bot_delay=PAUSE, clock=own, ids=SequentialIds(), broadcaster=hub, bot_factory=bots
        )
        services.append((service, bots))
    (one, _), _ = services
    ada, token = await one.create_player("Ada")
    created = await one.create_match(ada, difficulty="easy")
    live = await one.cache.get(created.meta.match_id)
    while live.state.to_act == 0:
        await one.act(live, 0, None, live.meta.version, live.state.legal_actions(0)[0].to_wire())
    return services, live, token


async def computers_turn_over(clock: FakeClock, live) -> None:
    for _ in range(10):
        if live.state.to_act != 1 or live.meta.status != "active":
            return
        await clock.advance(PAUSE)
    raise AssertionError("the computer's turn never ended")


async def test_a_replica_that_loads_a_match_just_written_leaves_the_computers_turn_to_the_writer():
    clock = FakeClock()
    [(one, one_bots), (two, two_bots)], live, _ = await replicas(clock)
    other = await two.cache.get(live.match_id)  # a player's hello through the other replica
    await clock.settle()
    await computers_turn_over(clock, live)
    assert one_bots.chosen >= 1
    assert other.meta.version == live.meta.version and other.state.to_act == 0
    await clock.advance(PAUSE + RESUME_GRACE)
    assert two_bots.chosen == 0  # it never thought for a turn the writer played
    assert other.bot_task is None and clock.sleepers == 0
    await one.close()
    await two.close()


async def test_when_the_writer_is_gone_the_replica_plays_the_turn_after_the_grace():
    clock = FakeClock()
    [(one, _), (two, two_bots)], live, _ = await replicas(clock)
    version = live.meta.version
    await one.close()  # the process that wrote the match died before the computer's move
    other = await two.cache.get(live.match_id)
    await clock.settle()
    await clock.advance(PAUSE)
    assert two_bots.chosen == 0 and other.meta.version == version  # waiting out the grace
    await clock.advance(RESUME_GRACE)
    assert two_bots.chosen >= 1 and other.meta.version > version
    await computers_turn_over(clock, other)
    assert other.state.to_act == 0 or other.meta.status != "active"
    await two.close()


async def test_the_person_acting_on_the_replica_gets_the_computers_reply_after_the_usual_pause():
    """The replica's own write schedules the reply at once: a wait left by the load does not
    hold it back."""
    clock = FakeClock()
    [(one, _), (two, two_bots)], live, _ = await replicas(clock)
    other = await two.cache.get(live.match_id)
    await clock.settle()
    await computers_turn_over(clock, live)
    while other.state.to_act == 0 and other.meta.status == "active":
        await two.act(other, 0, None, other.meta.version, other.state.legal_actions(0)[0].to_wire())
    version = other.meta.version
    await clock.advance(PAUSE)
    assert two_bots.chosen == 1 and other.meta.version == version + 1
    await one.close()
    await two.close()


async def test_a_turn_a_restart_interrupted_resumes_after_the_usual_pause():
    clock = FakeClock()
    [(one, _), (two, two_bots)], live, _ = await replicas(clock)
    version = live.meta.version
    await one.close()
    await clock.advance(PAUSE + RESUME_GRACE)  # the match was written a while ago
    other = await two.cache.get(live.match_id)
    await clock.settle()
    await clock.advance(PAUSE)
    assert two_bots.chosen == 1 and other.meta.version == version + 1
    await two.close()


async def test_hellos_through_the_replica_leave_the_turn_to_the_writer_too():
    clock = FakeClock()
    [(one, one_bots), (two, two_bots)], live, token = await replicas(clock)
    other, seat = await two.open(live.match_id, token)  # loads the match: waits out the grace
    await two.open(live.match_id, token)  # held now: starts no turn of its own either
    await clock.settle()
    assert seat == 0 and other.bot_task is None and len(two.computer._watched) == 1
    await computers_turn_over(clock, live)
    await clock.advance(PAUSE + RESUME_GRACE)
    assert one_bots.chosen >= 1 and two_bots.chosen == 0
    await one.close()
    await two.close()


async def test_a_writer_whose_clock_runs_ahead_holds_the_turn_no_longer_than_the_grace():
    """The match's last write is stamped an hour in this replica's future (its writer's clock
    runs ahead, and that writer is gone): the replica still plays after the pause and the grace,
    not after the hour."""
    clock = FakeClock()
    [(one, _), (two, two_bots)], live, _ = await replicas(clock, one_clock=Ahead(clock, 3600))
    version = live.meta.version
    assert live.meta.updated_at > clock.now()
    await one.close()
    other = await two.cache.get(live.match_id)
    await clock.settle()
    await clock.advance(PAUSE + RESUME_GRACE)
    assert two_bots.chosen >= 1 and other.meta.version > version
    await two.close()
