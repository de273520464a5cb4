"""The OpenAPI 3.1 document of the REST API (``/api/openapi.json``) and a self-contained,
readable HTML page of it (``/api/docs``; no script or stylesheet from elsewhere).

Request schemas come from the msgspec structs that validate them (:mod:`.wire`), so the
document cannot drift from what the server accepts. The WebSocket protocol is described in
docs/protocol.md; its client messages' schemas are included here as components too.
"""

from __future__ import annotations

import functools
import html
import json
from typing import Any

from server.rules import RULES

from .wire import schemas

ERROR_CODES = {
    400: ("bad_request", "malformed JSON, unknown or missing fields, bad values"),
    401: ("unauthorized", "missing or unknown token"),
    403: ("forbidden", "not your match (or a wrong invite code)"),
    404: ("not_found", "no such match"),
    409: ("conflict", "match_not_over, already_joined, match_over or conflict"),
    413: ("too_large", "the body is over 4 KiB"),
    429: ("rate_limited", "a rate limit was hit: see limit and reset_in, and the Retry-After header"),
}

_SCHEMAS: dict[str, Any] = {
    "Error": {
        "type": "object",
        "required": ["error"],
        "properties": {
            "error": {
                "type": "object",
                "required": ["code", "message"],
                "properties": {
                    "code": {"type": "string", "examples": ["not_found"]},
                    "message": {"type": "string"},
                    "limit": {"type": "string", "description": "429 only: which limit was hit"},
                    "reset_in": {"type": "number", "description": "429 only: seconds until it resets"},
                },
            }
        },
    },
    "NewPlayer": {
        "type": "object",
        "required": ["player_id", "name", "token"],
        "properties": {
            "player_id": {"type": "string", "examples": ["p_1f0c9e2a7b3d4c5e"]},
            "name": {"type": "string", "examples": ["Ada"]},
            "token": {"type": "string", "description": "Shown once; send as Authorization: Bearer TOKEN"},
        },
    },
    "Me": {
        "type": "object",
        "properties": {"player_id": {"type": "string"}, "name": {"type": "string"}},
    },
    "SeatPlayer": {
        "type": "object",
        "properties": {
            "seat": {"type": "integer", "enum": [0, 1]},
            "name": {"type": ["string", "null"]},
            "kind": {"type": "string", "enum": ["human", "computer"]},
        },
    },
    "Outcome": {
        "type": ["object", "null"],
        "properties": {
            "winner": {"type": "integer"},
            "reason": {"type": "string", "enum": ["target", "resign"]},
            "totals": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        k: {"type": "integer"} for k in ("points", "box_bonus", "game_bonus", "total")
                    },
                },
            },
        },
    },
    "MatchSummary": {
        "type": "object",
        "properties": {
            "match_id": {"type": "string", "examples": ["m_Xq3k9sPz0aBcDeFg"]},
            "rules": {"type": "string", "enum": list(RULES)},
            "opponent": {"type": "string", "enum": ["computer", "human"]},
            "difficulty": {"type": ["string", "null"], "enum": ["easy", "normal", "hard", None]},
            "status": {"type": "string", "enum": ["waiting", "active", "finished"]},
            "players": {"type": "array", "items": {"$ref": "#/components/schemas/SeatPlayer"}},
            "scores": {"type": "array", "items": {"type": "integer"}},
            "hands_won": {"type": "array", "items": {"type": "integer"}},
            "hand_number": {"type": "integer"},
            "winner": {"type": ["integer", "null"]},
            "outcome": {"$ref": "#/components/schemas/Outcome"},
            "created_at": {"type": "string", "format": "date-time"},
            "updated_at": {"type": "string", "format": "date-time"},
            "version": {"type": "integer"},
            "seat": {"type": "integer", "enum": [0, 1], "description": "The caller's seat"},
        },
    },
    "CreatedMatch": {
        "allOf": [
            {"$ref": "#/components/schemas/MatchSummary"},
            {
                "type": "object",
                "properties": {
                    "seat": {"type": "integer"},
                    "ws_url": {"type": "string", "examples": ["ws://127.0.0.1:8080/ws"]},
                    "watch_token": {"type": "string", "description": "Lets anyone watch (public view only)"},
                    "invite": {
                        "type": ["object", "null"],
                        "description": "Against a human: redeem with POST /api/matches/{id}/join",
                        "properties": {"code": {"type": "string"}, "url": {"type": "string"}},
                    },
                },
            },
        ]
    },
    "JoinedMatch": {
        "allOf": [
            {"$ref": "#/components/schemas/MatchSummary"},
            {"type": "object", "properties": {"seat": {"type": "integer"}, "ws_url": {"type": "string"}}},
        ]
    },
    "HandResult": {
        "type": "object",
        "description": "A finished hand: both hands revealed, melds, layoffs and the score worked out.",
        "properties": {
            "number": {"type": "integer"},
            "starter": {"type": "integer"},
            "kind": {"type": "string", "enum": ["gin", "knock", "undercut", "dead"]},
            "winner": {"type": ["integer", "null"]},
            "points": {"type": "integer"},
            "knocker": {"type": ["integer", "null"]},
            "deadwood": {"type": "array", "items": {"type": "integer"}},
            "hands": {"type": "array", "items": {"type": "array", "items": {"type": "string"}}},
            "melds": {"type": "array"},
            "unmatched": {"type": "array"},
            "layoffs": {"type": "array"},
            "breakdown": {"type": "string", "examples": ["25 + 8 - 5 = 28"]},
        },
    },
    "MatchDetails": {
        "allOf": [
            {"$ref": "#/components/schemas/MatchSummary"},
            {
                "type": "object",
                "properties": {
                    "hands": {"type": "array", "items": {"$ref": "#/components/schemas/HandResult"}}
                },
            },
        ]
    },
    "MatchList": {
        "type": "object",
        "properties": {
            "matches": {"type": "array", "items": {"$ref": "#/components/schemas/MatchSummary"}},
            "total": {"type": "integer"},
            "limit": {"type": "integer"},
            "offset": {"type": "integer"},
        },
    },
    "MatchRecord": {
        "type": "object",
        "description": "The complete replay: every deal (both hands, upcard, stock top first) and every action.",
        "properties": {
            "match_id": {"type": "string"},
            "seat": {"type": "integer", "description": "The caller's seat"},
            "rules": {"type": "string"},
            "seed": {"type": "string"},
            "first_starter": {"type": "integer"},
            "players": {"type": "array", "items": {"$ref": "#/components/schemas/SeatPlayer"}},
            "outcome": {"$ref": "#/components/schemas/Outcome"},
            "hands": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "number": {"type": "integer"},
                        "starter": {"type": "integer"},
                        "hands": {"type": "array"},
                        "upcard": {"type": "string"},
                        "stock": {"type": "array", "items": {"type": "string"}},
                        "actions": {"type": "array"},
                        "result": {"oneOf": [{"$ref": "#/components/schemas/HandResult"}, {"type": "null"}]},
                    },
                },
            },
        },
    },
    "Stats": {
        "type": "object",
        "properties": {
            k: {"type": "integer"}
            for k in ("matches", "wins", "losses", "hands", "hands_won", "gins", "undercuts", "points")
        },
    },
    "RulePresets": {
        "type": "object",
        "properties": {"rules": {"type": "array", "items": {"type": "object"}}},
    },
    "Difficulties": {
        "type": "object",
        "properties": {"difficulties": {"type": "array", "items": {"type": "object"}}},
    },
}


def _errors(*statuses: int) -> dict[str, Any]:
    return {
        str(s): {
            "description": f"`{ERROR_CODES[s][0]}`: {ERROR_CODES[s][1]}",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
        }
        for s in statuses
    }


def _ok(schema: str, description: str, status: int = 200) -> dict[str, Any]:
    return {
        str(status): {
            "description": description,
            "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}},
        }
    }


def _body(schema: str, required: bool = True) -> dict[str, Any]:
    return {
        "required": required,
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}},
    }


_MATCH_ID = {"name": "match_id", "in": "path", "required": True, "schema": {"type": "string"}}
_AUTH = [{"bearer": []}]


@functools.cache
def openapi_document() -> dict[str, Any]:
    paths: dict[str, Any] = {
        "/api/players": {
            "post": {
                "summary": "Create an anonymous identity",
                "security": [],
                "requestBody": _body("CreatePlayer"),
                **{
                    "responses": {
                        **_ok("NewPlayer", "The new player and its token", 201),
                        **_errors(400, 413, 429),
                    }
                },
            }
        },
        "/api/players/me": {
            "get": {
                "summary": "Who the token belongs to",
                "responses": {**_ok("Me", "The caller"), **_errors(401, 429)},
            }
        },
        "/api/players/me/stats": {
            "get": {
                "summary": "The caller's statistics over finished matches and all hands",
                "responses": {**_ok("Stats", "Counts"), **_errors(401, 429)},
            }
        },
        "/api/matches": {
            "post": {
                "summary": "Create a match against the computer (default) or a human (with an invite)",
                "requestBody": _body("CreateMatch", required=False),
                "responses": {
                    **_ok("CreatedMatch", "The match and how to connect", 201),
                    **_errors(400, 401, 413, 429),
                },
            },
            "get": {
                "summary": "The caller's matches, newest first",
                "parameters": [
                    {
                        "name": "status",
                        "in": "query",
                        "schema": {"type": "string", "enum": ["waiting", "active", "finished"]},
                    },
                    {
                        "name": "rules",
                        "in": "query",
                        "schema": {"type": "string", "enum": list(RULES)},
                    },
                    {
                        "name": "opponent",
                        "in": "query",
                        "schema": {"type": "string", "enum": ["computer", "human"]},
                    },
                    {
                        "name": "limit",
                        "in": "query",
                        "schema": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
                    },
                    {
                        "name": "offset",
                        "in": "query",
                        "schema": {"type": "integer", "minimum": 0, "default": 0},
                    },
                ],
                "responses": {**_ok("MatchList", "A page of match summaries"), **_errors(400, 401, 429)},
            },
        },
        "/api/matches/{match_id}": {
            "get": {
                "summary": "A match: players, rules, status, scores and every finished hand's result",
                "parameters": [_MATCH_ID],
                "responses": {**_ok("MatchDetails", "The match"), **_errors(401, 403, 404, 429)},
            }
        },
        "/api/matches/{match_id}/record": {
            "get": {
                "summary": "The complete replay, once the match is over",
                "parameters": [_MATCH_ID],
                "responses": {**_ok("MatchRecord", "The record"), **_errors(401, 403, 404, 409, 429)},
            }
        },
        "/api/matches/{match_id}/join": {
            "post": {
                "summary": "Take the second seat of a match against a human with its invite code",
                "parameters": [_MATCH_ID],
                "requestBody": _body("JoinMatch"),
                "responses": {
                    **_ok("JoinedMatch", "The match and your seat"),
                    **_errors(400, 401, 403, 404, 409, 429),
                },
            }
        },
        "/api/matches/{match_id}/resign": {
            "post": {
                "summary": "Resign: the other seat wins the match",
                "parameters": [_MATCH_ID],
                "responses": {
                    **_ok("MatchSummary", "The finished match"),
                    **_errors(401, 403, 404, 409, 429),
                },
            }
        },
        "/api/rules": {
            "get": {
                "summary": "The rule presets (" + ", ".join(RULES) + ")",
                "security": [],
                "responses": _ok("RulePresets", "The presets"),
            }
        },
        "/api/difficulties": {
            "get": {
                "summary": "The computer's difficulties (easy, normal, hard), easiest first",
                "security": [],
                "responses": _ok("Difficulties", "The difficulties"),
            }
        },
        "/api/protocol.schema.json": {
            "get": {
                "summary": "JSON Schema of every WebSocket message, both directions",
                "security": [],
                "responses": {"200": {"description": "The schema document"}},
            }
        },
        "/healthz": {
            "get": {
                "summary": "200 {status: ok} once the server is ready",
                "security": [],
                "responses": {"200": {"description": "Ready"}, "503": {"description": "Shutting down"}},
            }
        },
        "/metrics": {
            "get": {
                "summary": "Prometheus metrics (text format)",
                "security": [],
                "responses": {"200": {"description": "Metrics", "content": {"text/plain": {}}}},
            }
        },
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Gin Rummy server",
            "version": "1",
            "description": "REST part of protocol v1. Play happens over the WebSocket at /ws "
            "(see docs/protocol.md): hello, act, ping; the server sends state, ack, error, pong.",
        },
        "servers": [{"url": "/"}],
        "security": _AUTH,
        "paths": paths,
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": {**schemas(), **_SCHEMAS},
        },
    }


@functools.cache
def docs_page() -> str:
    doc = openapi_document()
    out = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        "<title>Gin Rummy API</title><style>",
        "body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.45}",
        "h2{border-top:1px solid #ccc;padding-top:1rem}code,pre{background:#f4f4f4;border-radius:4px}",
        "pre{padding:.6rem;overflow-x:auto;font-size:.85rem}.m{font-weight:bold;color:#064}",
        "</style></head><body>",
        f"<h1>{html.escape(doc['info']['title'])} — API v{doc['info']['version']}</h1>",
        f"<p>{html.escape(doc['info']['description'])}</p>",
        "<p>Machine-readable: <a href='/api/openapi.json'>/api/openapi.json</a>. Authenticate with "
        "<code>Authorization: Bearer TOKEN</code> (from <code>POST /api/players</code>). Errors are "
        '<code>{"error": {"code", "message"}}</code>.</p>',
    ]
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            out.append(f"<h2><span class='m'>{method.upper()}</span> <code>{html.escape(path)}</code></h2>")
            out.append(f"<p>{html.escape(op['summary'])}</p>")
            if op.get("security") == []:
                out.append("<p><em>No token needed.</em></p>")
            for p in op.get("parameters", []):
                out.append(
                    f"<p>Parameter <code>{html.escape(p['name'])}</code> ({p['in']}): "
                    f"<code>{html.escape(json.dumps(p['schema']))}</code></p>"
                )
            if "requestBody" in op:
                ref = op["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
                schema = doc["components"]["schemas"][ref]
                out.append(
                    f"<p>Body <code>{ref}</code>:</p><pre>{html.escape(json.dumps(schema, indent=2))}</pre>"
                )
            out.append("<ul>")
            for status, resp in op["responses"].items():
                out.append(f"<li><code>{status}</code> {html.escape(resp['description'])}</li>")
            out.append("</ul>")
    out.append("<h2>Schemas</h2>")
    for name, schema in doc["components"]["schemas"].items():
        out.append(f"<h3 id='{name}'>{name}</h3><pre>{html.escape(json.dumps(schema, indent=2))}</pre>")
    out.append("</body></html>")
    return "\n".join(out)
