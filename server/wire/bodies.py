"""The REST bodies of players and matches, both ways: creating a player or a match, joining
one, a match's summary, details and list, a player's stats, the rule presets, the computer's
difficulties and health. (Records, accounts, ratings and errors have modules of their own.)
Nothing here does I/O or holds game logic."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import UNSET, Meta, UnsetType

from .fields import STORABLE, DifficultyName, Opponent, RuleName, Seat, Status, Timestamp, Version, _Wire
from .ladder import BotInfo
from .timing import Rematch, TimeControl
from .views import HandResult, Outcome, RulesView, SeatPlayer

Name = Annotated[
    str, Meta(min_length=1, max_length=40, pattern=STORABLE, description="Display name, 1 to 40 characters")
]


class CreatePlayer(_Wire):
    name: Name
    bot: Annotated[
        BotInfo | None, Meta(description="Declares the player a bot (a program); absent: a person")
    ] = None


class CreateMatch(_Wire):
    opponent: Opponent = "computer"
    difficulty: DifficultyName = "normal"
    rules: RuleName = "house"
    time_control: Annotated[TimeControl | None, Meta(description="Against a human only; absent: none")] = None
    rated: Annotated[
        bool, Meta(description="Counts for both players' Glicko-2 ratings (opponent human only)")
    ] = False
    public: Annotated[
        bool, Meta(description="Listed among the open challenges for anyone to accept (opponent human only)")
    ] = False


class JoinMatch(_Wire):
    invite: Annotated[str, Meta(min_length=1, max_length=64, pattern=STORABLE)]


class NewPlayer(_Wire):
    player_id: Annotated[str, Meta(examples=["p_1f0c9e2a7b3d4c5e"])]
    name: str
    token: Annotated[str, Meta(description="Shown once; send as Authorization: Bearer TOKEN")]
    bot: Annotated[BotInfo | None, Meta(description="null: a person")] = None


class Me(_Wire):
    player_id: str
    name: str
    bot: Annotated[BotInfo | None, Meta(description="null: a person")] = None


class MatchSummary(_Wire):
    match_id: Annotated[str, Meta(examples=["m_Xq3k9sPz0aBcDeFg"])]
    rules: RuleName
    opponent: Opponent
    difficulty: Annotated[DifficultyName | None, Meta(description="null against a human")]
    status: Status
    players: list[SeatPlayer]
    scores: list[int]
    hands_won: list[int]
    hand_number: int
    winner: Seat | None
    outcome: Outcome | None
    created_at: Timestamp
    updated_at: Timestamp
    version: Version
    time_control: TimeControl
    rematch: Rematch | None
    seat: Annotated[Seat | UnsetType, Meta(description="The caller's seat, when seated")] = UNSET
    rated: Annotated[bool, Meta(description="Counts for both players' ratings")] = False
    public: Annotated[bool, Meta(description="An open challenge (listed while it waits)")] = False


class Invite(_Wire):
    code: str
    url: str


class CreatedMatch(MatchSummary, kw_only=True):
    """The new match and how to connect."""

    seat: Annotated[Seat, Meta(description="The caller's seat")]
    ws_url: Annotated[str, Meta(examples=["ws://127.0.0.1:8080/ws"])]
    watch_token: Annotated[str, Meta(description="Lets anyone watch (public view only)")]
    invite: Annotated[
        Invite | None, Meta(description="Against a human: redeem with POST /api/matches/{id}/join")
    ]


class JoinedMatch(MatchSummary, kw_only=True):
    """The match joined and the caller's seat."""

    seat: Annotated[Seat, Meta(description="The caller's seat")]
    ws_url: str


class FinishedHand(HandResult):
    """A finished hand's result with its number and starter."""

    number: int
    starter: Seat


class MatchDetails(MatchSummary, kw_only=True):
    """A match summary and every finished hand's result, in order."""

    hands: list[FinishedHand]


class MatchList(_Wire):
    matches: list[MatchSummary]
    total: int
    limit: int
    offset: int


class Stats(_Wire):
    matches: int
    wins: int
    losses: int
    hands: int
    hands_won: int
    gins: int
    undercuts: int
    points: int


class RulePreset(RulesView):
    guide: str


class RulePresets(_Wire):
    rules: list[RulePreset]


class DifficultyInfo(_Wire):
    name: DifficultyName
    label: str
    description: str
    rating: Annotated[
        float | None,
        Meta(
            description="The level's fixed published rating, measured by a round robin (seeds/ratings.json)"
        ),
    ] = None


class Difficulties(_Wire):
    difficulties: list[DifficultyInfo]


class Health(_Wire):
    status: Literal["ok", "shutting_down", "database_unavailable"]
