"""The REST limits' counts (server/transport/window_counts.py), on an injected clock: a window's
count, its end, and memory that holds only open windows without walking every key per hit."""

from __future__ import annotations

import time

import pytest

from server.service.errors import RateLimited
from server.transport.ratelimit import RestLimiter
from server.transport.window_counts import WindowCounts


class Clock:
    """Wall time that moves only when a test moves it (from the real time, as the limiter reads
    it for a refusal's reset)."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


async def test_a_window_counts_its_hits_until_it_ends_then_starts_again():
    clock = Clock()
    counts = WindowCounts(clock=clock)
    assert [await counts.incr("a", 60) for _ in range(3)] == [1, 2, 3]
    assert await counts.incr("a", 60, amount=2) == 5
    assert await counts.get("a") == 5 and await counts.get("b") == 0
    assert await counts.get_expiry("a") == clock.now + 60
    assert await counts.get_expiry("b") == clock.now  # no window open: resets now
    clock.now += 59.9
    assert await counts.incr("a", 60) == 6  # the same window
    clock.now += 0.1
    assert await counts.get("a") == 0  # it ended
    assert await counts.incr("a", 60) == 1
    assert await counts.get_expiry("a") == clock.now + 60


async def test_ended_windows_are_dropped_by_one_walk_per_sweep_not_by_every_hit():
    clock = Clock()
    counts = WindowCounts(sweep_every=60, clock=clock)
    for i in range(1000):
        await counts.incr(f"old{i}", 10)
    clock.now += 30  # every old window has ended, and no walk is due yet
    await counts.incr("new", 60)
    assert len(counts.counts) == 1001  # a hit walked nothing
    assert await counts.get("old7") == 0 and "old7" not in counts.counts  # dropped when read
    clock.now += 30  # the walk is due
    await counts.incr("new", 60)
    assert set(counts.counts) == {"new"} and await counts.get("new") == 2


async def test_clear_and_reset():
    counts = WindowCounts(clock=Clock())
    await counts.incr("a", 60)
    await counts.incr("b", 60)
    await counts.clear("a")
    assert await counts.get("a") == 0 and await counts.get("b") == 1
    assert await counts.reset() == 1 and counts.counts == {}
    assert await counts.check()


async def test_the_limiter_refuses_past_the_rate_naming_the_limit_and_when_it_resets():
    clock = Clock()
    limiter = RestLimiter({"requests": "3/minute"}, WindowCounts(clock=clock))
    for _ in range(3):
        await limiter.hit("requests", "t:1")
    await limiter.hit("requests", "t:2")  # another key has its own count
    with pytest.raises(RateLimited) as refused:
        await limiter.hit("requests", "t:1")
    assert refused.value.limit == "requests" and "3 per 1 minute" in str(refused.value)
    assert 59 < refused.value.reset_in <= 60
    clock.now += 60
    await limiter.hit("requests", "t:1")  # a new window
