"""Normal: a solid greedy player.

It takes the discard when that card makes or extends a meld (or lets it knock at once), throws
its highest useless card (the discard leaving the least deadwood; between equals, the card with
the fewest partners in the hand), and knocks as soon as it can (within the hand's own knock
limit, ``view.knock_limit``), with the discard that leaves the least deadwood. It keeps no memory and reads nothing of the opponent: only its own cards and the
top of the discard pile. Every decision is a handful of deadwood computations (well under 5 ms).
"""

from __future__ import annotations

from server.rules import Discard, Knock, SeatView
from server.rules.cards import VALUES, Card, to_mask

from .base import Bot, own_mask, top_of_pile
from .sim import RANK, greedy_take, live_connections

PARTNER_VALUE = 1
"""Deadwood points a partner (same rank, or within two in the suit) adds to a card's worth."""


class NormalBot(Bot):
    difficulty = "normal"

    def take_discard(self, view: SeatView) -> bool:
        return greedy_take(own_mask(view), top_of_pile(view), view.knock_limit)

    def discard(self, view: SeatView) -> Discard | Knock:
        hand = own_mask(view)
        dead = to_mask(view.discard_pile)
        options = view.discard_deadwood
        least = min(dw for _, dw in options)

        if least <= view.knock_limit:
            card = min(
                (c for c, dw in options if dw == least), key=lambda c: (-VALUES[c.index], -RANK[c.index])
            )
            return Knock(card)

        def key(item: tuple[Card, int]) -> tuple[int, int, int]:
            card, dw = item
            i = card.index
            # "useless": a card with partners (a pair, two of a run) is worth a few points more
            # than a lone card; then the higher card goes
            return (dw + PARTNER_VALUE * min(live_connections(hand, i, dead), 2), -VALUES[i], -RANK[i])

        keys = [key(item) for item in options]
        best = min(keys)
        if keys.count(best) == 1:
            return Discard(options[keys.index(best)][0])
        # A tie (two cards of a rank, say): a draw per option, in order, breaks it.
        draws = [self.rng.random() for _ in options]
        j = min(range(len(options)), key=lambda j: (keys[j], draws[j]))
        return Discard(options[j][0])
