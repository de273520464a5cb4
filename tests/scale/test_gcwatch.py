"""The collector's pauses reach /metrics: every collection is timed and slow ones counted."""

from __future__ import annotations

import gc
import weakref

import pytest
from prometheus_client import CollectorRegistry

from server.transport.gcwatch import GcWatch, YoungPace


def test_every_collection_is_timed_and_a_slow_one_is_counted():
    registry = CollectorRegistry()
    watch = GcWatch(registry).install()
    try:
        gc.collect()
        gc.collect(0)
    finally:
        watch.remove()
    assert watch not in gc.callbacks
    count = registry.get_sample_value
    assert count("ginrummy_gc_pause_seconds_count", {"generation": "2"}) == 1
    assert count("ginrummy_gc_pause_seconds_count", {"generation": "0"}) == 1
    assert count("ginrummy_gc_pause_max_seconds") > 0
    assert count("ginrummy_gc_pause_max_cpu_seconds") >= 0
    # A pause past the limit, told by the callbacks as the collector would.
    slow_before = count("ginrummy_gc_slow_pauses_total")
    slow_cpu_before = count("ginrummy_gc_slow_pauses_cpu_total")
    watch._started = watch._started_cpu = -1.0  # the collection "started" long ago
    watch("stop", {"generation": 2})
    assert count("ginrummy_gc_slow_pauses_total") == slow_before + 1
    assert count("ginrummy_gc_slow_pauses_cpu_total") == slow_cpu_before + 1


def test_a_young_collection_follows_every_so_many_messages():
    calls: list[int] = []
    pace = YoungPace(100, collect=calls.append)
    for _ in range(250):
        pace.message()
    assert calls == [0, 0]  # after the 100th and the 200th, of generation 0 only
    for _ in range(50):
        pace.message()
    assert calls == [0, 0, 0]
    off = YoungPace(0, collect=calls.append)
    for _ in range(1_000):
        off.message()
    assert calls == [0, 0, 0]


def test_any_collection_restarts_the_young_pace_count():
    calls: list[int] = []
    pace = YoungPace(3, collect=calls.append)
    pace.message()
    pace.message()
    pace.collected("start", {})
    pace.message()
    assert calls == [0]  # a collection only starting changes nothing
    pace.message()
    pace.message()
    pace.collected("stop", {"generation": 0})  # one of the thresholds' own
    pace.message()
    pace.message()
    assert calls == [0]
    pace.message()
    assert calls == [0, 0]
    # Installed, the real collector's collections restart it.
    pace.install()
    try:
        assert pace.collected in gc.callbacks
        pace.message()
        pace.message()
        gc.collect(0)
        pace.message()
        pace.message()
        assert calls == [0, 0]
    finally:
        pace.remove()
    assert pace.collected not in gc.callbacks


def test_the_young_pace_runs_the_real_collector_and_the_watch_times_it():
    registry = CollectorRegistry()
    watch = GcWatch(registry).install()
    try:
        before = registry.get_sample_value("ginrummy_gc_pause_seconds_count", {"generation": "0"}) or 0
        pace = YoungPace(3)
        for _ in range(6):
            pace.message()
        after = registry.get_sample_value("ginrummy_gc_pause_seconds_count", {"generation": "0"})
    finally:
        watch.remove()
    # Two of its own; the thresholds may have called one more meanwhile.
    assert after is not None and after - before >= 2


def test_the_garbage_a_collection_frees_is_counted_by_generation():
    registry = CollectorRegistry()
    watch = GcWatch(registry).install()
    try:
        gc.collect()  # whatever the test run left, before the cycles counted below
        before = registry.get_sample_value("ginrummy_gc_collected_total", {"generation": "2"}) or 0
        for _ in range(10):
            pair: list[object] = []
            pair.append([pair])  # two lists that refer to each other: only the collector frees them
        del pair
        gc.collect()
    finally:
        watch.remove()
    after = registry.get_sample_value("ginrummy_gc_collected_total", {"generation": "2"})
    assert after is not None and after - before >= 20


def test_the_scale_benchmark_counts_slow_pauses_by_generation_from_the_metrics():
    from prometheus_client import generate_latest

    from server.bench.load.scale import _slow_by_generation
    from server.bench.load.servers import parse_metrics

    registry = CollectorRegistry()
    watch = GcWatch(registry)
    before = parse_metrics(generate_latest(registry).decode())
    for generation, seconds in ((0, 0.001), (1, 0.03), (2, 0.5), (2, 0.019), (2, 0.021)):
        watch._started = watch._started_cpu = -1.0
        watch._observe("start", {"generation": generation})
        watch._started -= seconds  # the collection started that long ago
        watch._observe("stop", {"generation": generation})
    after = parse_metrics(generate_latest(registry).decode())
    assert _slow_by_generation(before, after) == {"0": 0, "1": 1, "2": 2}


def test_the_survivors_of_every_collection_are_frozen_at_once_and_never_when_off():
    class Match:
        pass

    gc.unfreeze()
    try:
        off = GcWatch(CollectorRegistry(), freeze_every=0).install()
        kept = [[i] for i in range(1000)]  # long-lived objects (lists are tracked)
        one = Match()
        alive = weakref.ref(one)
        gc.collect(0)
        off.remove()
        assert gc.get_freeze_count() == 0

        registry = CollectorRegistry()
        on = GcWatch(registry, freeze_every=3600).install()
        try:
            garbage = Match()
            garbage.me = garbage  # a cycle nothing else holds: the collection frees it
            dead = weakref.ref(garbage)
            del garbage
            gc.collect(0)  # even the youngest generation's: frozen in its own callback
            assert dead() is None
            assert gc.get_freeze_count() >= len(kept)
            gc.collect(0)  # within freeze_every of the last one: not again
            assert registry.get_sample_value("ginrummy_gc_freezes_total") == 1
        finally:
            on.remove()
        # A frozen object is still freed by reference counting when its last reference goes.
        assert alive() is one
        del one
        assert alive() is None
    finally:
        gc.unfreeze()


async def test_a_thaw_that_is_due_runs_on_the_loop_after_the_collection():
    import asyncio

    now = [0.0]
    registry = CollectorRegistry()
    watch = GcWatch(registry, freeze_every=1, thaw_every=600, clock=lambda: now[0])
    watch.install(asyncio.get_running_loop())
    gc.unfreeze()
    try:
        now[0] = 600.0
        gc.collect(0)  # a full collection cannot run inside the collector: nothing yet
        assert registry.get_sample_value("ginrummy_gc_thaws_total") == 0
        await asyncio.sleep(0)
        assert registry.get_sample_value("ginrummy_gc_thaws_total") == 1
        assert registry.get_sample_value("ginrummy_gc_freezes_total") == 1
    finally:
        watch.remove()
        gc.unfreeze()


def test_a_collection_after_the_loop_closed_raises_nothing():
    import asyncio

    loop = asyncio.new_event_loop()
    registry = CollectorRegistry()
    watch = GcWatch(registry, freeze_every=0.001, thaw_every=1e-9).install(loop)
    loop.close()
    try:
        watch("start", {"generation": 1})
        watch("stop", {"generation": 1})  # would schedule a thaw on the closed loop
    finally:
        watch.remove()
        gc.unfreeze()
    assert watch._loop is None
    # No thaw without a loop, but the freezing goes on.
    assert registry.get_sample_value("ginrummy_gc_freezes_total") == 1


def test_a_cycle_frozen_while_alive_is_freed_by_the_next_thaw_and_kept_without_one():
    class Socket:  # a closed socket's objects, referring to each other as aiohttp's do
        pass

    now = [0.0]
    gc.unfreeze()
    try:
        for thaw_every, freed in ((0.0, False), (600.0, True)):
            registry = CollectorRegistry()
            watch = GcWatch(registry, freeze_every=1, thaw_every=thaw_every, clock=lambda: now[0]).install()
            try:
                one = Socket()
                one.me = one
                alive = weakref.ref(one)
                watch.freeze()  # open at a freeze: frozen with its cycle
                del one  # closed: only the cycle holds it now
                gc.collect()
                assert alive() is not None  # no collection walks the frozen
                now[0] += 599
                watch.freeze()
                assert alive() is not None  # not yet time to thaw
                now[0] += 1
                watch.freeze()
                assert (alive() is None) is freed
                assert registry.get_sample_value("ginrummy_gc_thaws_total") == (1 if freed else 0)
                assert registry.get_sample_value("ginrummy_gc_freezes_total") == 3
                # What the thaw freed is reported: the socket at least (and nothing without a thaw).
                assert (registry.get_sample_value("ginrummy_gc_thaw_collected") >= 1) is freed
            finally:
                watch.remove()
            gc.unfreeze()
            gc.collect()
    finally:
        gc.unfreeze()


def test_a_collection_a_few_frames_short_of_the_recursion_limit_raises_nothing():
    # As when the collector runs inside msgspec decoding JSON nested to the recursion limit:
    # the callback is entered, but what it calls would overflow the stack.
    registry = CollectorRegistry()
    watch = GcWatch(registry)
    watch("start", {"generation": 0})

    def down(n: int) -> None:
        if n > 0:
            return down(n - 1)
        watch("stop", {"generation": 0})
        return None

    reached = 0

    def probe(n: int) -> None:
        nonlocal reached
        reached = n
        probe(n + 1)

    with pytest.raises(RecursionError):
        probe(0)  # how many frames fit from here
    for room in range(2, 40):  # from "only the callback's own frame fits" to "all of it fits"
        down(reached - room)
    # With room enough, the collections were timed as ever.
    assert registry.get_sample_value("ginrummy_gc_pause_seconds_count", {"generation": "0"}) > 0


async def test_the_server_sets_the_collectors_thresholds_and_freezes_what_exists_at_start():
    from aiohttp import web

    from server.__main__ import _settle_gc
    from server.config import Settings
    from server.service.metrics import Metrics
    from server.transport.keys import METRICS, SETTINGS

    app = web.Application()
    app[SETTINGS] = Settings.from_env({})
    app[METRICS] = Metrics()
    before = gc.get_threshold()
    try:
        await _settle_gc(app)
        assert gc.get_threshold() == (1_000, 1, 1_000) == app[SETTINGS].gc_thresholds
        assert gc.get_freeze_count() > 0
        assert any(isinstance(c, GcWatch) for c in gc.callbacks)
    finally:
        for c in [c for c in gc.callbacks if isinstance(c, GcWatch)]:
            gc.callbacks.remove(c)
        gc.set_threshold(*before)
        gc.unfreeze()
