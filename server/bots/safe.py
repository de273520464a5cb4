"""The safe move the server plays for a seat whose time ran out, from that seat's view alone:
pass on the upcard offer, draw from the stock, and discard the card that leaves the least
deadwood (the highest deadwood card; ties: the higher card). It never knocks and never takes
the upcard or the discard pile, so it decides nothing the player might have wanted to decide.

>>> from server.rules import new_match
>>> m = new_match("house", seed=7)
>>> safe_move(m.view(m.to_act).hand).kind
'pass'
"""

from __future__ import annotations

from server.rules import Action, Discard, Draw, Pass, Phase, SeatView, Source
from server.rules.cards import Card


def safe_move(view: SeatView) -> Action:
    """One of ``view``'s legal actions: pass, draw from the stock, or the safest discard."""
    legal = view.legal_actions
    if not legal:
        raise ValueError("this seat has nothing to play")
    if view.phase is Phase.UPCARD:
        return next(a for a in legal if isinstance(a, Pass))
    if view.phase is Phase.DRAW:
        return next(a for a in legal if isinstance(a, Draw) and a.source is Source.STOCK)
    left: dict[Card, int] = dict(view.discard_deadwood)
    discards = [a for a in legal if isinstance(a, Discard)]

    def key(a: Discard) -> tuple[int, int, int]:
        return (left.get(a.card, 999), -a.card.value, -a.card.rank)

    return min(discards, key=key)
