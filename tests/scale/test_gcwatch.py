"""The collector's pauses reach /metrics: every collection is timed and slow ones counted."""

from __future__ import annotations

import gc
import weakref

from prometheus_client import CollectorRegistry

from server.transport.gcwatch import GcWatch


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


async def test_survivors_are_frozen_out_of_the_collectors_way_periodically_and_never_when_off():
    import asyncio

    from server.transport.gcwatch import frozen_every

    class Match:
        pass

    gc.unfreeze()
    try:
        async with frozen_every(0):
            kept = [[i] for i in range(1000)]  # long-lived objects (lists are tracked)
            one = Match()
            alive = weakref.ref(one)
            await asyncio.sleep(0.05)
            assert gc.get_freeze_count() == 0
        async with frozen_every(0.01):
            for _ in range(200):
                await asyncio.sleep(0.01)
                if gc.get_freeze_count() >= len(kept):
                    break
            assert gc.get_freeze_count() >= len(kept)
        # A frozen object is still freed by reference counting when its last reference goes.
        assert alive() is one
        del one
        assert alive() is None
    finally:
        gc.unfreeze()
