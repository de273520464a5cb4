"""Easy: relaxed, beatable by a beginner.

It plays sensibly but loosely: it always takes an upcard that completes a new meld, but seldom
one that only extends a meld, and never takes a card just to lower its deadwood; it clings to
pairs and near-runs, even of high cards, and its discards are somewhat random; it knocks at once
with a small deadwood but mostly lets a bigger knock go by. It never looks at what the opponent
did.
"""

from __future__ import annotations

from server.rules import Discard, Knock, SeatView
from server.rules.cards import VALUES, Card
from server.rules.melds import min_deadwood

from .base import Bot, own_mask, top_of_pile
from .sim import connections

SURE_KNOCK = 6
"""Deadwood at or below which Easy always knocks (within the hand's knock limit); above it, up
to the limit, now and then."""
KNOCK_CHANCE = 0.3
EXTEND_CHANCE = 0.3
"""How often it takes a discard that only extends a meld it already has."""
PARTNER_WEIGHT = 8.0
"""Deadwood points a card's partners (same rank, near in suit) are worth to Easy: it hangs on
to pairs, even of kings, far too long."""
NOISE = 10.0


class EasyBot(Bot):
    difficulty = "easy"

    def take_discard(self, view: SeatView) -> bool:
        hand = own_mask(view)
        top = top_of_pile(view)
        gain = min_deadwood(hand) + VALUES[top] - min_deadwood(hand | 1 << top)
        if gain > VALUES[top]:
            return True  # the card completes a new meld with two loose cards
        if gain == VALUES[top]:
            return self.rng.random() < EXTEND_CHANCE  # it only extends a meld
        return False

    def discard(self, view: SeatView) -> Discard | Knock:
        hand = own_mask(view)
        options = view.discard_deadwood
        least = min(dw for _, dw in options)
        if least == 0 or (
            least <= view.knock_limit and (least <= SURE_KNOCK or self.rng.random() < KNOCK_CHANCE)
        ):
            card = min((c for c, dw in options if dw == least), key=lambda c: (-VALUES[c.index], c))
            return Knock(card)

        def score(item: tuple[Card, int]) -> float:
            card, dw = item
            return dw + PARTNER_WEIGHT * connections(hand, card.index) + self.rng.random() * NOISE

        card, _ = min(options, key=score)
        return Discard(card)
