"""The protocol document stays exact: its JSON Schema is the one the server validates with, and
every error code and close code it lists is one the server uses."""

from __future__ import annotations

import json
import re
from pathlib import Path

from server.service import errors
from server.transport import ws
from server.transport.wire import client_message_schema

PROTOCOL = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def test_the_documented_client_message_schema_is_the_one_the_server_uses():
    text = PROTOCOL.read_text(encoding="utf-8")
    block = text.split("## JSON Schema of the client messages", 1)[1]
    documented = json.loads(re.search(r"```json\n(.*?)\n```", block, re.S).group(1))
    assert documented == client_message_schema()


def test_every_documented_websocket_error_code_exists():
    text = PROTOCOL.read_text(encoding="utf-8")
    listed = re.search(r"Error codes: (.*?)\. An error never", text, re.S).group(1)
    codes = set(re.findall(r"`(\w+)`(?! from)", listed))
    known = {
        cls.code
        for cls in vars(errors).values()
        if isinstance(cls, type) and issubclass(cls, errors.ServiceError)
    }
    known |= {
        cls.ws_code
        for cls in vars(errors).values()
        if isinstance(cls, type) and issubclass(cls, errors.ServiceError) and cls.ws_code
    }
    assert codes == {
        "bad_message",
        "unauthorized",
        "unknown_match",
        "not_your_turn",
        "illegal_action",
        "stale_version",
        "rate_limited",
        "too_large",
    }
    assert codes <= known


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
