"""Wire messages validated with msgspec: REST request bodies and WebSocket client messages.

Decoding refuses unknown fields, missing fields and wrong types with a message naming the
field; it never touches the service. Actions stay plain dicts here and are parsed by the rules
engine (``Action.from_wire``), the one authority on what an action is.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta, Struct

from server.bots import DIFFICULTIES
from server.rules import RULES
from server.service.errors import BadMessage, BadRequest

Name = Annotated[str, Meta(min_length=1, max_length=40, description="Display name, 1 to 40 characters")]
ClientId = Annotated[str, Meta(min_length=1, max_length=64, description="The client's id for this action")]
Version = Annotated[int, Meta(ge=0)]


RuleName = Literal[tuple(RULES)]  # type: ignore[valid-type]
DifficultyName = Literal[tuple(DIFFICULTIES)]  # type: ignore[valid-type]


class CreatePlayer(Struct, forbid_unknown_fields=True):
    name: Name


class CreateMatch(Struct, forbid_unknown_fields=True):
    opponent: Literal["computer", "human"] = "computer"
    difficulty: DifficultyName = "normal"
    rules: RuleName = "house"


class JoinMatch(Struct, forbid_unknown_fields=True):
    invite: Annotated[str, Meta(min_length=1, max_length=64)]


class Hello(Struct, tag="hello", tag_field="type", forbid_unknown_fields=True):
    match: Annotated[str, Meta(min_length=1, max_length=64)]
    token: Annotated[str, Meta(min_length=1, max_length=128)]
    version: Version | None = None


class Act(Struct, tag="act", tag_field="type", forbid_unknown_fields=True):
    id: ClientId
    version: Version
    action: dict[str, Any]


class Ping(Struct, tag="ping", tag_field="type", forbid_unknown_fields=True):
    pass


ClientMessage = Hello | Act | Ping

_client_decoder = msgspec.json.Decoder(ClientMessage)


def decode_body(data: bytes, type_: type[Any]) -> Any:
    """A REST body; an empty body means all defaults."""
    if not data.strip():
        data = b"{}"
    try:
        return msgspec.json.decode(data, type=type_)
    except msgspec.ValidationError as e:
        raise BadRequest(f"invalid request body: {e}") from e
    except msgspec.DecodeError as e:
        raise BadRequest(f"the body is not valid JSON: {e}") from e


def decode_client_message(text: str | bytes) -> Hello | Act | Ping:
    try:
        return _client_decoder.decode(text)
    except msgspec.ValidationError as e:
        raise BadMessage(f"invalid message: {e}") from e
    except msgspec.DecodeError as e:
        raise BadMessage(f"not a JSON message: {e}") from e


def message_id(text: str | bytes) -> str | None:
    """The ``id`` of a message that failed to decode, when it has a usable one (so the error
    can name it)."""
    try:
        data = msgspec.json.decode(text)
    except msgspec.DecodeError:
        return None
    if isinstance(data, dict):
        value = data.get("id")
        if isinstance(value, str) and 0 < len(value) <= 64:
            return value
    return None


_CARD_SCHEMA = {"type": "string", "pattern": "^[A2-9TJQK][cdhs]$"}
ACTION_SCHEMA: dict[str, Any] = {
    "title": "Action",
    "oneOf": [
        {
            "type": "object",
            "properties": {"kind": {"enum": ["take_upcard", "pass"]}},
            "required": ["kind"],
            "additionalProperties": False,
        },
        {
            "type": "object",
            "properties": {"kind": {"enum": ["draw"]}, "source": {"enum": ["stock", "discard"]}},
            "required": ["kind", "source"],
            "additionalProperties": False,
        },
        {
            "type": "object",
            "properties": {"kind": {"enum": ["discard", "knock"]}, "card": _CARD_SCHEMA},
            "required": ["kind", "card"],
            "additionalProperties": False,
        },
    ],
}


def schemas() -> dict[str, Any]:
    """JSON Schemas of every message above (for the OpenAPI document and the protocol docs);
    the action inside ``act`` is described exactly (the rules engine parses it)."""
    _, components = msgspec.json.schema_components(
        [CreatePlayer, CreateMatch, JoinMatch, Hello, Act, Ping], ref_template="#/components/schemas/{name}"
    )
    components["Act"]["properties"]["action"] = {"$ref": "#/components/schemas/Action"}
    components["Action"] = ACTION_SCHEMA
    return components


def client_message_schema() -> dict[str, Any]:
    """One JSON Schema for every WebSocket client message (printed in docs/protocol.md)."""
    components = schemas()
    defs = {name: components[name] for name in ("Hello", "Act", "Ping", "Action")}
    text = msgspec.json.encode(defs).decode().replace("#/components/schemas/", "#/$defs/")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Gin Rummy protocol v1: client message",
        "oneOf": [{"$ref": f"#/$defs/{name}"} for name in ("Hello", "Act", "Ping")],
        "$defs": msgspec.json.decode(text),
    }
