"""The match service: what the transport calls. It wires the parts together and holds the
live connections (open, subscribe, unsubscribe); each part does one job:

- :mod:`.players`: creating players, knowing them by token;
- :mod:`.accounts`, :mod:`.passkeys`: usernames and passwords, passkeys, sessions;
- :mod:`.commands`: create, join, resign and act (every change a match goes through);
- :mod:`.queries`: the REST reads (details, record, lists, statistics);
- :mod:`.live`: the matches held in memory, loaded by replay, caught up, evicted;
- :mod:`.writer`: the one writer per match (lock, compare-and-set commit, fan-out);
- :mod:`.presence`: who is connected, across processes;
- :mod:`.computer`: the computer's turns;
- :mod:`.ratings`: rated matches' Glicko-2 updates, ratings and the leaderboard;
- :mod:`.lobby`: open challenges and the live counts;
- :mod:`.analysis`: explained play (a match's analysis, hints), in the thinking workers.
- :mod:`.seeks`: quick pairing (seeks paired by the store, across processes);
- :mod:`.admission`: turning new players away while the process is past its capacity.

Rules kept here:

- Write durably before telling anyone: the store commits a change before any ack or state is
  delivered.
- Hidden information: a subscriber only ever receives the view of its own seat (watchers the
  public view); logs carry match ids, seats and action kinds, never a card or the seed.
- The clock and the ids are inputs (:mod:`.clock`, :mod:`.ids`): nothing here reads the time or
  draws a secret of its own.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from server.bots import make_bot
from server.bots.pace import PACES

from .accounts import Accounts
from .admission import MAX_WAIT, Admission
from .analysis import Analyses, AnalysisResult, HintResult
from .bot_accounts import BotAccounts
from .clock import Clock, SystemClock
from .clocks import Clocks
from .commands import Commands, CreatedMatch, MatchCaps
from .computer import Computer
from .errors import BadRequest, Unauthorized
from .exports import Exports
from .ids import Ids, SecretIds
from .ladder import Ladder, LadderSettings, Thinker
from .live import LiveMatch, MatchCache, Subscriber, idle_here
from .lobby import Lobby
from .metrics import Metrics
from .passkeys import Passkeys
from .players import Players, hash_token
from .ports import (
    Broadcaster,
    FinishedHand,
    InProcessBroadcaster,
    MatchMeta,
    MatchRecord,
    PlayerRecord,
    SeatUpdate,
    Store,
)
from .presence import Presence
from .queries import Queries
from .ratings import Ratings
from .rematch import Rematches
from .seeks import Seeks, SeekTiming
from .thinking import ThinkingPool, thinker_from
from .timecontrol import TimeControl, Timing
from .writer import Writer

log = logging.getLogger("server.service")

__all__ = [
    "CreatedMatch",
    "LiveMatch",
    "MatchCaps",
    "MatchService",
    "Subscriber",
    "TimeControl",
    "Timing",
    "hash_token",
]


class MatchService:
    def __init__(
        self,
        store: Store,
        *,
        bot_delay: float = 0.6,
        broadcaster: Broadcaster | None = None,
        metrics: Metrics | None = None,
        bot_factory: Callable[[str, str], Any] = make_bot,
        max_live: int = 2000,
        presence_ttl: float = 30.0,
        thinking: ThinkingPool | None = None,
        clock: Clock | None = None,
        ids: Ids | None = None,
        timing: Timing | None = None,
        analysis_worlds: int | None = None,
        seek_timing: SeekTiming | None = None,
        ladder: LadderSettings | None = None,
        ladder_think: Thinker | None = None,
        admit_wait: float = MAX_WAIT,
    ) -> None:
        self.store = store
        self.broadcaster: Broadcaster = broadcaster or InProcessBroadcaster()
        self.clock: Clock = clock or SystemClock()
        self.metrics = metrics or Metrics(self.clock)
        self.ids: Ids = ids or SecretIds()
        self.players = Players(store, self.clock, self.ids, self.metrics)
        self.accounts = Accounts(store, self.clock, self.ids, self.players, self.broadcaster)
        self.passkeys = Passkeys(self.accounts)
        self.queries = Queries(store)
        self.exports = Exports(store, self.queries)
        self.admission = Admission(self.clock, self.metrics, max_wait=admit_wait)
        self.metrics.busy.set_function(lambda: float(self.admission.busy))
        self.cache = MatchCache(
            store,
            self.clock,
            max_live=max_live,
            make_bot=lambda meta: self.computer.make_bot(meta),
            on_loaded=lambda live: self.computer.resume(live),
            on_moved=lambda live: self.writer.fan_out(live),
        )
        self.writer = Writer(
            store,
            self.cache,
            self.broadcaster,
            self.metrics,
            self.clock,
            connected=lambda live: self.presence.connected(live),
            after_write=self._after_write,
            committed_in=self.admission.observe,
        )
        self.presence = Presence(
            self.broadcaster, self.cache, self.clock, ttl=presence_ttl, fan_out=self.writer.fan_out
        )
        self.computer = Computer(
            self.writer,
            self.metrics,
            self.clock,
            bot_delay=bot_delay,
            bot_factory=bot_factory,
            thinking=thinking,
        )
        self.commands = Commands(
            store, self.cache, self.writer, self.computer, self.metrics, self.clock, self.ids
        )
        timing = timing or Timing()
        self.clocks = Clocks(
            store,
            self.cache,
            self.writer,
            self.clock,
            tick_seconds=timing.tick_seconds,
            claim_seconds=timing.claim_seconds,
            waiting_seconds=timing.waiting_seconds,
        )
        self.writer.restamp = self.clocks.restamp
        self.writer.annotate = self.clocks.annotate
        self.rematches = Rematches(store, self.cache, self.writer, self.commands, self.clock, self.ids)
        self.ratings = Ratings(store, self.clock)
        worlds = (
            {} if analysis_worlds is None else {"worlds": analysis_worlds, "hint_worlds": analysis_worlds}
        )
        self.analyses = Analyses(store, self.cache, lambda: self.computer.thinking, **worlds)
        self.seeks = Seeks(
            store,
            self.cache,
            self.writer,
            self.commands,
            self.broadcaster,
            self.clock,
            self.ids,
            seek_timing,
            admission=self.admission,
        )
        self.lobby = Lobby(store, self.clock, seeking=self.seeks.count)
        self.bots = BotAccounts(store, self.clock, self.players)
        self.ladder = Ladder(
            store,
            self.cache,
            self.writer,
            self.clock,
            self.ids,
            settings=ladder or LadderSettings(),
            think=ladder_think or thinker_from(thinking),
        )
        self.broadcaster.listen(self._on_change)
        self.metrics.live_matches.set_function(
            lambda: sum(1 for lv in self.cache.held.values() if lv.meta.status != "finished")
        )
        self.metrics.cached_matches.set_function(lambda: len(self.cache))

    def _after_write(self, live: LiveMatch) -> None:
        self.computer.schedule(live)
        self.ratings.after_write(live.meta)
        self.ladder.after_write(live)

    @property
    def thinking(self) -> ThinkingPool | None:
        """Worker processes for the slow levels' moves (None: a thread of this process)."""
        return self.computer.thinking

    # --- lifecycle ----------------------------------------------------------------------------

    @property
    def closing(self) -> bool:
        return self.writer.closing

    async def close(self) -> None:
        """Stop: refuse new writes, cancel the computer's pending turns, and wait for writes in
        flight to commit."""
        await self.seeks.close()
        self.writer.closing = True
        await self.clocks.close()
        await self.ladder.close()
        self.presence.close()
        await self.computer.close()
        await self.writer.drain()
        await self.ratings.drain()

    # --- players ------------------------------------------------------------------------------

    async def create_player(self, name: Any, device: str | None = None) -> tuple[PlayerRecord, str]:
        return await self.players.create(name) if device is None else await self.players.create(name, device)

    async def authenticate(self, token: str | None) -> PlayerRecord:
        player = await self.players.authenticate(token)
        await self.accounts.seen(player)
        return player

    # --- reads --------------------------------------------------------------------------------

    async def details(self, player: PlayerRecord, match_id: str) -> tuple[MatchMeta, list[FinishedHand]]:
        return await self.queries.details(player, match_id)

    async def record(self, player: PlayerRecord, match_id: str) -> MatchRecord:
        """The complete replay (every deal and action) of a finished match."""
        return await self.queries.record(player, match_id)

    async def list_matches(
        self,
        player: PlayerRecord,
        *,
        status: str | None = None,
        rules: str | None = None,
        opponent: str | None = None,
        limit: int = 20,
        offset: int = 0,
        result: str | None = None,
        since: str | None = None,
        until: str | None = None,
    ) -> tuple[list[MatchMeta], int]:
        return await self.queries.list_matches(
            player,
            status=status,
            rules=rules,
            opponent=opponent,
            limit=limit,
            offset=offset,
            result=result,
            since=since,
            until=until,
        )

    async def stats(self, player: PlayerRecord) -> dict[str, int]:
        return await self.queries.stats(player)

    async def analysis(self, player: PlayerRecord, match_id: str) -> AnalysisResult:
        """Hard's analysis of the player's decisions in the match's finished hands."""
        return await self.analyses.analysis(player, match_id)

    async def hint(self, player: PlayerRecord, match_id: str) -> HintResult:
        """What Hard would play now (against the computer, unrated, on the player's turn)."""
        return await self.analyses.hint(player, match_id)

    # --- commands -----------------------------------------------------------------------------

    async def create_match(
        self,
        player: PlayerRecord,
        *,
        opponent: str = "computer",
        difficulty: str = "normal",
        rules: str = "house",
        caps: MatchCaps | None = None,
        time_control: TimeControl | None = None,
        rated: bool = False,
        public: bool = False,
    ) -> CreatedMatch:
        self.admission.check("match")
        return await self.commands.create_match(
            player,
            opponent=opponent,
            difficulty=difficulty,
            rules=rules,
            caps=caps,
            time_control=time_control,
            rated=rated,
            public=public,
        )

    async def join(
        self, player: PlayerRecord, match_id: str, invite: Any, caps: MatchCaps | None = None
    ) -> tuple[MatchMeta, int]:
        return await self.commands.join(player, match_id, invite, caps)

    async def accept(
        self, player: PlayerRecord, match_id: str, caps: MatchCaps | None = None
    ) -> tuple[MatchMeta, int]:
        """Take the second seat of an open challenge (never a bot's to take)."""
        await self.bots.may_accept(player)
        return await self.commands.accept(player, match_id, caps)

    async def resign(self, player: PlayerRecord, match_id: str) -> MatchMeta:
        """Resign; a rated match's ratings are updated before this returns."""
        meta = await self.commands.resign(player, match_id)
        await self.ratings.settled(match_id)
        return meta

    async def cancel(self, player: PlayerRecord, match_id: str) -> MatchMeta:
        return await self.commands.cancel(player, match_id)

    # --- clocks, claims, rematches (see clocks.py, rematch.py) ----------------------------------

    def start_clocks(self) -> None:
        """Start enforcing deadlines (at once: any that passed while no server ran, then every
        ``Timing.tick_seconds``)."""
        self.clocks.start()

    async def claim(self, player: PlayerRecord, match_id: str) -> MatchMeta:
        return await self.clocks.claim(player, match_id)

    async def offer_rematch(self, player: PlayerRecord, match_id: str) -> MatchMeta:
        return await self.rematches.offer(player, match_id)

    async def decline_rematch(self, player: PlayerRecord, match_id: str) -> MatchMeta:
        return await self.rematches.decline(player, match_id)

    def act(
        self,
        live: LiveMatch,
        seat: int,
        client_id: str | None,
        version: int,
        action: Any,
        on_commit: Callable[[int], None] | None = None,
        *,
        shield: bool = True,
    ) -> Coroutine[Any, Any, tuple[int, bool]]:
        """Apply ``action`` (a wire dict) for ``seat``; awaited, (version, whether it was a
        repeated id answered from before). ``on_commit(version)`` runs after the commit and
        before anyone is told of the new state (the transport sends its ack there). ``shield``
        False: the write runs in the caller's own task, for a caller nothing cancels while it
        waits (:meth:`Writer.exclusive`). Hands over :meth:`Commands.act`'s coroutine itself: a
        coroutine of its own here would be one more object a move in flight holds for the
        collector to walk, and one more frame to run."""
        return self.commands.act(live, seat, client_id, version, action, on_commit, shield=shield)

    # --- live connections (WebSocket) ---------------------------------------------------------

    async def open(self, match_id: str, token: Any, pace: str | None = None) -> tuple[LiveMatch, int | None]:
        """Who ``token`` is in ``match_id``: a seat, or None for the match's watch token. A
        seat's ``pace`` (a name of ``server.bots.pace.PACES``) sets the computer's pause.

        A copy this process already held may be behind the store (another process wrote and
        its notice has not arrived yet): it is caught up here, so that what the caller sends
        next is current. A copy loaded from the store by this call is not read again."""
        if pace is not None and pace not in PACES:
            raise BadRequest(f"pace must be one of {', '.join(PACES)}")
        held = match_id in self.cache
        live = await self.cache.get(match_id)
        if not isinstance(token, str) or not token:
            raise Unauthorized("hello needs a token: a seat's player token or the match's watch token")
        token_hash = hash_token(token)
        if held:
            async with live.lock:
                await self.writer.catch_up(live)  # also: maybe the player joined through another process
        await self._know_bots(live)
        if hmac.compare_digest(live.meta.watch_token_hash, token_hash):
            return live, None
        player = await self.players.by_token_hash(token_hash)
        if player is None or player.player_id not in live.meta.seat_ids:
            raise Unauthorized("this token has no seat in this match")
        if pace is not None:
            live.pace = pace
        # A computer turn interrupted by a crash resumes as soon as someone looks.
        self.computer.resume(live)
        return live, live.meta.seat_ids.index(player.player_id)

    async def _know_bots(self, live: LiveMatch) -> None:
        """Which seats are bot accounts, looked up again when a seat has changed (a join)."""
        seats = tuple(live.meta.seat_ids)
        if live.bots_of == seats:
            return
        found = await self.store.bots([p for p in seats if p is not None])
        live.bots = (seats[0] in found, seats[1] in found)
        live.bots_of = seats

    async def subscribe(self, live: LiveMatch, subscriber: Subscriber) -> None:
        """Start sending ``subscriber`` its view of every change, beginning with the current one."""
        async with live.lock:
            await self.cache.fresh(live)  # (open() caught up a copy that may have fallen behind)
            before, local = self.presence.connected(live), live.connected()
            live.subscribers.add(subscriber)
            self.cache.touch(live)
            if live.match_id not in self.cache:
                self.cache.remember(live)
            subscriber.deliver(self.update(live, subscriber.seat))
            if live.connected() != local:
                await self.presence.announce(live)
            if self.presence.connected(live) != before:
                self.writer.fan_out(live, skip=subscriber)
        self.presence.start()

    async def unsubscribe(self, live: LiveMatch, subscriber: Subscriber) -> None:
        async with live.lock:
            before, local = self.presence.connected(live), live.connected()
            live.subscribers.discard(subscriber)
            self.cache.touch(live)
            if live.connected() != local:
                await self.presence.announce(live)
            if self.presence.connected(live) != before and not live.stale:
                self.writer.fan_out(live)
            if not live.subscribers and live.meta.status == "finished" and live.bot_task is None:
                # Nobody is watching a finished match: its record is in the store.
                self.cache.forget(live)
        self.cache.evict()

    async def current_state(self, live: LiveMatch, seat: int | None) -> SeatUpdate:
        """What ``seat`` sees as of the last commit."""
        async with live.lock:
            await self.cache.fresh(live)
            return self.update(live, seat)

    def update(self, live: LiveMatch, seat: int | None) -> SeatUpdate:
        """What ``seat`` sees now; only call it holding the match's lock."""
        return self.writer.update(live, seat)

    # --- other processes' changes -------------------------------------------------------------

    async def resync(self) -> None:
        """Check every match in memory against the store and catch up on any that another
        process changed (for a broadcaster that may have missed notifications)."""
        versions = await self.store.match_versions(list(self.cache.held))
        for match_id, version in versions.items():
            await self._on_change(match_id, version)

    async def _on_change(self, match_id: str, version: int) -> None:
        """Another process changed ``match_id``: refresh our copy and tell our clients."""
        live = self.cache.find(match_id)
        if (
            live is not None
            and version > live.meta.version
            and idle_here(live)
            and not self.computer.watching(live)
        ):
            # Nobody here uses it (it was created or last opened here, and is played through
            # another process): let the copy go rather than read every move made elsewhere.
            # Marked stale, whoever still holds it reloads it before use; the next hello loads it.
            live.stale = True
            self.cache.forget(live)
            return
        if live is None and (pending := self.cache.loading(match_id)) is not None:
            # A load under way may have read the match before this change: wait for it, then
            # compare, or the copy it makes would stay behind (nobody would tell it again).
            try:
                live = await asyncio.shield(pending)
            except Exception:
                return
        if live is None or version <= live.meta.version:
            return
        async with live.lock:
            # Our own notice can arrive while our write still holds the lock: nothing to do then.
            if version > live.meta.version:
                self.metrics.notifications.inc()
                await self.cache.advance(live)
                self.writer.fan_out(live)
