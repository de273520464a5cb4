"""The collector's pauses reach /metrics: every collection is timed and slow ones counted."""

from __future__ import annotations

import gc

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
    # A pause past the limit, told by the callbacks as the collector would.
    slow_before = count("ginrummy_gc_slow_pauses_total")
    watch._started = 0.0  # the collection "started" long ago
    watch("stop", {"generation": 2})
    assert count("ginrummy_gc_slow_pauses_total") == slow_before + 1
