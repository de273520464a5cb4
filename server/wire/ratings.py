"""The REST bodies of ratings and the lobby: a player's Glicko-2 rating and its history, the
leaderboard, a player's public page, the open challenges and the live counts. Nothing here does
I/O or holds game logic."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

from .bodies import MatchSummary, Stats
from .fields import RuleName, Timestamp, _Wire
from .ladder import BotInfo

PlayerId = Annotated[str, Meta(examples=["p_1f0c9e2a7b3d4c5e"])]


class Rating(_Wire):
    """A player's Glicko-2 rating (new players start at 1500, deviation 350)."""

    rating: Annotated[float, Meta(examples=[1662.3])]
    deviation: Annotated[float, Meta(description="Rating deviation: about 95% sure within twice it")]
    volatility: float
    games: Annotated[int, Meta(ge=0, description="Rated matches counted")]
    updated_at: Timestamp
    provisional: Annotated[
        bool,
        Meta(
            description="Not on the leaderboard yet: fewer than min_games rated matches, or a "
            "deviation above max_deviation (the leaderboard gives both)"
        ),
    ]


class PlayerRating(_Wire):
    player_id: PlayerId
    name: str
    rating: Annotated[Rating | None, Meta(description="null until the player's first rated match")]


class RatingPoint(_Wire):
    """The rating after one rated match."""

    match_id: str
    rating: float
    deviation: float
    games: int
    rated_at: Timestamp


class RatingHistory(_Wire):
    """Newest first."""

    player_id: PlayerId
    history: list[RatingPoint]
    total: int
    limit: int
    offset: int


class LeaderboardEntry(_Wire):
    rank: Annotated[int, Meta(ge=1)]
    player_id: PlayerId
    name: str
    rating: float
    deviation: float
    games: int
    bot: Annotated[
        BotInfo | None, Meta(description="null: a person (a bot is rated here only by people's invites)")
    ] = None


class Leaderboard(_Wire):
    """Rated players with an established rating (at least ``min_games`` rated matches and a
    deviation of at most ``max_deviation``), best first."""

    players: list[LeaderboardEntry]
    total: int
    limit: int
    offset: int
    min_games: int
    max_deviation: Annotated[float, Meta(examples=[110.0])]


class PlayerPage(_Wire):
    """Anyone's public page: record, rating, recent finished matches (no cards)."""

    player_id: PlayerId
    name: str
    rating: Rating | None
    stats: Stats
    recent: Annotated[list[MatchSummary], Meta(description="The last finished matches, newest first")]
    bot: Annotated[BotInfo | None, Meta(description="null: a person")] = None


class OpenChallenge(_Wire):
    """A public match waiting for anyone to accept it (POST /api/challenges/{match_id}/accept)."""

    match_id: str
    rules: RuleName
    rated: bool
    creator_id: PlayerId
    creator: Annotated[str, Meta(description="The creator's name")]
    rating: Annotated[float | None, Meta(description="The creator's rating; null if not rated yet")]
    deviation: float | None
    created_at: Timestamp
    provisional: Annotated[
        bool, Meta(description="The creator's rating is not established yet (or there is none)")
    ]


class ChallengeList(_Wire):
    challenges: list[OpenChallenge]
    total: int
    limit: int
    offset: int


class Lobby(_Wire):
    """Live counts, from the database (the same on every server)."""

    waiting: Annotated[int, Meta(description="Open challenges waiting for someone to accept")]
    playing: Annotated[
        int, Meta(description="Players seated in an active match that moved within the last 15 minutes")
    ]
    seeking: Annotated[int, Meta(description="Players seeking a quick pairing now (/ws/lobby)")] = 0
