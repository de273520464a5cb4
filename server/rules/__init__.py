"""The pure Gin Rummy core: cards, melds, actions, one hand's phase machine, settlement,
matches and per-seat views.

It never does I/O, never reads the clock and never touches the global random generator: a hand
is determined by its deal and its actions, so everything here replays exactly. (The rule presets
are read once, at import, from the data files in ``seeds/rules/``.)

Public API::

    Card.parse("Td"), str(card), DECK
    deadwood(cards) -> int, best_arrangement(cards) -> Arrangement
    new_hand(rules, starter=..., hands=(...), upcard=..., stock=[top, ...]), deal(rules, starter, seed)
    HandState: to_act, phase, legal_actions(), apply(action), result, view(seat)
    Action.from_wire(d) / action.to_wire(); HandResult.to_wire()
    new_match(rules, seed), MatchState, RULES["house"], RULES["classic"]
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
from .errors import IllegalActionError, InvalidActionError, InvalidCardError, NotYourTurnError, RulesError
from .hand import Event, HandState, Phase, SeatView, deal, new_hand, shuffled_deck
from .match import HandLog, MatchOutcome, MatchState, MatchView, SeatTotal, new_match
from .melds import Arrangement, Meld, MeldKind, best_arrangement, deadwood
from .presets import RULES, Rules, StarterRule
from .settle import HandResult, Layoff, ResultKind

__all__ = [
    "DECK",
    "DRAW_DISCARD",
    "DRAW_STOCK",
    "PASS",
    "RULES",
    "TAKE_UPCARD",
    "Action",
    "Arrangement",
    "Card",
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
    "best_arrangement",
    "deadwood",
    "deal",
    "new_hand",
    "new_match",
    "shuffled_deck",
]
