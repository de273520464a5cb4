"""The lobby: open challenges (public matches waiting for anyone to accept) and how many players
are waiting, playing and seeking now. Counted from the store, so every process gives the same figures.

Accepting a challenge takes the second seat as an invite does (:meth:`Commands.accept`): the
seat is written with a compare-and-set on the match version, so when two accept at once, in one
process or two, exactly one gets it and the other is told ``challenge_taken``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta

from .clock import Clock
from .errors import BadRequest
from .ports import MatchMeta, Store
from .rating_ports import RatingRecord

PLAYING_WINDOW = timedelta(minutes=15)
"""A player counts as playing while seated in an active match that moved within this time."""


@dataclass(frozen=True, slots=True)
class Challenge:
    meta: MatchMeta
    rating: RatingRecord | None
    """The creator's rating (None: not rated yet)."""


@dataclass(frozen=True, slots=True)
class LobbyCounts:
    waiting: int
    playing: int
    seeking: int = 0
    """Players seeking a quick pairing now."""


class Lobby:
    def __init__(
        self, store: Store, clock: Clock, seeking: Callable[[], Awaitable[int]] | None = None
    ) -> None:
        self.store = store
        self.clock = clock
        self.seeking = seeking

    async def challenges(self, *, limit: int, offset: int) -> tuple[list[Challenge], int]:
        if not 1 <= limit <= 100:
            raise BadRequest("limit must be between 1 and 100")
        if offset < 0:
            raise BadRequest("offset must not be negative")
        metas, total = await self.store.open_challenges(limit=limit, offset=offset)
        out = []
        for meta in metas:
            creator = meta.seat_ids[0]
            out.append(Challenge(meta, None if creator is None else await self.store.rating(creator)))
        return out, total

    async def counts(self) -> LobbyCounts:
        waiting, playing = await self.store.lobby_counts(self.clock.now() - PLAYING_WINDOW)
        seeking = 0 if self.seeking is None else await self.seeking()
        return LobbyCounts(waiting, playing, seeking)
