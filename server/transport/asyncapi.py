"""The AsyncAPI 3.0 document of the WebSocket ``/ws`` (``/api/asyncapi.json`` and
``docs/asyncapi.json``): the match channel (``/ws``) and quick pairing's lobby channel
(``/ws/lobby``), their messages both ways, and what answers what.

The message payloads are generated from the Structs of :mod:`server.wire.messages`; the prose
(phases, versions, close codes) is docs/protocol.md.
"""

from __future__ import annotations

import functools
from typing import Any

from server.wire.schema import (
    CLIENT_MESSAGES,
    LOBBY_CLIENT_MESSAGES,
    LOBBY_SERVER_MESSAGES,
    SERVER_MESSAGES,
    components,
)

_CHANNEL = {"$ref": "#/channels/play"}
_LOBBY = {"$ref": "#/channels/lobby"}

_SUMMARIES = {
    "hello": "Bind the socket to a seat (player token) or as a watcher (watch token)",
    "act": "Play an action at the version the client saw",
    "ping": "Keep-alive; answered by pong",
    "state": "The seat's whole view: after hello and after every change of the match",
    "ack": "The act named by id was applied (the new state follows)",
    "error": "A message was refused; nothing changed",
    "pong": "Answers ping",
    "seek": "Seek a quick pairing (lobby socket): rules, time control, rated, computer fallback",
    "cancel": "Withdraw this socket's seek (lobby socket)",
    "seeking": "The seek is open, waiting for a compatible one",
    "paired": "The seek is in a match: open it on /ws with the same player token",
    "cancelled": "The seek was withdrawn",
}


def _tag(struct: Any) -> str:
    tag: str = struct.__struct_config__.tag
    return tag


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/channels/play/messages/{name}"}


def _lobby(name: str) -> dict[str, str]:
    return {"$ref": f"#/channels/lobby/messages/{name}"}


@functools.cache
def asyncapi_document() -> dict[str, Any]:
    structs = tuple(
        dict.fromkeys((*CLIENT_MESSAGES, *SERVER_MESSAGES, *LOBBY_CLIENT_MESSAGES, *LOBBY_SERVER_MESSAGES))
    )
    refs, schemas = components(structs, ref_template="#/components/schemas/{name}")
    messages = {
        _tag(s): {
            "name": _tag(s),
            "title": s.__name__,
            "summary": _SUMMARIES[_tag(s)],
            "contentType": "application/json",
            "payload": ref,
        }
        for s, ref in zip(structs, refs, strict=True)
    }
    operations = {
        "receiveHello": {
            "action": "receive",
            "channel": _CHANNEL,
            "summary": "hello: answered by the seat's state (or an error, and a close for 4001/4004, or 1013 to try again)",
            "messages": [_ref("hello")],
            "reply": {"channel": _CHANNEL, "messages": [_ref("state"), _ref("error")]},
        },
        "receiveAct": {
            "action": "receive",
            "channel": _CHANNEL,
            "summary": "act: answered by ack then the new state, or by an error naming its id",
            "messages": [_ref("act")],
            "reply": {"channel": _CHANNEL, "messages": [_ref("ack"), _ref("error")]},
        },
        "receivePing": {
            "action": "receive",
            "channel": _CHANNEL,
            "messages": [_ref("ping")],
            "reply": {"channel": _CHANNEL, "messages": [_ref("pong")]},
        },
        "sendState": {
            "action": "send",
            "channel": _CHANNEL,
            "summary": "Every change of the match (either seat's action, the computer's, a join, "
            "a resignation, a player connecting or leaving) reaches every socket as its own state",
            "messages": [_ref("state")],
        },
        "receiveSeek": {
            "action": "receive",
            "channel": _LOBBY,
            "summary": "seek: answered by seeking, or at once by paired; later paired (both seekers at once)",
            "messages": [_lobby("seek")],
            "reply": {"channel": _LOBBY, "messages": [_lobby("seeking"), _lobby("paired"), _lobby("error")]},
        },
        "receiveCancel": {
            "action": "receive",
            "channel": _LOBBY,
            "summary": "cancel: answered by cancelled, or paired when the seek was paired first",
            "messages": [_lobby("cancel")],
            "reply": {
                "channel": _LOBBY,
                "messages": [_lobby("cancelled"), _lobby("paired"), _lobby("error")],
            },
        },
        "receiveLobbyPing": {
            "action": "receive",
            "channel": _LOBBY,
            "messages": [_lobby("ping")],
            "reply": {"channel": _LOBBY, "messages": [_lobby("pong")]},
        },
    }
    lobby = ("seek", "cancel", "ping", "seeking", "paired", "cancelled", "error", "pong")
    return {
        "asyncapi": "3.0.0",
        "info": {
            "title": "Gin Rummy protocol v1 WebSocket",
            "version": "1",
            "description": "Play over one WebSocket: the client sends hello, act and ping; the "
            "server sends state, ack, error and pong. See docs/protocol.md for the phases, "
            "versions and close codes, and /api/openapi.json for the REST part.",
        },
        "defaultContentType": "application/json",
        "servers": {
            # No pathname: a tool joins the server's URL, its pathname and a channel's address,
            # and each address is already the whole path (/ws, /ws/lobby).
            "local": {"host": "127.0.0.1:8080", "protocol": "ws"},
        },
        "channels": {
            "play": {
                "address": "/ws",
                "title": "A match, seen from one seat or by a watcher",
                "messages": {
                    name: {"$ref": f"#/components/messages/{name}"}
                    for name in messages
                    if name not in lobby or name in ("ping", "error", "pong")
                },
            },
            "lobby": {
                "address": "/ws/lobby",
                "title": "Quick pairing: one seek per socket, withdrawn when the socket closes",
                "messages": {name: {"$ref": f"#/components/messages/{name}"} for name in lobby},
            },
        },
        "operations": operations,
        "components": {"messages": messages, "schemas": schemas},
    }
