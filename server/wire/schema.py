"""JSON Schemas of the wire Structs, for every generated document: ``docs/protocol.schema.json``
(JSON Schema 2020-12), the OpenAPI 3.1 components and the AsyncAPI 3.0 components.

msgspec marks a tagged union with an OpenAPI ``discriminator`` (with a ``mapping``); it is
dropped here, so the documents are plain JSON Schema that Ajv compiles in strict mode: each
member of a union already requires its own tag value, so a plain ``anyOf`` says the same.
"""

from __future__ import annotations

import functools
from typing import Any

import msgspec

from . import analysis as wa
from . import ladder as lw
from . import messages as w
from .export import ExportedMatch

CLIENT_MESSAGES = (w.Hello, w.Act, w.Ping)
SERVER_MESSAGES = (w.State, w.Ack, w.Error, w.Pong)
LOBBY_CLIENT_MESSAGES = (w.Seek, w.CancelSeek, w.Ping)
LOBBY_SERVER_MESSAGES = (w.Seeking, w.Paired, w.SeekCancelled, w.Error, w.Pong)

REST_BODIES: tuple[Any, ...] = (
    w.CreatePlayer,
    w.CreateMatch,
    w.JoinMatch,
    w.NewPlayer,
    w.Me,
    w.Stats,
    w.MatchSummary,
    w.CreatedMatch,
    w.JoinedMatch,
    w.MatchDetails,
    w.MatchList,
    w.MatchRecord,
    w.RulePresets,
    w.Difficulties,
    w.ErrorResponse,
    w.Health,
    w.AddPassword,
    w.SignIn,
    w.SignedIn,
    w.Account,
    w.SessionList,
    w.RevokedSessions,
    w.PasskeyOptions,
    w.PasskeyAnswer,
    w.PasskeyInfo,
    w.PasskeyList,
    w.PlayerRating,
    w.RatingHistory,
    w.PlayerPage,
    w.Leaderboard,
    w.ChallengeList,
    w.Lobby,
    ExportedMatch,
    wa.MatchAnalysis,
    wa.Hint,
    lw.Ladder,
    lw.LadderPairs,
    lw.LadderEnrolled,
    lw.LadderMatches,
)


def _plain(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _plain(v) for k, v in node.items() if k != "discriminator"}
    if isinstance(node, list):
        return [_plain(v) for v in node]
    return node


def components(types: tuple[Any, ...], ref_template: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """``(one schema per type, the named components they refer to)``, discriminators dropped."""
    refs, comps = msgspec.json.schema_components(types, ref_template=ref_template)
    return _plain(list(refs)), _plain(comps)


@functools.cache
def protocol_schema() -> dict[str, Any]:
    """The JSON Schema document of every WebSocket message of protocol v1, both ways
    (``docs/protocol.schema.json``)."""
    (client, server, lobby_client, lobby_server), defs = components(
        (w.ClientMessage, w.ServerMessage, w.LobbyClientMessage, w.LobbyServerMessage),
        ref_template="#/$defs/{name}",
    )
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://ginrummy.invalid/protocol.schema.json",
        "title": "Gin Rummy protocol v1 WebSocket messages",
        "$defs": {
            **defs,
            "ClientMessage": client,
            "ServerMessage": server,
            "LobbyClientMessage": lobby_client,
            "LobbyServerMessage": lobby_server,
        },
        "anyOf": [
            {"$ref": "#/$defs/ClientMessage"},
            {"$ref": "#/$defs/ServerMessage"},
            {"$ref": "#/$defs/LobbyClientMessage"},
            {"$ref": "#/$defs/LobbyServerMessage"},
        ],
    }


def client_message_schema() -> dict[str, Any]:
    """One JSON Schema for every WebSocket client message (printed in docs/protocol.md)."""
    (client,), defs = components((w.ClientMessage,), ref_template="#/$defs/{name}")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Gin Rummy protocol v1: client message",
        **client,
        "$defs": defs,
    }
