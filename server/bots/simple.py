"""Simple: the ladder's baseline, in the manner of OpenSpiel's ``SimpleGinRummyBot``.

It takes the discard only when that card melds (it leaves less deadwood than the card's own
value added), throws the card leaving the least deadwood (between equals, the higher card), and
knocks as soon as it can. No partner heuristics, no memory, nothing of the opponent: a fixed,
plain yardstick for the bot ladder (not a difficulty a player chooses).
"""

from __future__ import annotations

from server.rules import Discard, Knock, SeatView
from server.rules.cards import VALUES

from .base import Bot, own_mask, top_of_pile
from .sim import RANK, deadwood


class SimpleBot(Bot):
    difficulty = "simple"

    def take_discard(self, view: SeatView) -> bool:
        hand, top = own_mask(view), top_of_pile(view)
        return deadwood(hand | 1 << top) < deadwood(hand) + VALUES[top]

    def discard(self, view: SeatView) -> Discard | Knock:
        least = min(dw for _, dw in view.discard_deadwood)
        card = min(
            (c for c, dw in view.discard_deadwood if dw == least),
            key=lambda c: (-VALUES[c.index], -RANK[c.index]),
        )
        return Knock(card) if least <= view.knock_limit else Discard(card)
