"""The bot ladder's scheduler, on the injected clock with a metered thinker (no sleeping): a pair
is one seed played twice with the seats swapped, both matches finish, the pair moves both
ladder ratings once, and the references never use more CPU than their share; bot accounts are
declared, enroll, are told their matches, and never take an open challenge."""

from __future__ import annotations

import pytest

from server.bots import make_bot
from server.rules import SeatView
from server.service import FakeClock, MatchService, SequentialIds
from server.service.errors import BadRequest, Forbidden, NotForBots, NotFound
from server.service.ladder import LadderSettings, reference_id
from server.storage import MemoryStore

MOVE_CPU = 0.004
"""What the metered thinker says each reference move cost (CPU seconds)."""


class Meter:
    """A thinker that plays the real references and reports a fixed CPU cost per move, logging
    when (on the fake clock) each move was asked for."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.moves: list[float] = []

    async def __call__(self, level: str, seed: str, view: SeatView):
        self.moves.append(self.clock.monotonic())
        return make_bot(level, seed).choose(view), MOVE_CPU


def ladder_service(share: float = 0.02, references=("easy", "normal")):
    clock = FakeClock()
    meter = Meter(clock)
    service = MatchService(
        MemoryStore(),
        bot_delay=0,
        clock=clock,
        ids=SequentialIds(),
        ladder=LadderSettings(cpu_share=share, references=references, tick_seconds=1.0),
        ladder_think=meter,
    )
    return service, clock, meter


async def test_a_pair_is_one_seed_twice_with_seats_swapped_and_rated_within_the_cpu_budget():
    service, clock, meter = ladder_service()
    ladder = service.ladder
    ladder.start()
    await clock.advance(0)
    await clock.settle()
    [pair] = await service.store.ladder_pairs(player_id=None, status="playing", limit=10)
    first, second = [await service.store.load_meta(m) for m in pair.match_ids]
    assert first.seed == second.seed and first.first_starter == second.first_starter
    assert first.seat_ids == [pair.a, pair.b] and second.seat_ids == [pair.b, pair.a]
    assert {pair.a, pair.b} == {reference_id("easy"), reference_id("normal")}
    assert not first.rated and not first.public and first.opponent == "human" and first.time_control is None
    # Play on the fake clock until the pair is counted.
    for _ in range(4000):
        done = await service.store.ladder_pairs(player_id=None, status="finished", limit=10)
        if done:
            [counted] = done
            break
        await clock.advance(0.5)
    else:
        raise AssertionError("the pair never finished")
    # The budget: every move started with the CPU spent so far within the share of the time.
    share = ladder.settings.cpu_share
    for i, at in enumerate(meter.moves):
        assert i * MOVE_CPU <= share * at + 1e-9
    assert ladder.cpu_spent == pytest.approx(len(meter.moves) * MOVE_CPU)
    assert clock.monotonic() >= ladder.cpu_spent / share - 1.0
    metas = [await service.store.load_meta(m) for m in counted.match_ids]
    assert all(m.status == "finished" for m in metas)
    wins = int(metas[0].winner == 0) + int(metas[1].winner == 1)
    assert counted.wins == wins and counted.score == wins / 2
    assert counted.points == (metas[0].scores[0] - metas[0].scores[1]) + (
        metas[1].scores[1] - metas[1].scores[0]
    )
    a, b = await service.store.ladder_entry(counted.a), await service.store.ladder_entry(counted.b)
    assert (
        counted.pair_id == pair.pair_id
        and a.games == b.games == 1
        and a.deviation < 350
        and b.deviation < 350
    )
    if counted.score != 0.5:
        assert (a.rating > 1500) == (counted.score > 0.5) and (b.rating > 1500) == (counted.score < 0.5)
    # No human rating moved, and the standings and pairs read back.
    assert await service.store.rating(counted.a) is None
    standings = await ladder.standings()
    assert [s.rank for s in standings] == [1, 2] and all(s.entry.reference for s in standings)
    recent, pairings = await ladder.pairs(counted.a, limit=5)
    assert [p.pair_id for p in recent if p.status == "finished"] == [counted.pair_id] and pairings[
        0
    ].pairs == 1
    assert recent[0].status == "playing"  # the next pair started as soon as this one was counted
    assert (pairings[0].score_low, pairings[0].score_high) == (0.0, 1.0)  # one pair: no spread yet
    await service.close()


async def test_an_off_ladder_schedules_nothing():
    service, clock, _meter = ladder_service(share=0.0)
    service.ladder.start()
    await clock.advance(10)
    assert await service.store.ladder_pairs(player_id=None, status=None, limit=10) == []
    await service.close()


async def test_a_bot_account_enrolls_is_paired_when_present_and_never_takes_an_open_challenge():
    service, clock, _meter = ladder_service(share=1.0, references=("easy",))
    ada, _ = await service.create_player("Ada")
    with pytest.raises(Forbidden):
        await service.ladder.enroll(ada)  # only a bot enrolls
    with pytest.raises(BadRequest):
        await service.bots.create("Robo", "", "no owner")
    robo, _token, record = await service.bots.create("Robo", "ada@example.org", "a greedy test bot")
    assert (await service.store.bot(robo.player_id)).owner == "ada@example.org" and record.description
    challenge = await service.create_match(ada, opponent="human", public=True)
    with pytest.raises(NotForBots):
        await service.accept(robo, challenge.meta.match_id)
    assert (await service.store.load_meta(challenge.meta.match_id)).seat_ids[1] is None  # nothing changed
    with pytest.raises(NotFound):
        await service.ladder.matches_for(robo)  # not enrolled yet
    entry = await service.ladder.enroll(robo)
    assert (entry.reference, entry.games, entry.rating) == (False, 0, 1500.0)
    assert (await service.ladder.enroll(robo)).enrolled_at == entry.enrolled_at  # again: nothing changes
    service.ladder.start()
    await clock.advance(0)
    await clock.settle()
    matches = await service.ladder.matches_for(robo)
    assert sorted(m.seat for m in matches) == [0, 1]
    pair = matches[0].pair
    assert pair.a == robo.player_id and pair.b == reference_id("easy")
    meta = await service.store.load_meta(matches[0].match_id)
    assert meta.time_control is not None  # an absent bot loses on time
    # Its two matches are dealt apart: the bot plays both at once, and the same deals would show
    # it its opponent's hand (its own in the other match) and the stock's order.
    first, second = [await service.store.load_meta(m) for m in pair.match_ids]
    assert first.seed != second.seed and first.first_starter == second.first_starter
    lives = [await service.cache.get(m) for m in pair.match_ids]
    hands = [set(live.state.view(seat).hand.hand) for live, seat in zip(lives, (0, 1), strict=True)]
    assert hands[0] != hands[1]  # the bot's hands: seat 0 of one, seat 1 of the other
    await service.close()
