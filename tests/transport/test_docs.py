"""The generated documents stay exact: docs/protocol.schema.json, docs/asyncapi.json and the
examples and schema in docs/protocol.md are what the server's own definitions generate, the
served copies are the same, and every error code and close code the protocol lists is one the
server uses."""

from __future__ import annotations

import json
import re
import typing
from pathlib import Path

import msgspec
import pytest

from server.service import errors
from server.transport import documents, ws
from server.transport.errors import HTTP_STATUS
from server.transport.openapi import openapi_document
from server.wire import messages as w
from server.wire.schema import protocol_schema

DOCS = Path(__file__).resolve().parents[2] / "docs"
PROTOCOL = DOCS / "protocol.md"
REGENERATE = "regenerate: python -m server.transport.documents"


@pytest.mark.parametrize("name", sorted(documents.JSON_DOCUMENTS))
def test_each_generated_document_in_docs_is_exactly_what_the_server_generates(name):
    on_disk = (DOCS / name).read_text(encoding="utf-8")
    assert on_disk == documents.dumps(documents.JSON_DOCUMENTS[name]()), REGENERATE


def test_the_examples_and_the_schema_in_protocol_md_are_regenerated_from_a_real_match():
    text = PROTOCOL.read_text(encoding="utf-8")
    assert documents.generated_block_names(text) == ["session", "view", "client-schema"]
    assert text == documents.protocol_md(text), REGENERATE


def test_the_example_view_and_session_are_valid_messages():
    decoder = msgspec.json.Decoder(w.ServerMessage)
    client = msgspec.json.Decoder(w.ClientMessage)
    for direction, message in documents.example_session():
        (decoder if direction == "←" else client).decode(json.dumps(message))
    view = msgspec.convert(documents.example_view(), w.View)
    assert view.hand.cards == view.hand.hand and view.hand.legal_actions


async def test_the_documents_are_served(make_client):
    client = await make_client()
    for path, doc in [
        ("/api/protocol.schema.json", protocol_schema()),
        ("/api/asyncapi.json", documents.JSON_DOCUMENTS["asyncapi.json"]()),
        ("/api/openapi.json", openapi_document()),
    ]:
        r = await client.get(path)
        assert r.status == 200 and (await r.json()) == doc, path


def test_the_documented_websocket_error_codes_are_exactly_the_servers():
    text = PROTOCOL.read_text(encoding="utf-8")
    table = text.split("Error codes:", 1)[1].split("\n\n", 2)[1]
    codes = set(re.findall(r"^\| `(\w+)` \|", table, re.M))
    assert codes == set(typing.get_args(w.WsErrorCode))
    service_codes = {
        cls.code
        for cls in vars(errors).values()
        if isinstance(cls, type) and issubclass(cls, errors.ServiceError) and cls is not errors.ServiceError
    }
    assert codes <= service_codes


def test_one_condition_has_one_code_and_every_code_one_http_status():
    service_codes = {
        cls.code
        for cls in vars(errors).values()
        if isinstance(cls, type) and issubclass(cls, errors.ServiceError) and cls is not errors.ServiceError
    }
    assert service_codes | {"internal"} == set(typing.get_args(w.ErrorCode)) == set(HTTP_STATUS)
    assert not {"bad_message", "unknown_match"} & set(HTTP_STATUS)


def test_the_documented_close_codes_are_the_servers():
    text = PROTOCOL.read_text(encoding="utf-8")
    documented = {
        int(c) for c in re.findall(r"`(\d{4})`", text.split("### Close codes", 1)[1].split("##", 1)[0])
    }
    used = {
        1000,
        1001,
        1009,
        ws.CLOSE_FORBIDDEN_ORIGIN,
        ws.CLOSE_UNAUTHORIZED,
        ws.CLOSE_UNKNOWN_MATCH,
        ws.CLOSE_ABUSE,
        ws.CLOSE_SLOW_CONSUMER,
        ws.CLOSE_TRY_AGAIN,
    }
    assert documented == used


def _walk(node, path=""):
    if isinstance(node, dict):
        yield path, node
        for k, v in node.items():
            yield from _walk(v, f"{path}/{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _walk(v, f"{path}/{i}")


@pytest.mark.parametrize("name", ["protocol", "openapi", "asyncapi"])
def test_the_schemas_say_what_is_always_there_and_type_every_array(name):
    doc = {
        "protocol": protocol_schema,
        "openapi": openapi_document,
        "asyncapi": documents.JSON_DOCUMENTS["asyncapi.json"],
    }[name]()
    for path, node in _walk(doc):
        assert "discriminator" not in node, path
        if node.get("type") == "array":
            assert "items" in node, f"untyped array at {path}"
        if node.get("type") == "object" and "properties" in node and "title" in node:
            struct = getattr(w, node["title"], None)
            if isinstance(struct, type) and issubclass(struct, msgspec.Struct):
                info = msgspec.inspect.type_info(struct)
                always = {f.encode_name for f in info.fields if f.required}
                assert always <= set(node.get("required", [])), path


def test_the_enums_come_from_the_registries():
    from server.bots import DIFFICULTIES
    from server.rules import RULES

    comps = openapi_document()["components"]["schemas"]
    assert comps["CreateMatch"]["properties"]["rules"]["enum"] == sorted(RULES)
    assert comps["CreateMatch"]["properties"]["difficulty"]["enum"] == sorted(DIFFICULTIES)


async def test_asyncapi_server_and_channel_addresses_join_into_the_real_socket_paths(make_client):
    doc = documents.JSON_DOCUMENTS["asyncapi.json"]()
    client = await make_client()
    for server in doc["servers"].values():
        base = server.get("pathname", "").rstrip("/")
        paths = {name: base + channel["address"] for name, channel in doc["channels"].items()}
        assert paths == {"play": "/ws", "lobby": "/ws/lobby"}
        for path in paths.values():
            ws = await client.ws_connect(path)  # a real socket, not a 404
            await ws.close()
