"""Rate limits: REST limits per client through the ``limits`` library (fixed windows, counted in
this process's memory by :class:`~.window_counts.WindowCounts`; a shared storage such as Redis
can replace it for several processes), and a token bucket per WebSocket connection (local to
that connection, so no shared storage is needed).

A refused request raises :class:`RateLimited` naming the limit and when it resets; nothing else
happens to it.
"""

from __future__ import annotations

import time

from limits import RateLimitItem, parse
from limits.aio.storage import Storage
from limits.aio.strategies import FixedWindowRateLimiter

from server.service.errors import RateLimited

from .window_counts import WindowCounts


def describe(item: RateLimitItem) -> str:
    """``"30 per 1 minute"``."""
    return str(item)


class RestLimiter:
    def __init__(self, rates: dict[str, str], storage: Storage | None = None) -> None:
        self.storage = storage if storage is not None else WindowCounts()
        self.limiter = FixedWindowRateLimiter(self.storage)
        self.items = {name: parse(rate) for name, rate in rates.items()}

    async def hit(self, name: str, key: str) -> None:
        item = self.items[name]
        if await self.limiter.hit(item, name, key):
            return
        stats = await self.limiter.get_window_stats(item, name, key)
        raise RateLimited(
            f"rate limit {name} ({describe(item)}) exceeded",
            limit=name,
            reset_in=max(0.1, stats.reset_time - time.time()),
        )


class TokenBucket:
    """``rate`` like ``"20/second"``: up to that many messages at once, refilled evenly."""

    def __init__(self, rate: str) -> None:
        item = parse(rate)
        self.name = describe(item)
        self.capacity = float(item.amount)
        self.per_second = item.amount / item.get_expiry()
        self.tokens = self.capacity
        self.stamp = time.monotonic()

    def take(self) -> None:
        now = time.monotonic()
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.per_second)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return
        raise RateLimited(
            f"too many messages ({self.name})",
            limit="ws_messages",
            reset_in=(1 - self.tokens) / self.per_second,
        )
