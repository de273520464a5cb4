"""The wire shapes of what one seat (or a watcher) sees of a match: the view, the hand in play
and its public events, a finished hand's result, the players, the rules' numbers and the
outcome. Nothing here does I/O or holds game logic."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import UNSET, Meta, UnsetType

from server.rules import Phase, ResultKind, Source, StarterRule

from .actions import Action
from .fields import (
    ActionKind,
    Card,
    MeldCards,
    Opponent,
    RuleName,
    Seat,
    Sha256Hex,
    Status,
    Timestamp,
    Version,
    _Wire,
)
from .timing import MatchClock, Rematch, TimeControl


class Event(_Wire):
    """One public event of the current hand; a draw from the stock never names its card."""

    seat: Seat
    kind: ActionKind
    source: Annotated[Source | UnsetType, Meta(description="Draws only")] = UNSET
    card: Annotated[
        Card | UnsetType, Meta(description="Take, discard, knock, and a draw from the discard pile")
    ] = UNSET
    timed_out: Annotated[
        bool | UnsetType,
        Meta(description="true: the server played this move for the seat, its time having run out"),
    ] = UNSET


class Layoff(_Wire):
    """The defender's ``card`` laid off on one of the knocker's melds."""

    card: Card
    meld: Annotated[int, Meta(ge=0, description="Index into the knocker's melds")]


class HandResult(_Wire):
    """A finished hand: both hands revealed, melds, layoffs and the score worked out. Every pair
    is indexed by seat."""

    kind: ResultKind
    winner: Seat | None
    points: int
    knocker: Seat | None
    deadwood: list[int]
    hands: list[list[Card]]
    melds: list[list[MeldCards]]
    unmatched: list[list[Card]]
    layoffs: list[Layoff]
    breakdown: Annotated[str, Meta(examples=["25 + 8 - 5 = 28"])]


class HandView(_Wire):
    """One seat's view of the hand in play (a watcher's has ``seat`` null and no cards)."""

    seat: Seat | None
    starter: Seat
    dealer: Seat
    phase: Phase
    to_act: Seat | None
    cards: Annotated[
        list[Card], Meta(description="The seat's own cards, in best-meld order (none for a watcher)")
    ]
    hand: Annotated[
        list[Card],
        Meta(
            description="Deprecated: the v1 name of `cards` (the same list); removed in v2",
            extra_json_schema={"deprecated": True},
        ),
    ]
    melds: list[MeldCards]
    deadwood: int | None
    hand_counts: list[int]
    stock_count: int
    discard_pile: Annotated[list[Card], Meta(description="Bottom first: the last card is the top")]
    history: list[Event]
    legal_actions: list[Action]
    result: HandResult | None
    knock_limit: Annotated[
        int, Meta(ge=0, le=10, description="The most deadwood a knock may leave in this hand (0: gin only)")
    ]
    discard_deadwood: Annotated[
        dict[Card, int],
        Meta(description="When this seat must discard: each legal discard and the deadwood it leaves"),
    ]
    multiplier: Annotated[int, Meta(ge=1, description="What this hand's score is multiplied by (1: plain)")]
    deal_commitment: Annotated[
        Sha256Hex | None,
        Meta(
            description="SHA-256 (hex) of this hand's seed, fixed from the deal: the record reveals the "
            "seed once the match is over, and the seed re-derives the deal (docs/deals.md). "
            "Null for a match dealt by the legacy scheme"
        ),
    ]


class SeatPlayer(_Wire):
    seat: Seat
    name: str | None
    kind: Opponent


class Player(SeatPlayer):
    """A seat's player, and whether a socket of that seat is connected (always, the computer)."""

    connected: bool
    bot: Annotated[bool, Meta(description="The seat's player is a bot account (a program)")] = False


class RulesView(_Wire):
    """A rule preset's numbers (see docs/rules.md)."""

    name: RuleName
    label: Annotated[str, Meta(examples=["House rules"])]
    description: str
    target: int
    knock_limit: int
    gin_bonus: int
    undercut_bonus: int
    box_bonus: int
    game_bonus: int
    shutout_bonus: int
    starter_rule: StarterRule


class SeatTotal(_Wire):
    points: int
    box_bonus: int
    game_bonus: int
    total: int


class Outcome(_Wire):
    """How the match ended: the winning seat, why, and both seats' totals."""

    winner: Seat
    reason: Annotated[
        Literal["target", "resign", "timeout", "abandoned"],
        Meta(
            description="target: reached it; or the loser resigned, ran out of time, or left and was claimed"
        ),
    ]
    totals: list[SeatTotal]


class View(_Wire):
    """Everything one seat (or a watcher) may see of a match."""

    match_id: str
    status: Status
    seat: Annotated[Seat | None, Meta(description="The viewer's seat; null for a watcher")]
    version: Version
    players: list[Player]
    rules: RulesView
    hand_number: int
    scores: list[int]
    hands_won: list[int]
    hand: HandView
    last_result: HandResult | None
    outcome: Outcome | None
    status_line: Annotated[str, Meta(examples=["Your turn: discard a card, or knock"])]
    time_control: TimeControl
    clock: Annotated[MatchClock | None, Meta(description="null for an untimed match")]
    claim_at: Annotated[
        Timestamp | None,
        Meta(description="Your opponent is gone: from then you may claim the match (POST .../claim)"),
    ]
    claim_in_ms: Annotated[
        Annotated[int, Meta(ge=0)] | None, Meta(description="Milliseconds until claim_at (0: now)")
    ]
    rematch: Annotated[Rematch | None, Meta(description="Once the match is over")]
    rated: Annotated[bool, Meta(description="Counts for both players' ratings")] = False
