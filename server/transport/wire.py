"""Decoding what clients send: REST request bodies and WebSocket client messages, into the
Structs of :mod:`server.wire.messages`.

Decoding refuses unknown fields, missing fields and wrong types with a message naming the
field (``bad_request``); it never touches the service. JSON nested deeper than the decoder's
recursion limit (``[[[[…``) is ``bad_request`` too, never an exception out of here.
"""

from __future__ import annotations

from typing import Any

import msgspec

from server.service.errors import BadRequest
from server.wire.messages import Act, ClientMessage, Hello, Ping

__all__ = ["Act", "ClientMessage", "Hello", "Ping", "decode_body", "decode_client_message", "message_id"]

_client_decoder = msgspec.json.Decoder(ClientMessage)
_TOO_DEEP = "the JSON is nested too deeply"


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
    except RecursionError:
        raise BadRequest(_TOO_DEEP) from None


def decode_client_message(text: str | bytes) -> Hello | Act | Ping:
    try:
        return _client_decoder.decode(text)
    except msgspec.ValidationError as e:
        raise BadRequest(f"invalid message: {e}") from e
    except msgspec.DecodeError as e:
        raise BadRequest(f"not a JSON message: {e}") from e
    except RecursionError:
        raise BadRequest(_TOO_DEEP) from None


def message_id(text: str | bytes) -> str | None:
    """The ``id`` of a message that failed to decode, when it has a usable one (so the error
    can name it): one the decoder would accept as an ``id``, so never one with a NUL."""
    try:
        data = msgspec.json.decode(text)
    except (msgspec.DecodeError, RecursionError):
        return None
    if isinstance(data, dict):
        value = data.get("id")
        if isinstance(value, str) and 0 < len(value) <= 64 and "\x00" not in value:
            return value
    return None
