"""Ready-made strategies: functions from a seat's view to one of its legal actions.

A strategy is any callable ``view -> action`` (plain or async) where ``view`` is a
:class:`~ginrummy_client.models.MatchView` in which the seat must act and the action is one of
``view.legal_actions``. Write your own in the same shape and hand it to
``MatchConnection.play`` or to the arena (``python -m ginrummy_client arena --strategy
mymodule:choose``).

- :func:`quick`: knocks as soon as it can, takes a card only when it makes a meld, discards the
  card that leaves the least deadwood. Short, readable, and finishes matches fast.
- :func:`make_random`: any legal action, from a seeded generator (for fuzzing a server).

This module never does I/O.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from .cards import best_melds, deadwood, rank, value
from .models import PASS, Action, MatchView

__all__ = ["make_random", "quick"]


def _improves(hand: tuple[str, ...], card: str) -> bool:
    """Whether taking ``card`` puts it into a meld and lowers the deadwood left after a discard."""
    melds, _ = best_melds((*hand, card))
    if not any(card in m for m in melds):
        return False
    after = min(deadwood(c for c in (*hand, card) if c != out) for out in hand)
    return after < deadwood(hand)


def quick(view: MatchView) -> Action:
    """Knock (or gin) as soon as possible; otherwise play for the least deadwood."""
    hand = view.hand
    legal = view.legal_actions
    if hand is None or not legal:
        raise ValueError("quick() was asked to act when the seat has nothing to do")
    kinds = {a.kind for a in legal}
    dw = hand.discard_deadwood
    if "knock" in kinds or "discard" in kinds:
        knocks = [a for a in legal if a.kind == "knock"]
        pool = knocks or [a for a in legal if a.kind == "discard"]
        # Least deadwood left; among equals shed the highest card.
        return min(
            pool, key=lambda a: (dw.get(a.card or "", 99), -value(a.card or "As"), -rank(a.card or "As"))
        )
    top = hand.top_discard
    wants_top = top is not None and _improves(hand.hand, top)
    for a in legal:
        if wants_top and (a.kind == "take_upcard" or (a.kind == "draw" and a.source == "discard")):
            return a
    for a in legal:
        if a.kind == "draw" and a.source == "stock":
            return a
    return PASS if PASS in legal else legal[0]


def make_random(seed: int | str = 0) -> Callable[[MatchView], Action]:
    """A strategy that plays a uniformly random legal action (seeded, so runs repeat)."""
    rng = random.Random(seed)

    def choose(view: MatchView) -> Action:
        return rng.choice(view.legal_actions)

    return choose
