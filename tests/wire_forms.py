"""The rules engine's values in their wire form, as plain JSON values, for tests that are about
what goes on the wire. Every shape comes from its one definition, the Structs of
:mod:`server.wire.messages`, through :mod:`server.wire.convert`; nothing here restates one.
"""

from __future__ import annotations

from typing import Any

import msgspec

from server.rules import Action, Event, HandLog, HandResult, MatchOutcome, MatchView, Rules, SeatView
from server.wire import convert
from server.wire import messages as w

ENVELOPE = (
    "match_id",
    "status",
    "version",
    "players",
    "status_line",
    "time_control",
    "clock",
    "claim_at",
    "claim_in_ms",
    "rematch",
)
"""The fields of a ``state`` message's view that come from the match row (and the service's
clocks), not from the rules."""


def match_view(mv: MatchView, *, playable: bool = True, **envelope: Any) -> w.View:
    """``mv`` as the ``view`` of a ``state`` message; the match row's fields (``envelope``) are
    placeholders unless given."""
    last = mv.last_result
    fields: dict[str, Any] = {
        "match_id": "m_test",
        "status": "active",
        "version": 1,
        "players": [],
        "status_line": "",
        "time_control": w.TimeControl(),
        "clock": None,
        "claim_at": None,
        "claim_in_ms": None,
        "rematch": None,
        **envelope,
    }
    return w.View(
        seat=mv.seat,
        rules=convert.rules_view(mv.rules),
        hand_number=mv.hand_number,
        scores=list(mv.scores),
        hands_won=list(mv.hands_won),
        hand=convert.hand_view(mv.hand, playable=playable, deal_commitment=mv.deal_commitment),
        last_result=convert.hand_result(last) if last is not None else None,
        outcome=convert.outcome(mv.outcome),
        **fields,
    )


def wire(value: Any) -> Any:
    """``value`` (a rules value) as the plain JSON values the wire carries for it. A match view
    comes without the match row's fields (those of :data:`ENVELOPE`)."""
    match value:
        case MatchView():
            out = msgspec.to_builtins(match_view(value))
            return {k: v for k, v in out.items() if k not in ENVELOPE}
        case SeatView():
            struct: Any = convert.hand_view(value)
        case HandResult():
            struct = convert.hand_result(value)
        case Event():
            struct = convert.event(value)
        case Action():
            struct = convert.action(value)
        case Rules():
            struct = convert.rules_view(value)
        case MatchOutcome():
            struct = convert.outcome(value)
        case HandLog():
            struct = convert.hand_record(value, None)
        case _:
            raise TypeError(f"no wire form for {value!r}")
    return msgspec.to_builtins(struct)
