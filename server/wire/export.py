"""The export of a match (``GET /api/matches/{id}/export``, one line of
``GET /api/players/{id}/export``): a match's record as one seat may keep it, and the shape the
text notation (:mod:`server.wire.notation`, ``docs/notation.md``) writes and reads.

What a seat may see decides what is filled in. A hand that is over (its ``result`` set) in a
match that is over shows everything the rules reveal at its end: both dealt hands, the stock
order, the seed and every card drawn. Any other hand (the hand in play, a hand left by a
resignation, every hand of a match still in play) shows only the asking seat's own dealt hand,
the upcard, the public actions and, once over, the result: the other hand, the stock and the
seed are null, and so is the card of every draw from the stock. Nothing here does I/O.
"""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

from .actions import Action
from .fields import Card, DealName, RuleName, Seat, Sha256Hex, Status, Timestamp, _Wire
from .views import HandResult, Outcome, SeatPlayer

EXPORT_FORMATS = ("json", "text")
"""The ``format`` query values of ``GET /api/matches/{id}/export``."""


class ExportedAction(_Wire):
    """One action of a hand, and the card it moved into a hand when the action does not name it."""

    seat: Seat
    action: Action
    drawn: Annotated[
        Card | None,
        Meta(
            description="The card taken (the upcard) or drawn; null for pass, discard and knock, and for "
            "a draw from the stock this export may not show"
        ),
    ]


class ExportedHand(_Wire):
    """One deal: the dealt hands (a null one is hidden from this seat), the upcard, the stock (top
    first; null: hidden), every action and the result once the hand is over."""

    number: int
    starter: Seat
    seed: Annotated[str | None, Meta(description="The hand's seed (docs/deals.md); null: hidden")]
    deal_commitment: Annotated[
        Sha256Hex | None,
        Meta(description="SHA-256 (hex) of `seed`, shown from the deal; null for a legacy deal"),
    ]
    hands: list[list[Card] | None]
    upcard: Card
    stock: list[Card] | None
    actions: list[ExportedAction]
    result: HandResult | None


class ExportedMatch(_Wire):
    """A match exported for the player in ``seat``: who played, the rules, the deal scheme, the
    result and every hand."""

    match_id: str
    status: Status
    seat: Annotated[Seat, Meta(description="The seat this export was made for")]
    rules: RuleName
    deal: DealName
    seed: Annotated[
        str | None,
        Meta(description="Legacy deals of a finished match only: the match's seed; null otherwise"),
    ]
    first_starter: Seat
    players: list[SeatPlayer]
    created_at: Timestamp
    updated_at: Timestamp
    scores: list[int]
    outcome: Outcome | None
    hands: list[ExportedHand]
