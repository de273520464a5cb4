"""Each seat's melds at every step of a recorded hand, for replays: the hand is dealt again from
its record and every action applied in order, and after the deal and after each action both
hands' best arrangements are read (the same arrangement a seat's view shows at the table).

Only for a hand that is over: mid-hand it would show the other hand's melds.
"""

from __future__ import annotations

from .hand import new_hand
from .match import HandLog
from .melds import Meld
from .presets import Rules

StepMelds = tuple[tuple[Meld, ...], tuple[Meld, ...]]
"""Seat 0's melds and seat 1's melds, each in its best arrangement."""


def melds_by_step(rules: Rules, log: HandLog) -> list[StepMelds]:
    """Both seats' melds after the deal (index 0) and after each action (index i: after the
    first i actions).

    >>> from server.rules import RULES, Pass, Draw, Discard, Source, Card
    >>> from server.rules.cards import parse_cards
    >>> log = HandLog(1, 0, "s", (tuple(parse_cards("As 2s 3s 4c 5c 6c 7h 8h 9d Td")),
    ...                          tuple(parse_cards("Ac 2c 3c 4s 5s 6s 7d 8d 9h Th"))),
    ...               Card.parse("Kd"), tuple(parse_cards("Jd Qd Ks")))
    >>> log.actions += [(0, Pass()), (1, Pass()), (0, Draw(Source.STOCK)), (0, Discard(Card.parse("7h")))]
    >>> steps = melds_by_step(RULES["house"], log)
    >>> len(steps), [str(m) for m in steps[0][0]], [str(m) for m in steps[4][0]]
    (5, ['As 2s 3s', '4c 5c 6c'], ['As 2s 3s', '4c 5c 6c', '9d Td Jd'])
    """
    hand = new_hand(rules, log.starter, log.hands, log.upcard, log.stock)
    steps: list[StepMelds] = [(hand.arrangement(0).melds, hand.arrangement(1).melds)]
    for seat, action in log.actions:
        hand = hand.apply(action, seat)
        steps.append((hand.arrangement(0).melds, hand.arrangement(1).melds))
    return steps


__all__ = ["StepMelds", "melds_by_step"]
