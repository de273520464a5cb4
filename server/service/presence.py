"""Who is connected, across processes: a seat counts as connected if it has a socket on this
process or, as last reported through the broadcaster and not yet expired, on another.

Each process re-sends its own sockets' presence every third of ``ttl``; a report not renewed
within ``ttl`` is forgotten, so a process that died stops counting. Whenever the connected
seats of a match change, its subscribers here are sent a new state.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Callable

from .clock import Clock
from .live import LiveMatch, MatchCache
from .ports import Broadcaster

log = logging.getLogger("server.service")

Reports = dict[str, tuple[bool, bool, float]]
"""A match's reports from other processes: peer -> (seat 0, seat 1, expiry)."""


class Presence:
    """``fan_out(live)`` sends the subscribers of ``live`` a new state (under its lock)."""

    def __init__(
        self,
        broadcaster: Broadcaster,
        cache: MatchCache,
        clock: Clock,
        *,
        ttl: float,
        fan_out: Callable[[LiveMatch], None],
    ) -> None:
        self.broadcaster = broadcaster
        self.cache = cache
        self.clock = clock
        self.ttl = ttl
        """Seconds another process's report of a seat's socket counts unless it is re-sent
        (each process re-sends its own every third of this)."""
        self.fan_out = fan_out
        self._reports: dict[str, Reports] = {}
        self._task: asyncio.Task[None] | None = None
        self._closed = False
        broadcaster.listen_presence(self.on_report)

    def connected(self, live: LiveMatch) -> tuple[bool, bool]:
        """Which seats have a socket on this process or, as last reported and not yet expired,
        on another."""
        return seats(live.connected(), self._reports.get(live.match_id, {}), self.clock.monotonic())

    async def announce(self, live: LiveMatch) -> None:
        """Tell the other processes which seats of ``live`` have a socket here."""
        await self.broadcaster.publish_presence(live.match_id, live.connected())

    async def on_report(self, match_id: str, peer: str, reported: tuple[bool, bool]) -> None:
        """Process ``peer`` reports its sockets on ``match_id``: tell our clients if that
        changes who is connected."""
        self.start()  # to forget this report if it is not renewed
        live = self.cache.find(match_id)
        before = self.connected(live) if live is not None else None
        entries = self._reports.setdefault(match_id, {})
        if any(reported):
            entries[peer] = (*reported, self.clock.monotonic() + self.ttl)
        else:
            entries.pop(peer, None)
            if not entries:
                del self._reports[match_id]
        await self._tell_if_changed(live, before)

    async def _tell_if_changed(self, live: LiveMatch | None, before: tuple[bool, bool] | None) -> None:
        """Send our clients of ``live`` a new state if its seats' presence is not ``before``."""
        if live is not None and self.connected(live) != before:
            async with live.lock:
                if not live.stale:
                    self.fan_out(live)

    def start(self) -> None:
        if self._task is None and not self._closed:
            self._task = asyncio.get_running_loop().create_task(self._loop())

    def close(self) -> None:
        self._closed = True
        if self._task is not None:
            self._task.cancel()

    async def _loop(self) -> None:
        """Every third of ``ttl``: report our sockets again, and forget expired reports,
        telling our clients of seats that are gone."""
        while True:
            await self.clock.sleep(self.ttl / 3)
            try:
                await self.refresh()
            except Exception:
                log.exception("presence refresh failed")

    async def refresh(self) -> None:
        for live in self.cache:
            if any(live.connected()):
                await self.announce(live)
        now = self.clock.monotonic()
        for match_id, entries in list(self._reports.items()):
            expired = [peer for peer, (_, _, expires) in entries.items() if expires <= now]
            if not expired:
                continue
            found = self.cache.find(match_id)
            # What the expired reports made connected, to compare with after.
            before = seats(found.connected(), entries, -math.inf) if found is not None else None
            for peer in expired:
                del entries[peer]
            if not entries:
                del self._reports[match_id]
            await self._tell_if_changed(found, before)


def seats(local: tuple[bool, bool], reports: Reports, now: float) -> tuple[bool, bool]:
    """The seats connected: on this process (``local``) or in a report expiring after ``now``."""
    s0, s1 = local
    for r0, r1, expires in reports.values():
        if expires > now:
            s0, s1 = s0 or r0, s1 or r1
    return s0, s1
