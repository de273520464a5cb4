"""The generated documents as other tools read them: every schema compiles in Ajv's strict mode,
every message and REST answer of real matches (against the computer, and two humans with a
watcher) validates against them, and openapi-typescript types what is always there as required.

Needs Node (skipped, saying so, without it) and ``npm ci --prefix tests/js``."""

from __future__ import annotations

import re
from typing import Any

from server.transport.asyncapi import asyncapi_document
from server.transport.keys import SERVICE
from server.transport.openapi import openapi_document
from server.wire.schema import protocol_schema

from .helpers import Socket, auth, play_match
from .node import ajv, need_node, openapi_typescript


def documents() -> dict[str, Any]:
    return {"protocol": protocol_schema(), "openapi": openapi_document(), "asyncapi": asyncapi_document()}


class Rest:
    """REST calls that keep every answer with the OpenAPI schema documented for it."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.samples: list[dict[str, Any]] = []
        self.paths = [
            (method, re.compile("^" + re.sub(r"\{\w+\}", "[^/]+", path) + "$"), op)
            for path, ops in openapi_document()["paths"].items()
            for method, op in ops.items()
        ]

    async def __call__(self, method: str, path: str, **kwargs: Any) -> tuple[int, Any]:
        r = await self.client.request(method.upper(), path, **kwargs)
        data = await r.json()
        route = path.split("?")[0]
        (op,) = [op for m, rx, op in self.paths if m == method and rx.match(route)]
        ref = op["responses"][str(r.status)]["content"]["application/json"]["schema"]["$ref"]
        self.samples.append({"document": "openapi", "schema": ref.rsplit("/", 1)[-1], "data": data})
        return r.status, data


def ws_samples(sockets: list[Socket], sent: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = [
        {"document": "protocol", "schema": "ServerMessage", "data": m} for s in sockets for m in s.messages
    ]
    out += [{"document": "protocol", "schema": "ClientMessage", "data": m} for m in sent]
    # The AsyncAPI document has the same definitions: a sample of each kind through it too.
    firsts: dict[str, dict[str, Any]] = {}
    for s in sockets:
        for m in s.messages:
            firsts.setdefault(m["type"], m)
    names = {"state": "State", "ack": "Ack", "error": "Error", "pong": "Pong"}
    out += [{"document": "asyncapi", "schema": names[t], "data": m} for t, m in firsts.items()]
    return out


class Recording(Socket):
    sent: list[dict[str, Any]] = []

    async def send(self, message: dict[str, Any]) -> None:
        Recording.sent.append(message)
        await super().send(message)


def test_every_generated_schema_compiles_in_ajv_strict_mode():
    report = ajv(documents(), [])
    assert {
        "protocol:ServerMessage",
        "protocol:ClientMessage",
        "openapi:MatchRecord",
        "asyncapi:State",
    } <= set(report["compiled"])


async def test_every_message_and_answer_of_real_matches_validates_against_the_documents(make_client):
    need_node()
    client = await make_client()
    rest = Rest(client)
    Recording.sent = []
    _, ada = await rest("post", "/api/players", json={"name": "Ada"})
    _, bob = await rest("post", "/api/players", json={"name": "Bob"})
    await rest("get", "/api/players/me", headers=auth(ada))
    await rest("get", "/api/rules")
    await rest("get", "/api/difficulties")
    await rest("get", "/healthz")
    await rest("get", "/api/players/me", headers={"Authorization": "Bearer nope"})
    await rest("post", "/api/matches", json={"rules": "nope"}, headers=auth(ada))

    # Against the computer.
    _, m1 = await rest("post", "/api/matches", json={"difficulty": "easy"}, headers=auth(ada))
    a = await Recording.connect(client)
    await a.hello(m1["match_id"], ada["token"])
    await a.send({"type": "ping"})
    await a.recv_until("pong")
    # Refused (not a card): an error message. Sent around the recorder, as it is invalid.
    await a.ws.send_json(
        {"type": "act", "id": "bad", "version": 0, "action": {"kind": "knock", "card": "Zz"}}
    )
    await a.recv_until("error")
    await play_match(client, [a], seed=3)

    # Two humans and a watcher.
    _, m2 = await rest(
        "post", "/api/matches", json={"opponent": "human", "rules": "classic"}, headers=auth(ada)
    )
    await rest("get", f"/api/matches/{m2['match_id']}/record", headers=auth(ada))  # 409: not over
    await rest(
        "post",
        f"/api/matches/{m2['match_id']}/join",
        json={"invite": m2["invite"]["code"]},
        headers=auth(bob),
    )
    b0, b1, w = (
        await Recording.connect(client),
        await Recording.connect(client),
        await Recording.connect(client),
    )
    await b0.hello(m2["match_id"], ada["token"])
    await b1.hello(m2["match_id"], bob["token"])
    await w.hello(m2["match_id"], m2["watch_token"])
    await play_match(client, [b0, b1], seed=4)
    while not (w.state and w.state["view"]["status"] == "finished"):
        await w.recv_until("state")

    _, m3 = await rest("post", "/api/matches", json={"difficulty": "hard"}, headers=auth(bob))
    await rest("post", f"/api/matches/{m3['match_id']}/resign", headers=auth(bob))
    for m in (m1, m2, m3):
        await rest("get", f"/api/matches/{m['match_id']}", headers=auth(ada if m is not m3 else bob))
        await rest("get", f"/api/matches/{m['match_id']}/record", headers=auth(ada if m is not m3 else bob))
    await rest("get", "/api/matches/m_nope", headers=auth(ada))
    await rest("get", "/api/matches?limit=5", headers=auth(ada))
    await rest("get", "/api/players/me/stats", headers=auth(ada))

    # Ratings and the lobby: a public rated challenge, accepted twice (the second: 409), resigned.
    body = {"opponent": "human", "rated": True, "public": True}
    _, m4 = await rest("post", "/api/matches", json=body, headers=auth(ada))
    await rest("get", "/api/challenges")
    await rest("get", "/api/lobby")
    await rest("post", f"/api/challenges/{m4['match_id']}/accept", headers=auth(bob))
    await rest("post", f"/api/challenges/{m4['match_id']}/accept", headers=auth(bob))
    await rest("post", f"/api/matches/{m4['match_id']}/resign", headers=auth(bob))
    await client.app[SERVICE].ratings.drain()
    for path in ("rating", "rating/history", "profile"):
        await rest("get", f"/api/players/{ada['player_id']}/{path}")
    await rest("get", "/api/leaderboard?limit=3")

    sockets = [a, b0, b1, w]
    samples = rest.samples + ws_samples(sockets, Recording.sent)
    kinds = {s["schema"] for s in samples}
    assert {"MatchRecord", "MatchDetails", "ErrorResponse", "CreatedMatch", "JoinedMatch", "Stats"} <= kinds
    assert {m["type"] for s in sockets for m in s.messages} == {"state", "ack", "error", "pong"}
    report = ajv(documents(), samples)
    # (how many depends on the deals, which are random: two whole matches give several hundred)
    assert report["checked"] == len(samples) > 300


async def test_openapi_typescript_types_always_present_fields_as_required(make_client):
    need_node()
    client = await make_client()
    document = await (await client.get("/api/openapi.json")).json()
    ts = openapi_typescript(document)

    def body(name: str) -> str:
        start = ts.index(f"        {name}: {{\n")
        return ts[start : ts.index("\n        };\n", start)]

    summary = body("MatchSummary")
    assert "match_id: string;" in summary and "version: number;" in summary
    assert 'outcome: components["schemas"]["Outcome"] | null;' in summary
    assert "seat?: number;" in summary  # the one field that is sometimes absent
    hand_record = body("HandRecord")
    assert 'actions: components["schemas"]["RecordedAction"][];' in hand_record
    assert "unknown[]" not in ts
    assert 'rules: components["schemas"]["RulePreset"][];' in body("RulePresets")
    assert "?:" not in body("MatchRecord") and "?:" not in body("CreatedMatch").split("seat")[0]
