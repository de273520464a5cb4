"""The server's WebSocket messages (``state``, ``ack``, ``error``, ``pong``) as strict msgspec
types: the documented shape of everything the server sends, down to each field of the view.

They are the source of ``docs/protocol.schema.json`` (a test keeps the file exact) and the tests
decode every message they receive with them, so an undocumented or missing field fails a test.
The server itself builds its messages from the rules engine's views and never needs these to
send; nothing here holds game logic.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, Meta, Struct, UnsetType

from server.rules import RULES

from .wire import client_message_schema

RuleName = Literal[tuple(RULES)]  # type: ignore[valid-type]  # every preset: classic, house, oklahoma

Card = Annotated[
    str, Meta(pattern="^[A2-9TJQK][cdhs]$", description="A card code: rank A23456789TJQK + suit cdhs")
]
Seat = Annotated[int, Meta(ge=0, le=1)]


class _Strict(Struct, forbid_unknown_fields=True, omit_defaults=True):
    pass


# --- actions, as offered in legal_actions --------------------------------------------------------


class TakeUpcard(_Strict, tag="take_upcard", tag_field="kind"):
    pass


class Pass(_Strict, tag="pass", tag_field="kind"):
    pass


class Draw(_Strict, tag="draw", tag_field="kind"):
    source: Literal["stock", "discard"]


class Discard(_Strict, tag="discard", tag_field="kind"):
    card: Card


class Knock(_Strict, tag="knock", tag_field="kind"):
    card: Card


WireAction = TakeUpcard | Pass | Draw | Discard | Knock


# --- the view ------------------------------------------------------------------------------------


class Event(_Strict):
    """One public event of the current hand; a draw from the stock never names its card."""

    seat: Seat
    kind: Literal["take_upcard", "pass", "draw", "discard", "knock"]
    source: Literal["stock", "discard"] | UnsetType = UNSET
    card: Card | UnsetType = UNSET


class Layoff(_Strict):
    card: Card
    meld: Annotated[int, Meta(ge=0, description="Index into the knocker's melds")]


class HandResult(_Strict):
    kind: Literal["gin", "knock", "undercut", "dead"]
    winner: Seat | None
    points: int
    knocker: Seat | None
    deadwood: list[int]
    hands: list[list[Card]]
    melds: list[list[list[Card]]]
    unmatched: list[list[Card]]
    layoffs: list[Layoff]
    breakdown: str


class Hand(_Strict):
    seat: Seat | None
    starter: Seat
    dealer: Seat
    phase: Literal["upcard", "draw", "discard", "over"]
    to_act: Seat | None
    cards: Annotated[
        list[Card], Meta(description="The seat's own cards, in best-meld order (none for a watcher)")
    ]
    hand: Annotated[
        list[Card], Meta(description="Deprecated: the v1 name of `cards` (the same list); removed in v2")
    ]
    melds: list[list[Card]]
    deadwood: int | None
    hand_counts: list[int]
    stock_count: int
    discard_pile: list[Card]
    history: list[Event]
    legal_actions: list[WireAction]
    result: HandResult | None
    knock_limit: Annotated[
        int, Meta(ge=0, le=10, description="The most deadwood a knock may leave in this hand (0: gin only)")
    ]
    multiplier: Annotated[
        int, Meta(ge=1, description="This hand's score multiplier (oklahoma: 2 under a spade upcard)")
    ]
    discard_deadwood: dict[Card, int]


class Player(_Strict):
    seat: Seat
    name: str | None
    kind: Literal["human", "computer"]
    connected: bool


class RulesView(_Strict):
    name: RuleName
    label: str
    description: str
    target: int
    knock_limit: int
    gin_bonus: int
    undercut_bonus: int
    box_bonus: int
    game_bonus: int
    shutout_bonus: int
    starter_rule: Literal["alternate", "winner_starts"]


class Total(_Strict):
    points: int
    box_bonus: int
    game_bonus: int
    total: int


class Outcome(_Strict):
    winner: Seat
    reason: Literal["target", "resign"]
    totals: list[Total]


class View(_Strict):
    match_id: str
    status: Literal["waiting", "active", "finished"]
    seat: Seat | None
    version: int
    players: list[Player]
    rules: RulesView
    hand_number: int
    scores: list[int]
    hands_won: list[int]
    hand: Hand
    last_result: HandResult | None
    outcome: Outcome | None
    status_line: str


# --- messages ------------------------------------------------------------------------------------


class State(_Strict, tag="state", tag_field="type"):
    version: int
    view: View


class Ack(_Strict, tag="ack", tag_field="type"):
    id: str
    version: int


class Error(_Strict, tag="error", tag_field="type"):
    id: str | None
    code: Literal[
        "bad_message",
        "unauthorized",
        "unknown_match",
        "not_your_turn",
        "illegal_action",
        "stale_version",
        "rate_limited",
        "too_large",
        "unavailable",
    ]
    message: str
    limit: str | UnsetType = UNSET
    reset_in: float | UnsetType = UNSET


class Pong(_Strict, tag="pong", tag_field="type"):
    pass


ServerMessage = State | Ack | Error | Pong

_decoder = msgspec.json.Decoder(ServerMessage)


def check_server_message(text: str | bytes) -> State | Ack | Error | Pong:
    """Decode a server message strictly; raises ``msgspec.ValidationError`` if it is not exactly
    as documented."""
    return _decoder.decode(text)


def protocol_schema() -> dict[str, Any]:
    """The JSON Schema document of protocol v1 messages (``docs/protocol.schema.json``)."""
    (server_ref,), components = msgspec.json.schema_components([ServerMessage], ref_template="#/$defs/{name}")
    client = client_message_schema()
    defs = {**components, **client["$defs"]}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Gin Rummy protocol v1 WebSocket messages",
        "$defs": {
            **defs,
            "ClientMessage": {"oneOf": client["oneOf"]},
            "ServerMessage": server_ref,
        },
        "oneOf": [{"$ref": "#/$defs/ClientMessage"}, {"$ref": "#/$defs/ServerMessage"}],
    }
