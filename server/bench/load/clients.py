"""The load generator's client side: the JSON codec, one client session per group of players
bound to its own loopback address, and ``gather`` with a bound on how many run at once."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Iterable
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import msgspec

CLIENTS_PER_ADDRESS = 25
"""Players created from one loopback address: each group of scripted players connects from its
own 127.0.0.x, as real players come from their own addresses (the server allows 30 new
identities per address per minute)."""

_decode = msgspec.json.Decoder().decode
_encode = msgspec.json.Encoder().encode


async def gather_limited(
    aws: Iterable[Awaitable[Any]], limit: int, *, return_exceptions: bool = False
) -> list[Any]:
    """``asyncio.gather`` with at most ``limit`` awaitables running at once."""
    sem = asyncio.Semaphore(limit)

    async def one(aw: Awaitable[Any]) -> Any:
        async with sem:
            return await aw

    return list(await asyncio.gather(*(one(aw) for aw in aws), return_exceptions=return_exceptions))


def loopback_address(group: int) -> str:
    """The loopback address of a group of players: 127.0.0.2 to 127.0.0.251, then 127.0.1.2...

    >>> loopback_address(0), loopback_address(249), loopback_address(250)
    ('127.0.0.2', '127.0.0.251', '127.0.1.2')
    """
    return f"127.0.{group // 250}.{2 + group % 250}"


@contextlib.asynccontextmanager
async def client_sessions(
    clients: int, url: str, first_group: int = 0
) -> AsyncIterator[list[aiohttp.ClientSession]]:
    """One client session per group of players, each bound to its own loopback address when
    the target is 127.0.0.1 (groups from ``first_group``, when several load processes share
    the addresses out)."""
    host = urlsplit(url).hostname
    groups = max(1, -(-clients // CLIENTS_PER_ADDRESS))
    sessions = []
    for g in range(first_group, first_group + groups):
        local = (loopback_address(g), 0) if host == "127.0.0.1" else None
        connector = aiohttp.TCPConnector(limit=0, local_addr=local)
        sessions.append(aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=60)))
    try:
        yield sessions
    finally:
        await asyncio.gather(*(s.close() for s in sessions), return_exceptions=True)
