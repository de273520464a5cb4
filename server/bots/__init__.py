"""Computer opponents. A bot receives only a seat's view and returns one legal action.

Interface (stable; the service relies on it)::

    bot = make_bot("easy" | "normal" | "hard", seed)
    action = bot.choose(view)      # view: server.rules.SeatView of the bot's seat

Placeholder: every level plays the same plain greedy game until the real levels land.
"""

from __future__ import annotations

import random

from server.rules import Action, Discard, Draw, Knock, SeatView, Source, TakeUpcard, deadwood

LEVELS = ("easy", "normal", "hard")


class GreedyBot:
    def __init__(self, level: str, seed: int | str) -> None:
        self.level = level
        self.rng = random.Random(seed)

    def choose(self, view: SeatView) -> Action:
        legal = list(view.legal_actions)
        if not legal:
            raise ValueError("the bot was asked to act when it has no legal action")
        knocks = [a for a in legal if isinstance(a, Knock)]
        if knocks:
            return min(knocks, key=lambda a: dict(view.discard_deadwood)[a.card])
        discards = [a for a in legal if isinstance(a, Discard)]
        if discards:
            return min(discards, key=lambda a: (dict(view.discard_deadwood)[a.card], -a.card.rank))
        top = view.discard_pile[-1] if view.discard_pile else None
        if top is not None:
            improves = deadwood([*view.hand, top]) - top.value < deadwood(view.hand)
            for a in legal:
                if isinstance(a, TakeUpcard) and improves:
                    return a
                if isinstance(a, Draw) and a.source is Source.DISCARD and improves:
                    return a
        for a in legal:
            if isinstance(a, Draw) and a.source is Source.STOCK:
                return a
        return next(a for a in legal if not isinstance(a, TakeUpcard))


def make_bot(level: str, seed: int | str = 0) -> GreedyBot:
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; expected one of {LEVELS}")
    return GreedyBot(level, seed)
