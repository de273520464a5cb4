"""Typed, read-only mirrors of the ratings and lobby answers: a player's Glicko-2 rating, its
history, the leaderboard, open challenges and the lobby's live counts (docs/protocol.md,
"Ratings and the lobby"). Lenient about fields it does not know, as :mod:`.models` is.

>>> r = Rating.from_wire({"rating": 1662.3, "deviation": 290.3, "volatility": 0.06, "games": 1,
...                       "updated_at": "2026-12-01T12:00:00Z"})
>>> r.rating, r.deviation, r.games
(1662.3, 290.3, 1)

This module never does I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .errors import ProtocolError

__all__ = ["LeaderboardEntry", "Lobby", "OpenChallenge", "PlayerRating", "Rating", "RatingPoint"]


def _need(d: Mapping[str, Any], key: str, what: str) -> Any:
    if key not in d:
        raise ProtocolError(f"{what} has no {key!r}")
    return d[key]


@dataclass(frozen=True, slots=True)
class Rating:
    rating: float
    deviation: float
    volatility: float
    games: int
    updated_at: str
    provisional: bool = False
    """Not on the leaderboard yet (too few rated matches, or the deviation too high)."""

    @staticmethod
    def from_wire(d: Mapping[str, Any]) -> Rating:
        return Rating(
            float(_need(d, "rating", "rating")),
            float(_need(d, "deviation", "rating")),
            float(d.get("volatility", 0.06)),
            int(d.get("games", 0)),
            str(d.get("updated_at", "")),
            bool(d.get("provisional", False)),
        )


@dataclass(frozen=True, slots=True)
class PlayerRating:
    player_id: str
    name: str
    rating: Rating | None
    """None until the player's first rated match."""

    @staticmethod
    def from_wire(d: Mapping[str, Any]) -> PlayerRating:
        r = d.get("rating")
        return PlayerRating(
            str(_need(d, "player_id", "player rating")),
            str(d.get("name", "")),
            Rating.from_wire(r) if r else None,
        )


@dataclass(frozen=True, slots=True)
class RatingPoint:
    match_id: str
    rating: float
    deviation: float
    games: int
    rated_at: str

    @staticmethod
    def from_wire(d: Mapping[str, Any]) -> RatingPoint:
        return RatingPoint(
            str(_need(d, "match_id", "rating point")),
            float(_need(d, "rating", "rating point")),
            float(d.get("deviation", 0)),
            int(d.get("games", 0)),
            str(d.get("rated_at", "")),
        )


@dataclass(frozen=True, slots=True)
class LeaderboardEntry:
    rank: int
    player_id: str
    name: str
    rating: float
    deviation: float
    games: int

    @staticmethod
    def from_wire(d: Mapping[str, Any]) -> LeaderboardEntry:
        return LeaderboardEntry(
            int(_need(d, "rank", "leaderboard entry")),
            str(_need(d, "player_id", "leaderboard entry")),
            str(d.get("name", "")),
            float(_need(d, "rating", "leaderboard entry")),
            float(d.get("deviation", 0)),
            int(d.get("games", 0)),
        )


@dataclass(frozen=True, slots=True)
class OpenChallenge:
    match_id: str
    rules: str
    rated: bool
    creator_id: str
    creator: str
    rating: float | None
    deviation: float | None
    created_at: str
    provisional: bool = True
    """The creator's rating is not established yet (or there is none)."""

    @staticmethod
    def from_wire(d: Mapping[str, Any]) -> OpenChallenge:
        rating, deviation = d.get("rating"), d.get("deviation")
        return OpenChallenge(
            str(_need(d, "match_id", "challenge")),
            str(d.get("rules", "")),
            bool(d.get("rated", False)),
            str(d.get("creator_id", "")),
            str(d.get("creator", "")),
            None if rating is None else float(rating),
            None if deviation is None else float(deviation),
            str(d.get("created_at", "")),
            bool(d.get("provisional", True)),
        )


@dataclass(frozen=True, slots=True)
class Lobby:
    waiting: int
    """Open challenges waiting for someone to accept."""
    playing: int
    """Players in an active match that moved in the last 15 minutes."""
    seeking: int = 0
    """Players seeking a quick pairing now."""

    @staticmethod
    def from_wire(d: Mapping[str, Any]) -> Lobby:
        return Lobby(int(d.get("waiting", 0)), int(d.get("playing", 0)), int(d.get("seeking", 0)))
