"""The wire shapes of a finished match's record (its complete replay): every hand's deal, stock,
seed and actions, as far as the asking seat may see them. Nothing here does I/O or holds game
logic."""

from __future__ import annotations

from typing import Annotated

from msgspec import UNSET, Meta, UnsetType

from .actions import Action
from .fields import Card, DealName, MeldCards, RuleName, Seat, Sha256Hex, _Wire
from .views import HandResult, Outcome, SeatPlayer


class RecordedAction(_Wire):
    seat: Seat
    action: Action
    timed_out: Annotated[
        bool | UnsetType,
        Meta(description="true: the server played this move for the seat, its time having run out"),
    ] = UNSET


class HandRecord(_Wire):
    """One deal of the record: both hands, the upcard, the stock (top first), every action. A
    hand left unfinished (a resignation, a forfeit) shows only the asking seat's own cards."""

    number: int
    starter: Seat
    seed: Annotated[
        str | None,
        Meta(
            description="The hand's seed, from which docs/deals.md re-derives this deal; null for a hand "
            "left unfinished (by a resignation)"
        ),
    ]
    hands: Annotated[
        list[list[Card] | None],
        Meta(description="Each seat's dealt hand; null: the other seat's, in a hand left unfinished"),
    ]
    upcard: Card
    stock: Annotated[list[Card] | None, Meta(description="Top first; null in a hand left unfinished")]
    actions: list[RecordedAction]
    result: HandResult | None
    deal_commitment: Annotated[
        Sha256Hex | None,
        Meta(
            description="What the view showed from the deal: SHA-256 (hex) of `seed`; null for a legacy deal"
        ),
    ]
    melds_by_step: Annotated[
        list[list[list[MeldCards]]],
        Meta(
            description="Each seat's melds, in the best arrangement the table shows, after the deal "
            "(index 0) and after each action (index i: after the first i actions): "
            "`melds_by_step[i][seat]` is that seat's melds"
        ),
    ] = []


class MatchRecord(_Wire):
    """The complete replay of a finished match."""

    match_id: str
    seat: Annotated[Seat, Meta(description="The caller's seat")]
    rules: RuleName
    seed: Annotated[
        str | None,
        Meta(
            description="Legacy deals only: the match's seed (each hand's seed derives from it); null for "
            "sha256 deals, whose match seed is never revealed"
        ),
    ]
    first_starter: Seat
    players: list[SeatPlayer]
    outcome: Outcome | None
    hands: list[HandRecord]
    deal: Annotated[
        DealName,
        Meta(
            description="How the hands were dealt: sha256 (verifiable, docs/deals.md) or legacy (before it)"
        ),
    ]
