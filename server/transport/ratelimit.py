"""Rate limits: REST limits per client through the ``limits`` library (fixed windows), and a
token bucket per WebSocket connection (local to that connection, so no shared storage is needed).

The REST counts live in this process's memory (:class:`~.window_counts.WindowCounts`) unless
``GINRUMMY_RATE_LIMIT_STORAGE`` names a Redis server: then every process behind the balancer
counts in the same place (``limits``' Redis storage through ``redis-py``), so two replicas do
not double a limit. Redis is a help, not a dependency of play: when it cannot be reached (or
answers slower than :data:`REDIS_TIMEOUT`), this process counts in its own memory for
:data:`RETRY_SECONDS`, says so in the log, then tries Redis again.

A refused request raises :class:`RateLimited` naming the limit and when it resets; nothing else
happens to it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import redis.asyncio
from limits import RateLimitItem, parse
from limits.aio.storage import RedisStorage, Storage
from limits.aio.strategies import FixedWindowRateLimiter
from limits.errors import StorageError

from server.service.errors import RateLimited

from .window_counts import WindowCounts

log = logging.getLogger("server.transport")

REDIS_TIMEOUT = 0.5
"""Seconds a Redis call may take (connecting or answering) before this process counts alone."""
RETRY_SECONDS = 10.0
"""How long this process counts alone after Redis failed, before it tries Redis again."""
KEY_PREFIX = "ginrummy"


def describe(item: RateLimitItem) -> str:
    """``"30 per 1 minute"``."""
    return str(item)


class SharedRedis(RedisStorage):
    """``limits``' Redis storage for a ``redis://`` or ``rediss://`` ``url``, through redis-py
    on a connection pool of its own (closed by :meth:`close`), its errors wrapped as
    :class:`StorageError`."""

    def __init__(self, url: str) -> None:
        self.pool = redis.asyncio.ConnectionPool.from_url(
            url, socket_timeout=REDIS_TIMEOUT, socket_connect_timeout=REDIS_TIMEOUT
        )
        super().__init__(
            f"async+{url}",
            wrap_exceptions=True,
            implementation="redispy",
            key_prefix=KEY_PREFIX,
            connection_pool=self.pool,  # type: ignore[arg-type]  # documented; typed as the other options
        )

    async def close(self) -> None:
        await self.pool.disconnect()


class RestLimiter:
    """``shared``: the storage every process counts in (Redis), with this process's own counts
    (``storage``) standing in while it fails."""

    def __init__(
        self,
        rates: dict[str, str],
        storage: Storage | None = None,
        *,
        shared: SharedRedis | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.storage = storage if storage is not None else WindowCounts()
        self.local = FixedWindowRateLimiter(self.storage)
        self.shared_storage = shared
        self.shared = None if shared is None else FixedWindowRateLimiter(shared)
        self.items = {name: parse(rate) for name, rate in rates.items()}
        self.clock = clock
        self.alone_until = 0.0
        """While the clock is before this, Redis failed: count in this process."""

    async def hit(self, name: str, key: str) -> None:
        item = self.items[name]
        limiter = self.local
        if self.shared is not None and self.clock() >= self.alone_until:
            limiter = self.shared
        try:
            if await limiter.hit(item, name, key):
                return
            stats = await limiter.get_window_stats(item, name, key)
        except StorageError as e:  # only the shared storage wraps its errors so
            if self.clock() >= self.alone_until:  # not said yet for this failure
                log.warning(
                    "rate limit storage unreachable; counting in this process for now",
                    extra={"error": type(e.storage_error).__name__},
                )
            self.alone_until = self.clock() + RETRY_SECONDS
            return await self.hit(name, key)
        raise RateLimited(
            f"rate limit {name} ({describe(item)}) exceeded",
            limit=name,
            reset_in=max(0.1, stats.reset_time - time.time()),
        )

    async def close(self) -> None:
        if self.shared_storage is not None:
            await self.shared_storage.close()


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
