"""A live match's lock keeps nothing once nobody waits for it: asyncio's kept a deque of
waiters (over 600 bytes) for good once anyone had waited, and a live match's lock is waited
for whenever the computer's reply queues behind the human's action."""

from __future__ import annotations

import asyncio
from collections import deque

from server.service.live import MatchLock


def _deques(lock: asyncio.Lock) -> list[object]:
    return [v for v in vars(lock).values() if isinstance(v, deque)]


async def test_a_lock_waited_for_keeps_no_deque_once_nobody_waits():
    lock = MatchLock()
    order: list[str] = []

    async def hold(name: str) -> None:
        async with lock:
            order.append(name)
            await asyncio.sleep(0.01)

    await asyncio.gather(hold("a"), hold("b"), hold("c"))
    assert order == ["a", "b", "c"]  # first come, first served, as asyncio's
    assert not lock.locked() and _deques(lock) == []
    plain = asyncio.Lock()
    async with plain:
        waiter = asyncio.ensure_future(plain.acquire())
        await asyncio.sleep(0)
    await waiter
    plain.release()
    assert len(_deques(plain)) == 1  # what this avoids


async def test_a_cancelled_waiter_leaves_the_lock_usable_and_empty():
    lock = MatchLock()
    await lock.acquire()
    waiter = asyncio.ensure_future(lock.acquire())
    await asyncio.sleep(0)
    waiter.cancel()
    await asyncio.gather(waiter, return_exceptions=True)
    lock.release()
    async with lock:
        pass
    assert not lock.locked() and _deques(lock) == []
