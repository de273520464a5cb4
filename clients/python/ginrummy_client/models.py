"""Typed, read-only mirrors of the protocol's JSON: actions, views, results, match summaries.

Each class has ``from_wire(dict)`` (and actions ``to_wire()``), following docs/protocol.md.
Parsing is lenient about fields this client does not know (a newer server may add some: they
stay reachable through ``raw``) and strict about the ones they need (a missing one raises
:class:`ProtocolError`). Each lives in the module of its idea and is named here too:
:mod:`.actions` (the moves), :mod:`.views` (what a seat sees), :mod:`.results` (how a hand
and a match end) and :mod:`.summaries` (the REST answers about players and matches).

>>> a = Action.from_wire({"kind": "knock", "card": "7h"})
>>> a, a.to_wire()
(knock('7h'), {'kind': 'knock', 'card': '7h'})
>>> DRAW_STOCK.to_wire()
{'kind': 'draw', 'source': 'stock'}
>>> str(discard("Td"))
'x Td'

This module never does I/O.
"""

from __future__ import annotations

from .actions import DRAW_DISCARD, DRAW_STOCK, PASS, TAKE_UPCARD, Action, discard, knock
from .results import HandResult, Layoff, Outcome, SeatTotal
from .summaries import Invite, MatchSummary, MatchTicket, PlayerIdentity
from .views import Event, HandView, MatchView, PlayerInfo, RulesInfo

__all__ = [
    "DRAW_DISCARD",
    "DRAW_STOCK",
    "PASS",
    "TAKE_UPCARD",
    "Action",
    "Event",
    "HandResult",
    "HandView",
    "Invite",
    "Layoff",
    "MatchSummary",
    "MatchTicket",
    "MatchView",
    "Outcome",
    "PlayerIdentity",
    "PlayerInfo",
    "RulesInfo",
    "SeatTotal",
    "discard",
    "knock",
]
