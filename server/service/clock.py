"""The service's clock: wall time for the timestamps it stores, a monotonic clock for ages
(the match cache, presence reports, durations in metrics) and ``sleep`` for the computer's
pause and the presence loop.

:class:`SystemClock` is the real one; :class:`FakeClock` is for tests: its time moves only when
a test calls :meth:`FakeClock.advance`, which wakes every sleeper whose time has come, in order.
The rest of the service reads no clock of its own (tests/test_layering.py says so).
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime:
        """Wall time, timezone-aware (UTC): for timestamps that are stored or shown."""
        ...

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back: for ages and durations only."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds``; zero or less only lets the other tasks run."""
        ...


class SystemClock:
    """The process's own clocks."""

    def now(self) -> datetime:
        return datetime.now(UTC)

    def monotonic(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


START = datetime(2026, 1, 1, tzinfo=UTC)


class FakeClock:
    """A clock that stands still until :meth:`advance` moves it.

    ``sleep(seconds)`` with ``seconds > 0`` waits until the clock has been advanced that far;
    ``sleep(0)`` only yields, as ``asyncio.sleep(0)`` does. :meth:`advance` moves the clock to
    each sleeper's deadline in turn (earliest first, ties in the order they slept), wakes it and
    lets the event loop run a few rounds, so a woken task's next sleep, if due within the same
    advance, is woken too.
    """

    SETTLE_ROUNDS = 20
    """Event loop rounds given to woken tasks after each wake-up (in-memory work only: a task
    waiting on real I/O needs the test to wait for it)."""

    def __init__(self, start: datetime = START) -> None:
        self.start = start
        self.elapsed = 0.0
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    def now(self) -> datetime:
        return self.start + timedelta(seconds=self.elapsed)

    def monotonic(self) -> float:
        return self.elapsed

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self.elapsed + seconds, next(self._order), future))
        await future

    @property
    def sleepers(self) -> int:
        """Tasks sleeping now (not counting any cancelled)."""
        return sum(1 for _, _, f in self._sleepers if not f.done())

    async def advance(self, seconds: float) -> None:
        """Move the clock ``seconds`` forward, waking each sleeper due meanwhile, in order."""
        if seconds < 0:
            raise ValueError("a clock does not go back")
        target = self.elapsed + seconds
        while self._sleepers and self._sleepers[0][0] <= target:
            deadline, _, future = heapq.heappop(self._sleepers)
            self.elapsed = max(self.elapsed, deadline)
            if not future.done():
                future.set_result(None)
                await self.settle()
        self.elapsed = target
        await self.settle()

    async def settle(self) -> None:
        """Let the event loop run a few rounds (tasks just woken take their next steps)."""
        for _ in range(self.SETTLE_ROUNDS):
            await asyncio.sleep(0)
