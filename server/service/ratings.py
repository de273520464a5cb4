"""Ratings: a finished rated match updates both players' Glicko-2 ratings, once.

Once: the store keys each rating change by (match, player) and refuses a second, and moves a
rating only from the games count it was computed from (:mod:`.rating_ports`). The process that
commits a match's end settles it at once; a match whose end was committed but not its ratings
(the process died in between) is settled by :meth:`Ratings.sweep`, which every process runs at
start. Another process settling the same match at the same time finds it already counted.

Also the reads: a player's rating, its history and the leaderboard. Matches against the computer
are never rated; the computer levels' published ratings are in ``seeds/ratings.json``.

A rating is **provisional** until it has :data:`LEADERBOARD_MIN_GAMES` rated matches and a
deviation of at most :data:`ESTABLISHED_DEVIATION`; only established ratings are on the
leaderboard. Beating throwaway players cannot get anyone there: a new opponent's deviation
(350) says little, so the winner's deviation stays high (30 wins over fresh players leave it at
136); it falls to 110 after about 15 matches among players who play each other
(docs/protocol.md).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import datetime

from .clock import Clock
from .errors import BadRequest, NotFound
from .glicko import Glicko, rate_match
from .logs import log_failure
from .ports import MatchMeta, Store
from .rating_ports import RankedPlayer, RatingChange, RatingOutcome, RatingRecord, RatingUpdate

log = logging.getLogger("server.service")

LEADERBOARD_MIN_GAMES = 5
"""A player is on the leaderboard after this many rated matches (docs/protocol.md says so)..."""
ESTABLISHED_DEVIATION = 110.0
"""...and once the rating's deviation is at most this (Lichess's line for a provisional rating)."""
_ATTEMPTS = 8
"""Tries when a player's rating keeps moving under us (another of their matches counting)."""


@dataclass(frozen=True, slots=True)
class PlayerRating:
    player_id: str
    name: str
    rating: RatingRecord | None
    """None until the player's first rated match."""


def _glicko(r: RatingRecord | None) -> Glicko:
    return Glicko() if r is None else Glicko(r.rating, r.deviation, r.volatility)


def _page(limit: int, offset: int) -> None:
    if not 1 <= limit <= 100:
        raise BadRequest("limit must be between 1 and 100")
    if offset < 0:
        raise BadRequest("offset must not be negative")


class Ratings:
    def __init__(
        self,
        store: Store,
        clock: Clock,
        *,
        min_games: int = LEADERBOARD_MIN_GAMES,
        max_deviation: float = ESTABLISHED_DEVIATION,
    ) -> None:
        self.store = store
        self.clock = clock
        self.min_games = min_games
        self.max_deviation = max_deviation
        self._tasks: dict[str, asyncio.Task[RatingOutcome | None]] = {}

    # --- settling -----------------------------------------------------------------------------

    def after_write(self, meta: MatchMeta) -> None:
        """A change committed: if it finished a rated match, settle its ratings (in a task of
        its own; a failure leaves the match to the next sweep)."""
        if not (meta.rated and meta.status == "finished"):
            return
        if meta.match_id in self._tasks:
            return
        task = asyncio.get_running_loop().create_task(self._settle_logged(meta.copy()))
        self._tasks[meta.match_id] = task
        task.add_done_callback(lambda _: self._tasks.pop(meta.match_id, None))

    async def settled(self, match_id: str) -> None:
        """Wait until the settling of ``match_id`` under way in this process (if any) is done."""
        task = self._tasks.get(match_id)
        if task is not None:
            await asyncio.shield(task)

    async def _settle_logged(self, meta: MatchMeta) -> RatingOutcome | None:
        try:
            return await self.settle(meta)
        except Exception as e:
            unreachable = self.store.unreachable(e)
            log_failure(
                log, "rating a match failed; the next sweep retries", unreachable, match_id=meta.match_id
            )
            return None

    async def settle(self, meta: MatchMeta) -> RatingOutcome | None:
        """Count a finished rated match in both players' ratings (None: it is not one)."""
        if not (meta.rated and meta.status == "finished" and meta.winner is not None):
            return None
        winner_id, loser_id = meta.seat_ids[meta.winner], meta.seat_ids[1 - meta.winner]
        if winner_id is None or loser_id is None:
            return None
        outcome = RatingOutcome.MOVED
        for _ in range(_ATTEMPTS):
            before_w, before_l = await self.store.rating(winner_id), await self.store.rating(loser_id)
            after_w, after_l = rate_match(_glicko(before_w), _glicko(before_l))
            now = self.clock.now()
            updates = [
                self._update(meta.match_id, player_id, before, after, now)
                for player_id, before, after in (
                    (winner_id, before_w, after_w),
                    (loser_id, before_l, after_l),
                )
            ]
            outcome = await self.store.apply_ratings(meta.match_id, updates)
            if outcome is not RatingOutcome.MOVED:
                break
        log.info("match rated", extra={"match_id": meta.match_id, "result": outcome.value})
        return outcome

    @staticmethod
    def _update(
        match_id: str, player_id: str, before: RatingRecord | None, after: Glicko, now: datetime
    ) -> RatingUpdate:
        games = 0 if before is None else before.games
        change = RatingChange(
            match_id, player_id, after.rating, after.deviation, after.volatility, games + 1, now
        )
        return RatingUpdate(change, games)

    async def sweep(self, limit: int = 200) -> int:
        """Settle finished rated matches that were never counted; how many were."""
        done = 0
        for meta in await self.store.unrated_matches(limit=limit):
            if await self.settle(meta) is RatingOutcome.APPLIED:
                done += 1
        return done

    async def drain(self) -> None:
        """Wait for the settling under way (shutdown; tests)."""
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)

    # --- reads --------------------------------------------------------------------------------

    def provisional(self, r: RatingRecord) -> bool:
        """Too few rated matches, or too uncertain, for the leaderboard."""
        return r.games < self.min_games or r.deviation > self.max_deviation

    async def rating(self, player_id: str) -> PlayerRating:
        name = await self.store.player_name(player_id)
        if name is None:
            raise NotFound(f"no player {player_id!r}")
        return PlayerRating(player_id, name, await self.store.rating(player_id))

    async def history(self, player_id: str, *, limit: int, offset: int) -> tuple[list[RatingChange], int]:
        _page(limit, offset)
        if await self.store.player_name(player_id) is None:
            raise NotFound(f"no player {player_id!r}")
        return await self.store.rating_history(player_id, limit=limit, offset=offset)

    async def leaderboard(self, *, limit: int, offset: int) -> tuple[list[RankedPlayer], int]:
        _page(limit, offset)
        return await self.store.leaderboard(
            min_games=self.min_games, max_deviation=self.max_deviation, limit=limit, offset=offset
        )
