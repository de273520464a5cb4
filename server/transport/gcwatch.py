"""The garbage collector: its pauses, timed with ``gc.callbacks`` and exported as metrics, and
the freeze that keeps them short.

A full collection walks every tracked object in the oldest generation: with thousands of live
matches (their states, sockets and tasks) one took 0.2-0.8 s, the worst latency a player saw,
however few of them were garbage. So after each collection what survived it is frozen
(``gc.freeze``: moved to the permanent generation, which no collection walks again), at most
once per ``freeze_every`` seconds, right in the collector's callback (a freeze only joins lists).
That adds no collection of its own: the older generations stay nearly empty, and so do their
collections. Freezing only after the collections of generation 1 or 2 (as before), a saturated
server's generation-1 collections, one after every other young one, walked the survivors of
the last (a thousand moves in flight: their tasks and coroutines), 1.3-1.5 ms each: 6% of its
CPU; freezing after every collection, 1,000 matches saturated spent 5.5% of the time in the
collector instead of 9.5%, 0.207 instead of 0.216 ms of CPU a move (docs/benchmarks.md).
Frozen objects are still freed by reference counting when a match ends; only a reference cycle
among them is never collected. The hot path makes none (``tests/scale/test_garbage.py``), but
aiohttp leaves every closed WebSocket in cycles (its request handler, request, response,
writer and transport refer to each other), and a socket that was open at a freeze is frozen
with them: a server with players coming and going would keep every socket it ever froze. The
WebSocket handlers break the cycle aiohttp leaves when their socket is done
(:func:`release_socket`), and statements with a list of values are built once (built per call,
SQLAlchemy leaves their parameters in cycles): a whole match, from its players' creation to its
sockets' close, leaves no cycle (``tests/transport/test_ws_memory.py``). For any other, once per
``thaw_every`` seconds the freeze is a thaw first: ``gc.unfreeze()``, one full collection (its
pause is timed like any other, and grows with the live matches: about 0.25 s at 1,000), then
the freeze. (``gc.get_freeze_count()`` walks every frozen object: it is not exported.)

The server process installs this once (``python -m server``), so ``/metrics`` shows how often
the collector ran, how long it paused the loop (wall and CPU time), the longest pause, how
many went past :data:`SLOW` (the scale target: none), and the freezes.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Callable
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

SLOW = 0.020
"""A pause longer than this (seconds) is counted as slow."""

BUCKETS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0)


def release_socket(request: Any) -> None:
    """Break the reference cycle aiohttp (3.14) leaves a finished WebSocket in:
    its request handler keeps the response's ``_on_data_received`` callback after the
    connection is lost, and the response keeps the request, which keeps the handler. Call it
    when the socket's handler is done with it (the callback then only reset the heartbeat of a
    socket that is closed). Without it, each closed socket (with its request, writer, reader and
    transport, about 50 objects) waits for a full collection; after it, reference counting frees
    them at once (``tests/transport/test_ws_memory.py``). An aiohttp without the attribute is
    left alone."""
    protocol: Any = getattr(request, "protocol", None)
    if getattr(protocol, "_data_received_cb", None) is not None:
        protocol._data_received_cb = None


class YoungPace:
    """A collection of the youngest generation once ``every`` messages have been queued to
    clients with no collection between (0: only the thresholds' own).

    Python's young count is allocations less deallocations of any generation. Under overload
    the group commit resolves hundreds of actions at once, and their continuations (each
    building and queueing its state messages) run in one pass of the loop's ready queue that
    also frees many older objects, so the young generation grows far past the first threshold
    before the count says so, and the collection that finally runs walks all of it (up to 20-30
    ms of CPU at 3,000-10,000 live matches). Counting messages, a collection also runs between
    those continuations (a loop timer cannot: none fires during the pass). Any collection
    restarts the count (:meth:`collected`, a ``gc.callbacks`` entry after :meth:`install`), so
    where the thresholds collect often enough this adds none of its own. Off by default, for
    what it costs (see ``Settings.gc_young_messages``)."""

    __slots__ = ("_left", "collect", "every")

    def __init__(self, every: int, collect: Callable[[int], object] = gc.collect) -> None:
        self.every = every
        self._left = every
        self.collect = collect

    def message(self) -> None:
        """Count one message queued; collect generation 0 at the ``every``-th since the last
        collection."""
        if not self.every:
            return
        self._left -= 1
        if self._left <= 0:
            self._left = self.every
            self.collect(0)

    def collected(self, phase: str, info: dict[str, Any]) -> None:
        """The ``gc.callbacks`` entry: a collection ended, the count starts again."""
        if phase == "stop":
            self._left = self.every

    def install(self) -> None:
        if self.every and self.collected not in gc.callbacks:
            gc.callbacks.append(self.collected)

    def remove(self) -> None:
        if self.collected in gc.callbacks:
            gc.callbacks.remove(self.collected)


class GcWatch:
    """Times each collection from its ``start`` to its ``stop`` callback."""

    def __init__(
        self,
        registry: CollectorRegistry,
        freeze_every: float = 0.0,
        thaw_every: float = 0.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.freeze_every = freeze_every
        self.thaw_every = thaw_every
        self._clock = clock
        self.freezes = Counter(
            "ginrummy_gc_freezes", "Survivors of the young generations frozen", registry=registry
        )
        self.thaws = Counter(
            "ginrummy_gc_thaws", "Frozen objects thawed and collected in full", registry=registry
        )
        self.thaw_collected = Gauge(
            "ginrummy_gc_thaw_collected",
            "Unreachable objects the last thaw's full collection freed (cycles that were frozen)",
            registry=registry,
        )
        self.collected = Counter(
            "ginrummy_gc_collected",
            "Unreachable objects the collector freed (garbage in reference cycles), by generation",
            ["generation"],
            registry=registry,
        )
        self._thawing = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._last_freeze = -1e9
        self._last_thaw = clock()
        self._freeze_pending = False
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
        self._by_generation: dict[Any, Any] = {}
        """The pause histogram's and the collected counter's children per generation
        (``labels`` takes a lock and builds a key: this runs after every collection)."""
        self._started = 0.0
        self._started_cpu = 0.0
        self._max = 0.0
        self._max_cpu = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        # The collector runs wherever an allocation triggers it, even a few frames short of the
        # recursion limit (msgspec decoding a hostile client's JSON nested to that limit, which
        # is answered bad_request): there this collection goes untimed, rather than print
        # "Exception ignored in garbage collector callback" with a traceback into the log.
        # (try/except, not contextlib.suppress: building the suppressor is a call, which could
        # itself be the one that overflows.)
        try:  # noqa: SIM105
            self._observe(phase, info)
        except RecursionError:
            pass

    def _observe(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            self._started_cpu = time.thread_time()
            return
        pause = time.perf_counter() - self._started
        cpu = time.thread_time() - self._started_cpu
        if self._thawing:
            self.thaw_collected.set(info.get("collected", 0))
        if cpu > SLOW:
            self.slow_cpu.inc()
        if cpu > self._max_cpu:
            self._max_cpu = cpu
            self.longest_cpu.set(cpu)
        generation = info.get("generation", "?")
        children = self._by_generation.get(generation)
        if children is None:
            children = self._by_generation[generation] = (
                self.pauses.labels(str(generation)),
                self.collected.labels(str(generation)),
            )
        children[0].observe(pause)
        if collected := info.get("collected", 0):
            children[1].inc(collected)
        if pause > SLOW:
            self.slow.inc()
        if pause > self._max:
            self._max = pause
            self.longest.set(pause)
        if self.freeze_every > 0 and not self._freeze_pending and not self._thawing:
            now = self._clock()
            if now - self._last_freeze < self.freeze_every:
                return
            if self.thaw_every > 0 and self._loop is not None and now - self._last_thaw >= self.thaw_every:
                # The thaw's full collection cannot run from inside the collector (it would be
                # refused as a nested one): on the loop, next.
                try:
                    self._loop.call_soon_threadsafe(self.freeze)
                    self._freeze_pending = True
                    return
                except RuntimeError:  # the loop is closed (shutting down): no more thawing
                    self._loop = None
            # Here, in the collector's own callback: its lists are whole again, and a freeze only
            # moves them onto the permanent one (whichever thread collected, it holds the GIL).
            self._last_freeze = now
            gc.freeze()
            self.freezes.inc()

    def freeze(self) -> None:
        """Move every object the collector tracks into the permanent generation; once per
        ``thaw_every``, first thaw what was frozen and collect it in full."""
        self._freeze_pending = False
        now = self._last_freeze = self._clock()
        if self.thaw_every > 0 and now - self._last_thaw >= self.thaw_every:
            self._last_thaw = now
            gc.unfreeze()
            self._thawing = True
            try:
                gc.collect()  # its callback freezes nothing (thawing): the freeze follows
            finally:
                self._thawing = False
            self.thaws.inc()
        gc.freeze()
        self.freezes.inc()

    def install(self, loop: asyncio.AbstractEventLoop | None = None) -> GcWatch:
        """Start timing (and freezing, on ``loop``, when ``freeze_every`` is set)."""
        self._loop = loop
        if self not in gc.callbacks:
            gc.callbacks.append(self)
        return self

    def remove(self) -> None:
        if self in gc.callbacks:
            gc.callbacks.remove(self)
