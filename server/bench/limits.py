"""``python -m server.bench limits``: what one REST limit check costs the server as the keys it
counts grow (a key per player's token or client address, per limit, for the last window), with
the ``limits`` library's own in-memory storage and with the server's
(:mod:`server.transport.window_counts`), side by side in one run.

For each number of keys: a fresh limiter per storage, every key hit once, then ``--hits`` hits
spread over the keys, each followed by a turn of the event loop (as between two requests: the
library's storage walks its keys in a task it starts after a hit). Printed: the process's CPU
time per hit, the median of ``--rounds`` interleaved rounds. In memory only, nothing else.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import time
from collections.abc import Callable

from limits.aio.storage import MemoryStorage, Storage

from server.transport.ratelimit import RestLimiter
from server.transport.window_counts import WindowCounts

STORAGES: dict[str, Callable[[], Storage]] = {
    "limits' MemoryStorage": MemoryStorage,
    "WindowCounts": WindowCounts,
}


async def per_hit(storage: Storage, keys: int, hits: int) -> float:
    """CPU seconds per hit of ``storage`` holding ``keys`` keys."""
    limiter = RestLimiter({"requests": "600/minute"}, storage)
    try:
        for i in range(keys):
            await limiter.hit("requests", f"t:{i}")
        await asyncio.sleep(0.01)
        started = time.process_time()
        for i in range(hits):
            await limiter.hit("requests", f"t:{i * 7919 % keys}")
            await asyncio.sleep(0)
        return (time.process_time() - started) / hits
    finally:
        timer = getattr(storage, "timer", None)  # the library's walk, if one is under way
        if timer is not None:
            timer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await timer


async def run(levels: list[int], hits: int, rounds: int) -> dict[tuple[str, int], float]:
    times: dict[tuple[str, int], list[float]] = {}
    for _ in range(rounds):
        for keys in levels:
            for name, make in STORAGES.items():
                times.setdefault((name, keys), []).append(await per_hit(make(), keys, hits))
    return {case: statistics.median(values) for case, values in times.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m server.bench limits", description=__doc__)
    parser.add_argument("--keys", default="100,1000,10000,30000", help="numbers of keys held")
    parser.add_argument("--hits", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    levels = [int(n) for n in args.keys.split(",")]
    if max(levels) > 100_000 or args.hits > 100_000:
        parser.error("at most 100,000 keys and 100,000 hits")
    medians = asyncio.run(run(levels, args.hits, args.rounds))
    print(
        f"limits benchmark: CPU per REST limit hit, median of {args.rounds} round(s), {args.hits} hits each"
    )
    print()
    print("| Keys held | " + " | ".join(STORAGES) + " | ratio |")
    print("|---|" + "---|" * (len(STORAGES) + 1))
    for keys in levels:
        library, ours = (medians[(name, keys)] * 1e6 for name in STORAGES)
        print(f"| {keys:,} | {library:,.1f} us | {ours:,.1f} us | {ours / library:.3f}x |")
    return 0
