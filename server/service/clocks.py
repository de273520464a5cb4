"""Clocks, abandonment and expiry: the service part that enforces a match's time.

- Every change of a timed match restamps its clock in the same commit (:meth:`Clocks.restamp`,
  the writer's hook): the seat that moved is charged, the seat now to act is timed, and the row's
  ``deadline_at`` says when its turn runs out.
- A loop (:meth:`Clocks.tick`, every ``tick_seconds`` on the injected clock, and once at start)
  asks the store for the matches whose deadline has passed and enforces each: a safe move for the
  seat (:func:`server.bots.safe.safe_move`, its action id ``server:timeout:<seq>``), or, at the
  third timeout in a row, the match forfeited with reason ``timeout``. The store is asked, not
  this process's memory, so a deadline that passed while no server ran is enforced at startup,
  and with many processes each tries: the writer's compare-and-set on the version lets exactly one
  through (the others find the deadline moved and do nothing).
- The same loop warns the seat to act (a fresh ``state``, its clock's ``warning`` true) when its
  time is nearly out, and deletes waiting matches nobody joined within ``waiting_seconds`` (looked
  for once every ``EXPIRY_EVERY`` seconds, not every tick: a query a second for a matter of days).
- Abandonment: a seat of a human match that has been seen disconnected for ``claim_seconds``
  may be claimed by the other seat (:meth:`Clocks.claim`): reason ``abandoned``. When it was
  first seen gone is kept by this process (a restart starts the wait again).

Nothing here reads a clock of its own or sleeps but through :class:`~.clock.Clock`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import datetime, timedelta
from typing import Any

from server.bots.safe import safe_move

from .clock import Clock
from .errors import BadRequest, Conflict, MatchOver, ServiceError
from .live import LiveMatch, MatchCache
from .logs import repeat
from .ports import MatchMeta, PlayerRecord, SeatUpdate, Store, StoredAction
from .queries import seat_of
from .timecontrol import (
    TIMEOUT_ID,
    TIMEOUTS_TO_FORFEIT,
    ClockState,
    TimeControl,
    TimeControlError,
    restamp,
    timed_out,
)
from .writer import Writer

log = logging.getLogger("server.service")

SERVER_IDS = "server:"
"""Ids starting so are the server's own (:data:`TIMEOUT_ID`): refused from clients."""


def parse_time_control(kind: Any, move_seconds: Any = 0, bank_seconds: Any = 0) -> TimeControl:
    """A time control from the request's fields; ``bad_request`` if it is not one."""
    try:
        return TimeControl(kind, move_seconds, bank_seconds)
    except TimeControlError as e:
        raise BadRequest(str(e)) from e


def time_control_of(meta: MatchMeta) -> TimeControl:
    return TimeControl.from_dict(meta.time_control)


def clock_of(meta: MatchMeta) -> ClockState | None:
    return None if meta.clock is None else ClockState.from_dict(meta.clock)


EXPIRY_EVERY = 60.0
"""How often, in seconds on the service clock, the tick looks for waiting matches to delete (the
first tick always does)."""


class Clocks:
    def __init__(
        self,
        store: Store,
        cache: MatchCache,
        writer: Writer,
        clock: Clock,
        *,
        tick_seconds: float = 1.0,
        claim_seconds: float = 60.0,
        waiting_seconds: float = 7 * 86400.0,
        batch: int = 100,
    ) -> None:
        self.store = store
        self.cache = cache
        self.writer = writer
        self.clock = clock
        self.tick_seconds = tick_seconds
        self.claim_seconds = claim_seconds
        self.waiting_seconds = waiting_seconds
        self.batch = batch
        self.gone: dict[str, list[datetime | None]] = {}
        """Per human match: when this process first saw each seat disconnected."""
        self.warned: dict[str, int] = {}
        """The version at which each match's seat to act was last warned."""
        self._task: asyncio.Task[None] | None = None
        self._expired_at: datetime | None = None
        """When the tick last looked for waiting matches to delete."""
        self.ticked = asyncio.Event()
        """Set after each tick of the loop (a test waits on it instead of sleeping)."""

    # --- the writer's hooks -------------------------------------------------------------------

    def restamp(self, live: LiveMatch, meta: MatchMeta, action: StoredAction | None) -> None:
        """Before a commit: ``meta``'s clock and deadline after this change."""
        if meta.time_control is None:
            return  # untimed (the hot path of every untimed write)
        tc = time_control_of(meta)
        if not tc.timed:
            return
        # The third timeout in a row forfeits with no action: it is a timeout all the same, so
        # the seat is charged for it and its count shows 3 in the final view.
        forfeited = (
            action is None
            and live.meta.status == "active"
            and meta.status == "finished"
            and (meta.outcome or {}).get("reason") == "timeout"
        )
        out_of_time = forfeited or (action is not None and timed_out(action.client_id))
        new = restamp(
            tc,
            clock_of(meta),
            active=meta.status == "active",
            to_act=live.state.to_act,
            moved=action is not None or forfeited,
            timed_out=out_of_time,
            now=meta.updated_at,
        )
        assert new is not None
        meta.clock = new.to_dict()
        meta.deadline_at = new.deadline(tc)

    def annotate(self, live: LiveMatch, update: SeatUpdate) -> None:
        """Stamp ``update`` with the server time (unless it has it already) and, for a seat
        whose opponent has been seen gone, when it may claim the match."""
        now = update.now
        if now is None:
            now = update.now = self.clock.now()
        meta = live.meta
        if meta.opponent != "human" or meta.status != "active":
            self.gone.pop(live.match_id, None)
            return
        gone = self.gone.setdefault(live.match_id, [None, None])
        for seat in (0, 1):
            if update.connected[seat]:
                gone[seat] = None
            elif gone[seat] is None:
                gone[seat] = now
        since = None if update.seat is None else gone[1 - update.seat]
        if since is not None:
            update.claim_at = since + timedelta(seconds=self.claim_seconds)

    # --- the loop -----------------------------------------------------------------------------

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.ensure_future(self._loop())

    async def close(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _loop(self) -> None:
        await repeat(
            self.clock,
            self.tick_seconds,
            self.tick,
            "clock tick failed",
            self.store.unreachable,
            log,
            self.ticked.set,
        )

    async def tick(self) -> int:
        """Enforce every deadline passed, warn, expire waiting matches; how many were enforced."""
        if self.writer.closing:
            return 0
        now = self.clock.now()
        enforced = 0
        for match_id in await self.store.due_matches(now, self.batch):
            try:
                enforced += await self.enforce(match_id)
            except ServiceError as e:
                log.info("deadline not enforced", extra={"match_id": match_id, "code": e.code})
        if self._expired_at is None or now - self._expired_at >= timedelta(seconds=EXPIRY_EVERY):
            self._expired_at = now
            await self._expire_waiting(now)
        await self._warn(now)
        return enforced

    async def enforce(self, match_id: str) -> bool:
        """If ``match_id``'s deadline has passed: time its seat out (once, whoever else tries)."""
        live = await self.cache.get(match_id)

        async def body(live: LiveMatch) -> bool:
            await self.writer.catch_up(live)  # another process may have enforced it already
            meta = live.meta
            now = self.clock.now()
            if meta.status != "active" or meta.deadline_at is None or meta.deadline_at > now:
                return False
            seat = live.state.to_act
            clock = clock_of(meta)
            if seat is None or clock is None:
                return False
            if clock.timeouts[seat] + 1 >= TIMEOUTS_TO_FORFEIT:
                live.state.resign(seat, "timeout")
                await self.writer.write(live, self.writer.meta_from_state(live, now))
                log.info("match forfeited on time", extra={"match_id": match_id, "seat": seat})
                return True
            action = safe_move(live.state.view(seat).hand)
            await self.writer.apply(live, seat, action, f"{TIMEOUT_ID}{live.seq + 1}", None)
            log.info("turn timed out", extra={"match_id": match_id, "seat": seat, "kind": action.kind})
            return True

        return await self.writer.exclusive(live, body)

    async def _expire_waiting(self, now: datetime) -> None:
        before = now - timedelta(seconds=self.waiting_seconds)
        for match_id, version in await self.store.stale_waiting(before, self.batch):
            if await self.store.delete_waiting_match(match_id, version):
                live = self.cache.find(match_id)
                if live is not None:
                    self.cache.forget(live)
                log.info("waiting match expired", extra={"match_id": match_id})

    async def _warn(self, now: datetime) -> None:
        for match_id in [m for m in self.warned if m not in self.cache]:
            del self.warned[match_id]  # (dropped from memory: nothing to warn here)
        for match_id in [m for m in self.gone if m not in self.cache]:
            del self.gone[match_id]
        for live in self.cache:
            meta = live.meta
            if meta.clock is None or not live.subscribers:
                continue  # (untimed, or nobody here to warn: most live matches, every second)
            tc = time_control_of(meta)
            clock = clock_of(meta)
            if not tc.timed or clock is None or clock.seat is None:
                continue
            if self.warned.get(live.match_id) == meta.version:
                continue
            move, bank = clock.remaining(tc, clock.seat, now)
            if (move + bank) / 1000 <= tc.warn_seconds:
                self.warned[live.match_id] = meta.version
                async with live.lock:
                    if live.meta.version == meta.version:
                        self.writer.fan_out(live)

    # --- claims -------------------------------------------------------------------------------

    async def claim(self, player: PlayerRecord, match_id: str) -> MatchMeta:
        """The caller's opponent has been gone past the grace period: the caller wins
        (reason ``abandoned``)."""
        live = await self.cache.get(match_id)

        async def body(live: LiveMatch) -> MatchMeta:
            await self.writer.catch_up(live)
            seat = seat_of(live.meta, player)
            meta = live.meta
            if meta.status == "finished":
                raise MatchOver("the match is already over")
            if meta.status != "active" or meta.opponent != "human":
                raise Conflict("only a match in play against a human can be claimed")
            other = 1 - seat
            if self.writer.connected(live)[other]:
                raise Conflict("your opponent is connected: there is nothing to claim")
            gone = self.gone.setdefault(live.match_id, [None, None])
            now = self.clock.now()
            since = gone[other]
            if since is None:
                since = gone[other] = now
            claim_at = since + timedelta(seconds=self.claim_seconds)
            if now < claim_at:
                wait = (claim_at - now).total_seconds()
                raise Conflict(f"your opponent may still come back: you can claim in {wait:.0f} s")
            live.state.resign(other, "abandoned")
            await self.writer.write(live, self.writer.meta_from_state(live, now))
            log.info("match claimed", extra={"match_id": match_id, "seat": seat})
            return live.meta.copy()

        return await self.writer.exclusive(live, body)
