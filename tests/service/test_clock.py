"""The service's inputs: a fake clock moves only when told and wakes its sleepers in order, and
every time and id the service records comes from the clock and the id source it was given."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from server.service import FakeClock, MatchService, SecretIds, SequentialIds
from server.storage import MemoryStore


async def test_a_fake_clock_wakes_its_sleepers_in_order_only_when_advanced():
    clock = FakeClock()
    woke: list[tuple[str, float]] = []

    async def sleeper(name: str, seconds: float) -> None:
        await clock.sleep(seconds)
        woke.append((name, clock.monotonic()))

    tasks = [asyncio.create_task(sleeper(n, s)) for n, s in (("late", 2.0), ("early", 1.0), ("tie", 1.0))]
    await clock.settle()
    assert woke == [] and clock.sleepers == 3
    await clock.advance(1.5)
    assert woke == [("early", 1.0), ("tie", 1.0)] and clock.monotonic() == 1.5
    await clock.advance(0.5)
    assert woke[-1] == ("late", 2.0)
    await asyncio.gather(*tasks)


async def test_a_fake_clock_wakes_a_sleep_taken_after_waking_within_the_same_advance():
    clock = FakeClock()
    ticks: list[float] = []

    async def ticker() -> None:
        while True:
            await clock.sleep(1.0)
            ticks.append(clock.monotonic())

    task = asyncio.create_task(ticker())
    await clock.settle()
    await clock.advance(3.5)
    assert ticks == [1.0, 2.0, 3.0]
    task.cancel()


async def test_a_zero_sleep_only_yields_and_wall_time_follows_the_clock():
    clock = FakeClock()
    await asyncio.wait_for(clock.sleep(0), timeout=1)
    before = clock.now()
    await clock.advance(90)
    assert clock.now() - before == timedelta(seconds=90)


async def test_what_the_service_records_takes_its_time_and_ids_from_its_inputs():
    clock = FakeClock()
    service = MatchService(MemoryStore(), bot_delay=0, clock=clock, ids=SequentialIds())
    ada, token = await service.create_player("Ada")
    assert (ada.player_id, token, ada.created_at) == ("p_2", "token-1", clock.now())
    await clock.advance(60)
    created = await service.create_match(ada, opponent="human")
    meta = created.meta
    assert (meta.match_id, meta.seed, created.invite) == ("m_6", "seed-3", "invite-5")
    assert created.watch_token == "token-4"
    assert meta.created_at == clock.now() == ada.created_at + timedelta(seconds=60)
    await service.close()


def test_the_real_ids_are_unguessable_and_distinct():
    ids = SecretIds()
    tokens = {ids.token() for _ in range(100)}
    assert len(tokens) == 100 and all(len(t) >= 40 for t in tokens)
    assert ids.match_id().startswith("m_") and ids.player_id().startswith("p_")
    assert len(ids.seed()) == 32
