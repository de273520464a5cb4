"""The protocol document stays exact: its JSON Schema is the one the server validates with, and
every error code and close code it lists is one the server uses."""

from __future__ import annotations

import json
import re
from pathlib import Path

from server.service import errors
from server.transport import ws
from server.transport.messages import protocol_schema
from server.transport.wire import client_message_schema

PROTOCOL = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def test_the_documented_client_message_schema_is_the_one_the_server_uses():
    text = PROTOCOL.read_text(encoding="utf-8")
    block = text.split("## JSON Schema of the client messages", 1)[1]
    documented = json.loads(re.search(r"```json\n(.*?)\n```", block, re.S).group(1))
    assert documented == client_message_schema()


def test_the_documented_websocket_error_codes_are_exactly_the_servers():
    text = PROTOCOL.read_text(encoding="utf-8")
    table = text.split("Error codes:", 1)[1].split("\n\n", 2)[1]
    codes = set(re.findall(r"^\| `(\w+)` \|", table, re.M))
    assert codes == {
        "bad_message",
        "unauthorized",
        "unknown_match",
        "not_your_turn",
        "illegal_action",
        "stale_version",
        "rate_limited",
        "too_large",
        "unavailable",
    }
    ws_codes = {
        cls.ws_code or cls.code
        for cls in vars(errors).values()
        if isinstance(cls, type) and issubclass(cls, errors.ServiceError)
    }
    assert codes <= ws_codes
    assert codes == _error_codes()


def test_the_documented_close_codes_are_the_servers():
    text = PROTOCOL.read_text(encoding="utf-8")
    documented = {int(c) for c in re.findall(r"`(\d{4})`", text.split("### Close codes", 1)[1])}
    used = {
        1000,
        1001,
        1009,
        ws.CLOSE_FORBIDDEN_ORIGIN,
        ws.CLOSE_UNAUTHORIZED,
        ws.CLOSE_UNKNOWN_MATCH,
        ws.CLOSE_ABUSE,
        ws.CLOSE_SLOW_CONSUMER,
    }
    assert documented == used


def test_the_schema_file_is_the_servers_message_definitions():
    path = PROTOCOL.with_name("protocol.schema.json")
    assert json.loads(path.read_text(encoding="utf-8")) == protocol_schema(), (
        "regenerate: python -c 'import json; from server.transport.messages import protocol_schema; "
        "print(json.dumps(protocol_schema(), indent=2))' > docs/protocol.schema.json"
    )


async def test_the_schema_is_served(make_client):
    client = await make_client()
    r = await client.get("/api/protocol.schema.json")
    assert r.status == 200 and (await r.json()) == protocol_schema()


def _error_codes() -> set[str]:
    import typing

    from server.transport.messages import Error

    return set(typing.get_args(typing.get_type_hints(Error)["code"]))
