"""The pure Gin Rummy core: cards, melds, actions, one hand's phase machine, settlement,
matches and per-seat views.

It never does I/O, never reads the clock and never touches the global random generator: a hand
is determined by its deal and its actions, so everything here replays exactly. (The rule presets
are read once, at import, from the data files in ``seeds/rules/``.) It must never import the
rest of the server; bots, service and transport depend on it, not the other way round. Its
values go on the wire through :mod:`server.wire` (``server.wire.convert``), which alone defines
the wire shapes; the rules keep only their own notation for actions.

Public API::

    Card.parse("Td"), str(card), DECK
    deadwood(cards) -> int, best_arrangement(cards) -> Arrangement
    new_hand(rules, starter=..., hands=(...), upcard=..., stock=[top, ...]), deal(rules, starter, seed)
    HandState: to_act, phase, legal_actions(), apply(action), result, view(seat)
    Action.from_wire(d) / action.to_wire()  (the actions' notation, for records and storage)
    new_match(rules, seed), MatchState, RULES["house"], RULES["classic"], RULES["oklahoma"]

What differs between variants lives on the rules object, as named hooks (``hand_knock_limit``,
``hand_multiplier``, ``hand_points``, ``hand_breakdown``, ``next_starter``, ``match_bonuses``;
see :mod:`.presets`); nothing else asks which variant it is playing.

Cards and melds (aces are low; J Q K count 10):

>>> from server.rules import Card, deadwood, best_arrangement
>>> Card.parse("Td"), str(Card.parse("Td"))
(Card.parse('Td'), 'Td')
>>> deadwood("Qh Kh Ah")  # Q-K-A is not a run
21
>>> a = best_arrangement("7c 7d 7h 8h 9h Kd")
>>> [str(m) for m in a.melds], [str(c) for c in a.unmatched], a.deadwood
(['7h 8h 9h'], ['7c', '7d', 'Kd'], 24)

A hand from explicit cards (seat 0 starts; the stock is listed top first), played through wire
actions to the guide's worked example: the knocker has 8, the defender 5 after laying off 5c
and Tc, so the defender undercuts for 25 + 8 - 5 = 28:

>>> from server.rules import RULES, Action, new_hand
>>> h = new_hand(RULES["house"], starter=0,
...              hands=("2c 3c 4c 5h 5d 5s 7c 8c 9c 8h", "Qs Qd Qc Jh Th 9h 4s As 5c Tc"),
...              upcard="Kd", stock="Kh 2h 3h 4h")
>>> [a.to_wire() for a in h.legal_actions()]
[{'kind': 'take_upcard'}, {'kind': 'pass'}]
>>> for wire in ({"kind": "pass"}, {"kind": "pass"}, {"kind": "draw", "source": "stock"},
...              {"kind": "knock", "card": "Kh"}):
...     _ = h.apply(Action.from_wire(wire))
>>> r = h.result
>>> r.kind.value, r.winner, r.points, r.deadwood, r.breakdown
('undercut', 1, 28, (8, 5), '25 + 8 - 5 = 28')

Each seat sees only its own cards; a watcher (``None``) sees no hand at all until the result:

>>> h2 = new_hand(RULES["house"], 0, ("2c 3c 4c 5h 5d 5s 7c 8c 9c 8h", "Qs Qd Qc Jh Th 9h 4s As 5c Tc"),
...               "Kd", "Kh 2h 3h 4h")
>>> v = h2.view(1)
>>> [str(c) for c in v.hand], v.deadwood, v.hand_counts, v.stock_count
(['9h', 'Th', 'Jh', 'Qc', 'Qd', 'Qs', 'As', '4s', '5c', 'Tc'], 20, (10, 10), 4)
>>> [str(c) for c in h2.view(None).hand], [str(c) for c in h2.view(None).discard_pile]
([], ['Kd'])

A match deals from a seed, and its record replays it exactly:

>>> import random
>>> from server.rules import MatchState, new_match
>>> m = new_match("classic", seed="doc")
>>> rng = random.Random(0)
>>> for _ in range(300):
...     _ = m.apply(rng.choice(m.legal_actions()))
>>> MatchState.replay(m.record()).view(0) == m.view(0)
True

In ``oklahoma`` the first upcard sets the hand's knock limit and a spade doubles the hand: the
same undercut under the king of spades scores twice as much:

>>> h3 = new_hand(RULES["oklahoma"], 0, ("2c 3c 4c 5h 5d 5s 7c 8c 9c 8h", "Qs Qd Qc Jh Th 9h 4s As 5c Tc"),
...               "Ks", "Kh 2h 3h 4h")
>>> h3.knock_limit, h3.view(0).multiplier
(10, 2)
>>> for wire in ({"kind": "pass"}, {"kind": "pass"}, {"kind": "draw", "source": "stock"},
...              {"kind": "knock", "card": "Kh"}):
...     _ = h3.apply(Action.from_wire(wire))
>>> h3.result.points, h3.result.breakdown
(56, '(25 + 8 - 5) x 2 = 56')
>>> new_hand(RULES["oklahoma"], 0, ("2c 3c 4c 5h 5d 5s 7c 8c 9c 8h", "Qs Qd Qc Jh Th 9h 4s As 5c Tc"),
...          "Ad", "Kh 2h 3h 4h").knock_limit  # an ace upcard: gin only
0
"""

from .actions import (
    DRAW_DISCARD,
    DRAW_STOCK,
    PASS,
    TAKE_UPCARD,
    Action,
    Discard,
    Draw,
    Knock,
    Pass,
    Source,
    TakeUpcard,
)
from .cards import DECK, Card
from .deals import DEALS, DEFAULT_DEAL, DealScheme, deal_named
from .errors import (
    IllegalActionError,
    InvalidActionError,
    InvalidCardError,
    NotYourTurnError,
    RulesError,
    UnknownRulesError,
)
from .hand import HandState, deal, new_hand, shuffled_deck
from .match import HandLog, MatchOutcome, MatchState, MatchView, SeatTotal, new_match
from .melds import Arrangement, Meld, MeldKind, best_arrangement, deadwood
from .presets import RULES, VARIANTS, Oklahoma, Rules, StarterRule, rules_named
from .settle import HandResult, Layoff, ResultKind
from .views import Event, Phase, SeatView

__all__ = [
    "DEALS",
    "DECK",
    "DEFAULT_DEAL",
    "DRAW_DISCARD",
    "DRAW_STOCK",
    "PASS",
    "RULES",
    "TAKE_UPCARD",
    "VARIANTS",
    "Action",
    "Arrangement",
    "Card",
    "DealScheme",
    "Discard",
    "Draw",
    "Event",
    "HandLog",
    "HandResult",
    "HandState",
    "IllegalActionError",
    "InvalidActionError",
    "InvalidCardError",
    "Knock",
    "Layoff",
    "MatchOutcome",
    "MatchState",
    "MatchView",
    "Meld",
    "MeldKind",
    "NotYourTurnError",
    "Oklahoma",
    "Pass",
    "Phase",
    "ResultKind",
    "Rules",
    "RulesError",
    "SeatTotal",
    "SeatView",
    "Source",
    "StarterRule",
    "TakeUpcard",
    "UnknownRulesError",
    "best_arrangement",
    "deadwood",
    "deal",
    "deal_named",
    "new_hand",
    "new_match",
    "rules_named",
    "shuffled_deck",
]
