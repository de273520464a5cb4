"""The store's part for ratings and the lobby: the records it hands out and the methods the
:class:`~server.service.ports.Store` port adds for them (every store implements both parts).

A rating is Glicko-2's (rating, deviation, volatility) plus the number of rated matches it has
counted. A rating change is keyed by (match, player): a finished match is counted once for each
of its players, whichever process, however many times, tries (the store refuses a second).
Nothing here does I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .ports import MatchMeta


@dataclass(frozen=True, slots=True)
class RatingRecord:
    """A player's current rating. ``games`` counts the rated matches in it (and is the
    compare-and-set counter of the row)."""

    player_id: str
    rating: float
    deviation: float
    volatility: float
    games: int
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class RatingChange:
    """What one rated match did to one player's rating: the values after it."""

    match_id: str
    player_id: str
    rating: float
    deviation: float
    volatility: float
    games: int
    rated_at: datetime


@dataclass(frozen=True, slots=True)
class RatingUpdate:
    """One player's new rating from one match, applied only if the stored row still counts
    ``expected_games`` (0: the player has no row yet)."""

    change: RatingChange
    expected_games: int


class RatingOutcome(Enum):
    APPLIED = "applied"
    ALREADY = "already"
    """This match was already counted (by another process, or before a restart)."""
    MOVED = "moved"
    """A player's rating changed meanwhile (another match counted first): compute again."""


@dataclass(frozen=True, slots=True)
class RankedPlayer:
    rating: RatingRecord
    name: str


class RatingStore(Protocol):
    async def player_name(self, player_id: str) -> str | None:
        """The player's display name; None if there is no such player."""
        ...

    async def rating(self, player_id: str) -> RatingRecord | None: ...
    async def apply_ratings(self, match_id: str, updates: list[RatingUpdate]) -> RatingOutcome:
        """Write every update and its history row in one transaction, or none of them."""
        ...

    async def rating_history(
        self, player_id: str, *, limit: int, offset: int
    ) -> tuple[list[RatingChange], int]:
        """Newest first, and how many there are."""
        ...

    async def leaderboard(
        self, *, min_games: int, max_deviation: float, limit: int, offset: int
    ) -> tuple[list[RankedPlayer], int]:
        """Players with at least ``min_games`` rated matches and a deviation of at most
        ``max_deviation``, best rating first (ties: the smaller deviation, then the player id),
        and how many there are."""
        ...

    async def unrated_matches(self, *, limit: int) -> list[MatchMeta]:
        """Finished rated matches with no rating change yet (oldest first)."""
        ...

    async def open_challenges(self, *, limit: int, offset: int) -> tuple[list[MatchMeta], int]:
        """Public matches waiting for a second player, newest first, and how many there are."""
        ...

    async def lobby_counts(self, active_since: datetime) -> tuple[int, int]:
        """(players waiting in a public challenge, human players seated in an active match
        that changed at or after ``active_since``)."""
        ...
