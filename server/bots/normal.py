"""Normal: a solid greedy player.

It takes the discard when that card makes or extends a meld (or lets it knock at once), throws
its highest useless card (the discard leaving the least deadwood; between equals, the card with
the fewest partners in the hand), and knocks as soon as it can, with the discard that leaves the
least deadwood. It keeps no memory and reads nothing of the opponent: only its own cards and the
top of the discard pile. Every decision is a handful of deadwood computations (well under 5 ms).
"""

from __future__ import annotations

from server.rules import Discard, Knock, SeatView
from server.rules.cards import VALUES

from .base import Bot, own_mask, top_of_pile
from .sim import RANK, connections, greedy_take


class NormalBot(Bot):
    level = "normal"

    def take_discard(self, view: SeatView) -> bool:
        return greedy_take(own_mask(view), top_of_pile(view), view.rules.knock_limit)

    def discard(self, view: SeatView) -> Discard | Knock:
        hand = own_mask(view)
        options = view.discard_deadwood
        least = min(dw for _, dw in options)

        def key(item: tuple) -> tuple:
            card, dw = item
            i = card.index
            # least deadwood left; then keep the cards with partners; then the higher card goes
            return (dw, connections(hand, i), -VALUES[i], -RANK[i], self.rng.random())

        card, _ = min(options, key=key)
        if least <= view.rules.knock_limit:
            return Knock(card)
        return Discard(card)
