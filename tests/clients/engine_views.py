"""Views in the exact wire shape, produced by the rules engine, for the client's offline tests.

The client package itself never sees the engine: these tests feed it JSON, as the server would,
so that the client's parsing, commands and rendering are checked against every situation the
rules can produce, not against hand-written samples only.
"""

from __future__ import annotations

from typing import Any

import msgspec

from server.rules import MatchState
from server.wire import messages as w
from tests.wire_forms import match_view

PLAYERS = [
    {"seat": 0, "name": "Ada", "kind": "human", "connected": True},
    {"seat": 1, "name": "Computer (Hard)", "kind": "computer", "connected": True},
]


def wire_view(
    match: MatchState, seat: int | None, *, version: int = 1, match_id: str = "m_test"
) -> dict[str, Any]:
    """The ``view`` of a ``state`` message for ``seat`` (the protocol's envelope fields added)."""
    view = match_view(
        match.view(seat),
        match_id=match_id,
        status="finished" if match.is_over else "active",
        version=version,
        players=[w.Player(**p) for p in PLAYERS],
    )
    out: dict[str, Any] = msgspec.to_builtins(view)
    return out
