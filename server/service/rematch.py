"""Rematches: at a match's end either player offers one; the other accepts (by offering too) or
declines. Against the computer an offer is accepted at once. The new match has the same rules and
time control with the seats swapped (against the computer the human keeps seat 0: the computer
always plays seat 1), and the finished match's row names it (``rematch.match_id``), so every
socket of both players learns the new id from its next ``state``.

Exactly one rematch per match, even when both players accept at once on two processes: the new
match is created ``waiting`` (nobody can join it: it has no invite), then the finished match's row
names it in a compare-and-set write, and only then is it started. The loser of a race deletes
its waiting match; one left by a crash in between expires as any waiting match does.
"""

from __future__ import annotations

import logging
from typing import Any

from server.rules import new_match

from .clock import Clock
from .commands import Commands
from .errors import Conflict, MatchNotOver
from .ids import Ids
from .live import LiveMatch, MatchCache
from .players import hash_token
from .ports import MatchMeta, PlayerRecord, Store
from .queries import seat_of
from .writer import Moved, Writer

log = logging.getLogger("server.service")


def rematch_of(meta: MatchMeta) -> dict[str, Any]:
    """The match's rematch state (all None before anyone offered)."""
    return {"offered_by": None, "declined_by": None, "match_id": None, **(meta.rematch or {})}


class Rematches:
    def __init__(
        self, store: Store, cache: MatchCache, writer: Writer, commands: Commands, clock: Clock, ids: Ids
    ) -> None:
        self.store = store
        self.cache = cache
        self.writer = writer
        self.commands = commands
        self.clock = clock
        self.ids = ids

    async def offer(self, player: PlayerRecord, match_id: str) -> MatchMeta:
        """Offer a rematch, or accept the other player's offer (or, against the computer, start
        it): returns the finished match's row (``rematch.match_id`` names the new match once
        there is one)."""
        live = await self.cache.get(match_id)

        async def body(live: LiveMatch) -> MatchMeta:
            await self.writer.catch_up(live)
            seat = seat_of(live.meta, player)
            meta = live.meta
            if meta.status != "finished":
                raise MatchNotOver("a rematch is offered once the match is over")
            r = rematch_of(meta)
            if r["match_id"] is not None:
                return meta.copy()  # already under way: here is its id
            new = meta.copy()
            new.version += 1
            new.updated_at = self.clock.now()
            if meta.opponent == "computer":
                created = await self.commands.create_match(
                    player, opponent="computer", difficulty=meta.difficulty or "normal", rules=meta.rules
                )
                new.rematch = {**r, "offered_by": seat, "match_id": created.meta.match_id}
                await self.writer.write(live, new)
                log.info("rematch", extra={"match_id": match_id, "rematch": created.meta.match_id})
                return new.copy()
            if r["offered_by"] in (None, seat):
                new.rematch = {**r, "offered_by": seat, "declined_by": None}
                await self.writer.write(live, new)
                log.info("rematch offered", extra={"match_id": match_id, "seat": seat})
                return new.copy()
            waiting = await self._waiting_copy(meta)
            new.rematch = {**r, "match_id": waiting.meta.match_id}
            try:
                await self.writer.write(live, new)
            except Moved:
                await self.store.delete_waiting_match(waiting.meta.match_id, waiting.meta.version)
                self.cache.forget(waiting)
                raise
            await self._start(waiting)
            log.info("rematch", extra={"match_id": match_id, "rematch": waiting.meta.match_id})
            return new.copy()

        return await self.writer.exclusive(live, body)

    async def decline(self, player: PlayerRecord, match_id: str) -> MatchMeta:
        live = await self.cache.get(match_id)

        async def body(live: LiveMatch) -> MatchMeta:
            await self.writer.catch_up(live)
            seat = seat_of(live.meta, player)
            meta = live.meta
            r = rematch_of(meta)
            if meta.status != "finished":
                raise MatchNotOver("the match is not over")
            if r["match_id"] is not None:
                raise Conflict("the rematch has already started")
            if r["offered_by"] != 1 - seat:
                raise Conflict("your opponent has not offered a rematch")
            new = meta.copy()
            new.version += 1
            new.updated_at = self.clock.now()
            new.rematch = {**r, "offered_by": None, "declined_by": seat}
            await self.writer.write(live, new)
            log.info("rematch declined", extra={"match_id": match_id, "seat": seat})
            return new.copy()

        return await self.writer.exclusive(live, body)

    async def _waiting_copy(self, old: MatchMeta) -> LiveMatch:
        """The rematch of ``old``, seats swapped, created waiting (not started yet)."""
        seed = self.ids.seed()
        state = new_match(old.rules, seed)
        now = self.clock.now()
        meta = MatchMeta(
            match_id=self.ids.match_id(),
            rules=old.rules,
            opponent=old.opponent,
            difficulty=None,
            seed=seed,
            first_starter=state.first_starter,
            status="waiting",
            version=0,
            seat_ids=[old.seat_ids[1], old.seat_ids[0]],
            seat_names=[old.seat_names[1], old.seat_names[0]],
            watch_token_hash=hash_token(self.ids.token()),
            invite_hash=None,
            hand_number=state.hand_number,
            scores=[0, 0],
            hands_won=[0, 0],
            winner=None,
            resigned=None,
            outcome=None,
            created_at=now,
            updated_at=now,
            time_control=old.time_control,
            rated=old.rated,  # a rematch is what the match was: rated or casual, never public
        )
        await self.store.create_match(meta)
        return self.cache.new(meta, state)

    async def _start(self, live: LiveMatch) -> None:
        async with live.lock:
            new = live.meta.copy()
            new.status = "active"
            new.version += 1
            new.updated_at = self.clock.now()
            await self.writer.write(live, new)
