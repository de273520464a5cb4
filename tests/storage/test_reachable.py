"""The health check's database probe is never cancelled halfway: a pooled asyncpg connection
cancelled mid-query went back to the pool still busy, and a player's next request on it failed
with "another operation is in progress" (seen in the soak, behind /healthz)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from server.storage.engine import dispose, reachable


class SlowEngine:
    """Stands in for an AsyncEngine whose query waits until ``answer`` is set."""

    def __init__(self) -> None:
        self.answer = asyncio.Event()
        self.started = 0
        self.finished = 0
        self.cancelled = 0
        self.disposed_after: int | None = None

    @contextlib.asynccontextmanager
    async def connect(self) -> Any:
        yield self

    async def execute(self, _statement: Any) -> None:
        self.started += 1
        try:
            await self.answer.wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        self.finished += 1

    async def dispose(self) -> None:
        self.disposed_after = self.finished


async def test_a_probe_past_its_timeout_is_answered_false_and_left_to_finish() -> None:
    engine = SlowEngine()
    assert await reachable(engine, timeout=0.01) is False  # type: ignore[arg-type]
    # A second check while the first probe still runs waits on it: no second query.
    assert await reachable(engine, timeout=0.01) is False  # type: ignore[arg-type]
    assert engine.started == 1
    engine.answer.set()
    for _ in range(10):
        await asyncio.sleep(0)
    assert (engine.finished, engine.cancelled) == (1, 0)
    assert await reachable(engine, timeout=1) is True  # type: ignore[arg-type]
    assert engine.started == 2


async def test_the_engine_is_disposed_of_only_once_the_probe_in_flight_has_finished() -> None:
    """A probe still running when the app stops would be cut off by the event loop's end, its
    driver's thread then answering a closed loop: shutting down waits for it first."""
    engine = SlowEngine()
    assert await reachable(engine, timeout=0.01) is False  # type: ignore[arg-type]
    closing = asyncio.ensure_future(dispose(engine))  # type: ignore[arg-type]
    for _ in range(10):
        await asyncio.sleep(0)
    assert not closing.done() and engine.disposed_after is None
    engine.answer.set()
    await closing
    assert engine.disposed_after == 1 and engine.cancelled == 0
    # With no probe in flight, at once.
    again = SlowEngine()
    await dispose(again)  # type: ignore[arg-type]
    assert again.disposed_after == 0
