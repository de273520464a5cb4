"""Quick pairing: a player seeks a match by rules preset, time control and rated or casual; two
compatible seeks are paired into a match at once, whichever processes their sockets are on.

The store decides (:meth:`~.seek_ports.SeekStore.place_seek`): one transaction claims the oldest
open compatible seek and creates the match with both seats filled (the older seek's player in
seat 0), so a seek is never in two matches. The match is created ``active`` with its clock
already running (stamped by the writer's ``restamp``, as a join's is), in that one commit: a
pairing costs one commit before both seekers are told. A rated one is rated at its end.

A seek lives while its socket is open (the transport cancels it when the socket closes) or
until cancelled; one whose socket closes while the store is still placing it (or whose seeker's
task is cancelled then) is withdrawn as soon as the placement returns, not left to expire. Each process refreshes its own seeks every ``heartbeat_seconds``; a seek not
refreshed for ``alive_seconds`` belonged to a process that died, and any process deletes it.
The seeker whose seek another process paired hears of it through the broadcaster
(``publish_paired``); the refresh also reports paired seeks, so a lost notice costs at most a
heartbeat. Optionally a seek turns into a match against the computer if nobody comes within
``computer_after`` seconds (untimed and casual: the computer keeps no clock and has no rating).

Caps: one open seek per player (the store refuses a second), and the cap on active matches.
Everything runs on the injected clock; nothing here sleeps on a clock of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from server.bots import DIFFICULTIES
from server.rules import RULES, MatchState, new_match

from .admission import Admission
from .clock import Clock
from .errors import BadRequest, Conflict, NotFound, Unavailable
from .ids import Ids
from .live import LiveMatch, MatchCache
from .logs import repeat
from .players import hash_token
from .ports import Broadcaster, MatchMeta, PlayerRecord, Store
from .seek_ports import SeekRecord
from .timecontrol import TimeControl

if TYPE_CHECKING:
    from .commands import Commands, MatchCaps
    from .writer import Writer

log = logging.getLogger("server.service")

MAX_COMPUTER_AFTER = 600
"""The longest wait, in seconds, before a seek falls back to the computer."""


@dataclass(frozen=True, slots=True)
class SeekTiming:
    """How often a process refreshes its seeks, how long an unrefreshed seek lives, and how
    often the loop looks at the computer fallbacks and expiry."""

    heartbeat_seconds: float = 10.0
    alive_seconds: float = 30.0
    tick_seconds: float = 1.0


@dataclass(frozen=True, slots=True)
class Pairing:
    """Where a seek ended: its match and the seeker's seat in it."""

    seek_id: str
    match_id: str
    seat: int
    opponent: str
    """``human``, or ``computer`` when nobody came in time."""


def pool_of(rules: str, tc: TimeControl, rated: bool) -> str:
    """The compatibility key: two seeks pair exactly when their pools are equal.

    >>> pool_of("house", TimeControl.realtime(20, 120), True)
    'house/realtime/20+120/rated'
    """
    return f"{rules}/{tc.kind}/{tc.move_seconds}+{tc.bank_seconds}/{'rated' if rated else 'casual'}"


@dataclass(slots=True)
class LocalSeek:
    """A seek whose socket is on this process."""

    record: SeekRecord
    player: PlayerRecord
    paired: asyncio.Future[Pairing]
    computer_at: datetime | None = None
    difficulty: str = "normal"
    caps: MatchCaps | None = field(default=None)
    placing: bool = True
    """The store is still placing it: neither stored open for sure nor paired."""
    withdrawn: bool = False
    """Its socket closed (or its seeker went) while it was placed: withdrawn once placed."""


def _log_failure(placement: asyncio.Future[None]) -> None:
    """A placement whose seeker left: nobody else hears how it failed."""
    if not placement.cancelled() and (e := placement.exception()) is not None:
        log.warning("placing a withdrawn seek failed", exc_info=e)


class Seeks:
    def __init__(
        self,
        store: Store,
        cache: MatchCache,
        writer: Writer,
        commands: Commands,
        broadcaster: Broadcaster,
        clock: Clock,
        ids: Ids,
        timing: SeekTiming | None = None,
        *,
        admission: Admission | None = None,
    ) -> None:
        self.store = store
        self.admission = admission
        """New seeks are refused while it says the process is busy (none: never)."""
        self.cache = cache
        self.writer = writer
        self.commands = commands
        self.broadcaster = broadcaster
        self.clock = clock
        self.ids = ids
        self.timing = timing or SeekTiming()
        self.local: dict[str, LocalSeek] = {}
        self._task: asyncio.Task[None] | None = None
        self._last_heartbeat: float | None = None
        self._placements: set[asyncio.Future[None]] = set()
        listen = getattr(broadcaster, "listen_paired", None)
        if listen is not None:
            listen(self._on_paired)

    # --- seeking ------------------------------------------------------------------------------

    async def seek(
        self,
        player: PlayerRecord,
        *,
        rules: str = "house",
        time_control: TimeControl | None = None,
        rated: bool = False,
        computer_after: int | None = None,
        difficulty: str = "normal",
        caps: MatchCaps | None = None,
    ) -> LocalSeek:
        """Seek a match. The returned seek's ``paired`` future is already done when a partner
        was waiting; otherwise it completes when one comes (or the computer does). A seek
        dropped while it was placed raises :class:`Unavailable` (unless it was paired)."""
        tc = time_control or TimeControl.none()
        if rules not in RULES:
            raise BadRequest(f"rules must be one of {sorted(RULES)}")
        if difficulty not in DIFFICULTIES:
            raise BadRequest(f"difficulty must be one of {list(DIFFICULTIES)}")
        if computer_after is not None and not 1 <= computer_after <= MAX_COMPUTER_AFTER:
            raise BadRequest(f"computer_after must be 1 to {MAX_COMPUTER_AFTER} seconds")
        self.writer.check_open()
        if self.admission is not None:
            self.admission.check("seek")
        from .commands import MatchCaps

        caps = caps or MatchCaps()
        async with self.commands._player_lock(player.player_id):
            await self.commands._check_cap(player, "active", caps.active)
            now = self.clock.now()
            record = SeekRecord(
                seek_id=self.ids.seek_id(),
                player_id=player.player_id,
                name=player.name,
                pool=pool_of(rules, tc, rated),
                rules=rules,
                time_control=tc.to_dict() if tc.timed else None,
                rated=rated,
                created_at=now,
                alive_at=now,
            )
            match, state = self._match(record)
            live = LiveMatch(match, state, 0)
            self.writer.restamp(live, match, None)  # the clock runs from the pairing
            future: asyncio.Future[Pairing] = asyncio.get_running_loop().create_future()
            local = LocalSeek(
                record,
                player,
                future,
                None if computer_after is None else now + timedelta(seconds=computer_after),
                difficulty,
                caps,
            )
            # Held before it is placed: a seek claimed while its placement finishes (Postgres
            # placements run in parallel) is told by the notice or the heartbeat as any other.
            self.local[record.seek_id] = local
            placement = asyncio.ensure_future(self._place(local, match, live))
            self._placements.add(placement)
            placement.add_done_callback(self._placements.discard)
            try:
                # Shielded: a seeker cancelled meanwhile (the lobby's handler, as its socket
                # goes) never learns the seek's id to drop it, so the placement finishes here
                # and withdraws it, instead of leaving it open to a stranger until it expires.
                await asyncio.shield(placement)
            except asyncio.CancelledError:
                local.withdrawn = True
                placement.add_done_callback(_log_failure)
                raise
        if local.paired.cancelled():
            raise Unavailable("the seek was withdrawn while it was placed (its socket closed)")
        return local

    async def _place(self, local: LocalSeek, match: MatchMeta, live: LiveMatch) -> None:
        """Place the seek in the store; then pair it, keep it open, or withdraw it at once if
        its socket closed meanwhile."""
        record, future = local.record, local.paired
        try:
            placed = await self.store.place_seek(record, match, self._alive_after())
        except BaseException:
            self.local.pop(record.seek_id, None)
            raise
        finally:
            local.placing = False
        if placed.duplicate:
            self.local.pop(record.seek_id, None)
            raise Conflict("you are already seeking a match: cancel that seek first")
        partner = placed.partner
        if partner is None:
            if local.withdrawn:
                await self._withdraw(local)
                return
            log.info("seeking", extra={"seek_id": record.seek_id, "pool": record.pool})
            self.start()
            return
        # Paired at once (whether or not its seeker is still there: the match exists, and the
        # partner is told now; a seeker who left comes back to it as to any match).
        self.local.pop(record.seek_id, None)  # it was never stored open
        # Taken before any await: this process's heartbeat must not handle it meanwhile.
        waiting = self.local.pop(partner.seek_id, None)
        match.seat_ids[0], match.seat_names[0] = partner.player_id, partner.name
        self.cache.remember(live)
        future.set_result(Pairing(record.seek_id, match.match_id, 1, "human"))
        log.info(
            "seeks paired",
            extra={"match_id": match.match_id, "seek_id": record.seek_id, "partner": partner.seek_id},
        )
        if waiting is not None:
            self._resolve(waiting, Pairing(partner.seek_id, match.match_id, 0, "human"))
            await self.store.forget_seeks([partner.seek_id])
        else:
            await self.broadcaster.publish_paired(partner.seek_id, match.match_id)

    async def cancel(self, player: PlayerRecord, seek_id: str) -> Pairing | None:
        """Withdraw an open seek of this process. Returns its pairing instead when it was paired
        first (the seeker then has a match)."""
        local = self.local.get(seek_id)
        if local is None or local.record.player_id != player.player_id:
            raise NotFound(f"no open seek {seek_id!r} of yours here")
        return await self._withdraw(local)

    async def drop(self, seek_id: str) -> None:
        """The seek's socket closed: withdraw it if it is still open."""
        local = self.local.get(seek_id)
        if local is not None:
            await self._withdraw(local)

    async def _withdraw(self, local: LocalSeek) -> Pairing | None:
        if local.placing:  # not stored yet, maybe: its placement withdraws it once placed
            local.withdrawn = True
            return None
        seek_id = local.record.seek_id
        if await self.store.remove_seek(seek_id):
            self.local.pop(seek_id, None)
            if not local.paired.done():
                local.paired.cancel()
            log.info("seek cancelled", extra={"seek_id": seek_id})
            return None
        # Paired first, by another process whose notice has not arrived yet.
        stored = await self.store.load_seek(seek_id)
        self.local.pop(seek_id, None)
        if stored is not None and stored.match_id is not None:
            await self._paired_elsewhere(local, stored.match_id)
        elif not local.paired.done():
            local.paired.cancel()  # expired meanwhile: gone
        return local.paired.result() if local.paired.done() and not local.paired.cancelled() else None

    # --- the paired match ------------------------------------------------------------------------

    def _match(self, seek: SeekRecord) -> tuple[MatchMeta, MatchState]:
        """The match a seek would be paired into (and its dealt state), active: the seeker in
        seat 1; the store puts the claimed seek's player in seat 0."""
        seed = self.ids.seed()
        state = new_match(seek.rules, seed)
        meta = MatchMeta(
            match_id=self.ids.match_id(),
            rules=seek.rules,
            opponent="human",
            difficulty=None,
            seed=seed,
            first_starter=state.first_starter,
            deal=state.deal,
            status="active",
            version=0,
            seat_ids=[None, seek.player_id],
            seat_names=[None, seek.name],
            watch_token_hash=hash_token(self.ids.token()),
            invite_hash=None,
            hand_number=state.hand_number,
            scores=[0, 0],
            hands_won=[0, 0],
            winner=None,
            resigned=None,
            outcome=None,
            created_at=seek.created_at,
            updated_at=seek.created_at,
            time_control=seek.time_control,
            rated=seek.rated,
        )
        return meta, state

    def _resolve(self, local: LocalSeek, pairing: Pairing) -> None:
        if not local.paired.done():
            local.paired.set_result(pairing)

    async def _paired_elsewhere(self, local: LocalSeek, match_id: str) -> None:
        """Another process paired this seek (the match exists: it was created in the same
        commit). A stored seek with a match is always the one claimed: it has seat 0."""
        self._resolve(local, Pairing(local.record.seek_id, match_id, 0, "human"))
        await self.store.forget_seeks([local.record.seek_id])

    async def _on_paired(self, seek_id: str, match_id: str) -> None:
        local = self.local.pop(seek_id, None)
        if local is not None:
            await self._paired_elsewhere(local, match_id)

    # --- the loop: heartbeat, expiry, the computer fallback -----------------------------------

    def _alive_after(self) -> datetime:
        return self.clock.now() - timedelta(seconds=self.timing.alive_seconds)

    async def count(self) -> int:
        return await self.store.count_seeking(self._alive_after())

    def start(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.ensure_future(self._loop())

    async def close(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for local in list(self.local.values()):
            with contextlib.suppress(Exception):
                await self._withdraw(local)
        # Those being placed withdraw themselves once placed: before the store closes.
        await asyncio.gather(*self._placements, return_exceptions=True)

    async def _loop(self) -> None:
        await repeat(
            self.clock, self.timing.tick_seconds, self.tick, "seek tick failed", self.store.unreachable, log
        )

    async def tick(self) -> None:
        """Fall back to the computer where due; every ``heartbeat_seconds``, refresh this
        process's seeks (hearing of any paired meanwhile) and expire dead processes' seeks."""
        now = self.clock.now()
        due = [s for s in self.local.values() if s.computer_at is not None and s.computer_at <= now]
        for local in [s for s in due if not s.placing]:
            await self._play_computer(local)
        beat = self.clock.monotonic()
        if self._last_heartbeat is not None and beat - self._last_heartbeat < self.timing.heartbeat_seconds:
            return
        self._last_heartbeat = beat
        if self.local:
            for stored in await self.store.refresh_seeks(list(self.local), now):
                told = self.local.pop(stored.seek_id, None)
                if told is not None and stored.match_id is not None:
                    await self._paired_elsewhere(told, stored.match_id)
        expired = await self.store.expire_seeks(self._alive_after())
        if expired:
            log.info("seeks expired", extra={"count": expired})

    async def _play_computer(self, local: LocalSeek) -> None:
        seek_id = local.record.seek_id
        if not await self.store.remove_seek(seek_id):
            await self._withdraw(local)  # paired meanwhile (or expired)
            return
        self.local.pop(seek_id, None)
        try:
            created = await self.commands.create_match(
                local.player,
                opponent="computer",
                difficulty=local.difficulty,
                rules=local.record.rules,
                caps=local.caps,
            )
        except Exception as e:
            if not local.paired.done():
                local.paired.set_exception(e)
            return
        log.info(
            "seek fell back to the computer", extra={"seek_id": seek_id, "match_id": created.meta.match_id}
        )
        self._resolve(local, Pairing(seek_id, created.meta.match_id, created.seat, "computer"))
