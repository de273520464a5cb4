"""The wire shapes of bot accounts and the bot ladder (kept apart from :mod:`.messages`, which
imports :class:`BotInfo` into the player shapes): a bot's declaration, the ladder's standings,
pairs and paired results, and a bot's ladder matches to play. Nothing here does I/O or holds
game logic; no shape carries a seed or a card."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from .fields import Seat, Timestamp, _Wire

PlayerId = Annotated[str, Meta(examples=["p_1f0c9e2a7b3d4c5e"])]


class BotInfo(_Wire):
    """A player that is a program, declared when the player is created (never changed): who runs
    it and what it is. Shown wherever the player is."""

    owner: Annotated[str, Meta(min_length=1, max_length=80, examples=["ada@example.org"])]
    description: Annotated[str, Meta(max_length=300, examples=["Greedy: knocks as soon as it can"])] = ""


class LadderStanding(_Wire):
    """One entrant: its ladder rating (Glicko-2, apart from the human rating) with its error
    bar (about 95% sure the strength is within ``rating`` plus or minus twice ``deviation``)."""

    rank: Annotated[int, Meta(ge=1)]
    player_id: PlayerId
    name: str
    kind: Annotated[
        Literal["bot", "reference"],
        Meta(description="An enrolled bot, or one of the server's references (easy, normal, hard, simple)"),
    ]
    rating: float
    deviation: float
    games: Annotated[int, Meta(ge=0, description="Pairs counted (each pair is two matches)")]
    updated_at: Timestamp


class Ladder(_Wire):
    """The ladder's standings, best rating first."""

    on: Annotated[
        bool, Meta(description="Whether this server schedules ladder pairs (GINRUMMY_LADDER_CPU > 0)")
    ]
    entrants: list[LadderStanding]


class LadderPairView(_Wire):
    """One duplicate-deal pair: the same deals twice, ``a`` in seat 0 of the first match and
    ``b`` in seat 0 of the second. The result is ``a``'s, once both matches are over (null
    before): its match wins (0-2), net points over both, and score (wins / 2)."""

    pair_id: str
    a: PlayerId
    a_name: str
    b: PlayerId
    b_name: str
    rules: str
    match_ids: Annotated[list[str], Meta(min_length=2, max_length=2)]
    status: Literal["playing", "finished"]
    created_at: Timestamp
    finished_at: Timestamp | None
    wins: int | None
    points: int | None
    score: float | None


class Pairing(_Wire):
    """The player's paired result against one opponent over their finished pairs: the mean
    score per pair (1 both matches won, 0.5 one each, 0 none) with its 95% interval, and the
    mean net points per pair with its interval (null with a single pair)."""

    opponent_id: PlayerId
    opponent: str
    pairs: Annotated[int, Meta(ge=1)]
    score: float
    score_low: float
    score_high: float
    points: float
    points_low: float | None
    points_high: float | None


class LadderPairs(_Wire):
    """A ladder entrant's recent pairs, newest first, and its paired result per opponent."""

    player_id: PlayerId
    pairs: list[LadderPairView]
    pairings: list[Pairing]


class LadderEnrolled(_Wire):
    """The caller's ladder entry (enrolling again changes nothing)."""

    entrant: LadderStanding


class LadderMatch(_Wire):
    """A ladder match the bot has to play: say ``hello`` on ``ws_url`` with the bot's token."""

    match_id: str
    pair_id: str
    seat: Seat
    ws_url: str


class LadderMatches(_Wire):
    """The caller's ladder matches in play (asking says the bot is there to be paired)."""

    matches: list[LadderMatch]
