"""The garbage collector: its pauses, timed with ``gc.callbacks`` and exported as metrics, and
the periodic freeze that keeps them short.

A full collection walks every tracked object; with thousands of live matches one took hundreds
of milliseconds, the worst latency a player saw. The server process installs this once
(``python -m server``), so ``/metrics`` shows how often the collector ran, how long it paused
the loop, the longest pause, and how many went past :data:`SLOW` (the scale target: none).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

SLOW = 0.020
"""A pause longer than this (seconds) is counted as slow."""

BUCKETS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0)


class GcWatch:
    """Times each collection from its ``start`` to its ``stop`` callback."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.pauses = Histogram(
            "ginrummy_gc_pause_seconds",
            "Garbage-collector pauses, by generation",
            ["generation"],
            buckets=BUCKETS,
            registry=registry,
        )
        self.slow = Counter(
            "ginrummy_gc_slow_pauses",
            f"Garbage-collector pauses over {SLOW * 1000:.0f} ms",
            registry=registry,
        )
        self.longest = Gauge(
            "ginrummy_gc_pause_max_seconds", "The longest garbage-collector pause so far", registry=registry
        )
        # The same in the thread's CPU time: on a busy machine a pause's wall time includes
        # the time the process waited for a core; its CPU time is the collector's own work.
        self.slow_cpu = Counter(
            "ginrummy_gc_slow_pauses_cpu",
            f"Garbage-collector pauses over {SLOW * 1000:.0f} ms of CPU time",
            registry=registry,
        )
        self.longest_cpu = Gauge(
            "ginrummy_gc_pause_max_cpu_seconds",
            "The most CPU time one garbage-collector pause took so far",
            registry=registry,
        )
        self._started = 0.0
        self._started_cpu = 0.0
        self._max = 0.0
        self._max_cpu = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            self._started_cpu = time.thread_time()
            return
        pause = time.perf_counter() - self._started
        cpu = time.thread_time() - self._started_cpu
        if cpu > SLOW:
            self.slow_cpu.inc()
        if cpu > self._max_cpu:
            self._max_cpu = cpu
            self.longest_cpu.set(cpu)
        self.pauses.labels(str(info.get("generation", "?"))).observe(pause)
        if pause > SLOW:
            self.slow.inc()
        if pause > self._max:
            self._max = pause
            self.longest.set(pause)

    def install(self) -> GcWatch:
        if self not in gc.callbacks:
            gc.callbacks.append(self)
        return self

    def remove(self) -> None:
        if self in gc.callbacks:
            gc.callbacks.remove(self)


async def freeze_periodically(every: float) -> None:
    """Every ``every`` seconds: collect the young generations (a few milliseconds), then freeze
    what survived into the permanent generation, which no collection walks again.

    A full collection walks every tracked object in the oldest generation: with thousands of
    live matches (their states, sockets and tasks) one took 0.2-0.8 s, however few of them
    were garbage. Frozen, the long-lived objects are still freed by reference counting when a
    match ends; only a reference cycle among them would never be collected, and the hot path
    makes none (``tests/scale/test_garbage.py``)."""
    while True:
        await asyncio.sleep(every)
        gc.collect(1)
        gc.freeze()


@contextlib.asynccontextmanager
async def frozen_every(every: float) -> Any:
    """:func:`freeze_periodically` as a background task for the life of the block (0: off)."""
    if every <= 0:
        yield
        return
    task = asyncio.get_running_loop().create_task(freeze_periodically(every))
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
