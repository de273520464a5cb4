"""What a seat may see of a hand: the hand's :class:`Phase`, its public :class:`Event` history
and the :class:`SeatView` that players, bots and clients are given.

A view never holds the other hand or the stock order; :meth:`HandState.view
<server.rules.HandState.view>` is the one function that builds it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import cast

from .actions import Action, Source
from .cards import Card
from .frozen import fast_constructor
from .melds import Arrangement
from .presets import Rules
from .settle import HandResult


class Phase(StrEnum):
    """The phase of a hand; see the table in this module's docstring."""

    UPCARD = "upcard"
    DRAW = "draw"
    DISCARD = "discard"
    OVER = "over"


@dataclass(frozen=True, slots=True)
class Event:
    """One public event of a hand: what both players (and watchers) saw happen.

    ``card`` is set for take_upcard, draw from the discard pile, discard and knock; a draw from
    the stock never names its card.
    """

    seat: int
    kind: str  # take_upcard | pass | draw | discard | knock
    card: Card | None = None
    source: Source | None = None


@dataclass(frozen=True, slots=True)
class SeatView:
    """What one seat may know of a hand (``seat=None``: the public view for watchers).

    Holds the seat's own cards, counts, the public discard pile and the public history; never
    the other hand or the stock order until the hand is over (then ``result`` reveals both
    hands).
    """

    rules: Rules
    seat: int | None
    starter: int
    dealer: int
    phase: Phase
    to_act: int | None
    hand: tuple[Card, ...]
    """The seat's cards in best-arrangement order: melds first, then unmatched by rank (in card
    order when the view was built without its arrangement)."""
    arrangement: Arrangement | None
    """The seat's best arrangement; None for watchers and in a view built without it
    (``HandState.view(seat, arranged=False)``: the computer's own)."""
    hand_counts: tuple[int, int]
    stock_count: int
    discard_pile: tuple[Card, ...]
    """Bottom first; the last card is the top."""
    history: tuple[Event, ...]
    legal_actions: tuple[Action, ...]
    result: HandResult | None
    knock_limit: int = 10
    """The most deadwood a knock may leave in this hand (0: gin only), set by the rules from the
    first upcard."""
    multiplier: int = 1
    """What everything this hand scores is multiplied by (set by the rules from the first upcard)."""
    scores: tuple[int, int] = (0, 0)
    """The match score of each seat when this hand was dealt (public: both seats see both); a
    seat is ``rules.target - scores[seat]`` points from winning the match."""
    discard_deadwood: tuple[tuple[Card, int], ...] = ()
    """When this seat must discard: each legal discard and the deadwood the other cards leave
    (a knock is legal when it is within ``knock_limit``; gin when 0)."""

    @property
    def opponent_count(self) -> int:
        return self.hand_counts[1 - self.seat] if self.seat is not None else 0

    @property
    def deadwood(self) -> int | None:
        return self.arrangement.deadwood if self.arrangement else None

    @property
    def upcard_taken(self) -> Card | None:
        """The card this seat just took from the discard pile and may not discard now."""
        if self.phase is Phase.DISCARD and self.history and self.history[-1].seat == self.to_act:
            last = self.history[-1]
            if last.kind == "take_upcard" or last.source is Source.DISCARD:
                return last.card
        return None


new_seat_view = cast("type[SeatView]", fast_constructor(SeatView))
"""``SeatView(...)``, faster (see :mod:`.frozen`); typed as the class, so mypy checks each call's
arguments as the constructor's."""
