"""The REST limits' counts in this process's memory, as a storage of the ``limits`` library (its
fixed-window strategy counts through it).

The library's own ``MemoryStorage`` walks every key it holds after each hit, to drop the expired
ones: a key per player's token or client address for each limit over the last window, so with
10,000 of them a hit cost 0.8 ms of CPU (30,000: 2.7 ms), more than a move
(``python -m server.bench limits``). Here a key whose window has ended is dropped when it is next
counted, and the others in one walk at most once per ``sweep_every`` seconds: a hit costs the
same however many keys are held, and memory holds only the keys of windows still open (and of
windows ended since the last walk).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from limits.aio.storage import Storage


class WindowCounts(Storage):
    STORAGE_SCHEME = None  # not registered for a URI: built directly

    def __init__(self, *, sweep_every: float = 60.0, clock: Callable[[], float] = time.time) -> None:
        super().__init__()
        self.sweep_every = sweep_every
        self.clock = clock
        """Wall time, as the library's reset times are."""
        self.counts: dict[str, list[float]] = {}
        """Per key: ``[count, when its window ends]``."""
        self._next_sweep = clock() + sweep_every

    @property
    def base_exceptions(self) -> type[Exception] | tuple[type[Exception], ...]:
        return ValueError

    def _open(self, key: str, now: float) -> list[float] | None:
        """``key``'s count if its window is still open (an ended one is dropped)."""
        entry = self.counts.get(key)
        if entry is not None and entry[1] <= now:
            del self.counts[key]
            return None
        return entry

    def _sweep(self, now: float) -> None:
        if now < self._next_sweep:
            return
        self._next_sweep = now + self.sweep_every
        self.counts = {key: entry for key, entry in self.counts.items() if entry[1] > now}

    async def incr(self, key: str, expiry: float, amount: int = 1) -> int:
        now = self.clock()
        self._sweep(now)
        entry = self._open(key, now)
        if entry is None:
            entry = self.counts[key] = [0, now + expiry]
        entry[0] += amount
        return int(entry[0])

    async def get(self, key: str) -> int:
        entry = self._open(key, self.clock())
        return 0 if entry is None else int(entry[0])

    async def get_expiry(self, key: str) -> float:
        now = self.clock()
        entry = self._open(key, now)
        return now if entry is None else entry[1]

    async def clear(self, key: str) -> None:
        self.counts.pop(key, None)

    async def check(self) -> bool:
        return True

    async def reset(self) -> int | None:
        held = len(self.counts)
        self.counts.clear()
        return held
