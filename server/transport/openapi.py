"""The OpenAPI 3.1 document of the REST API (``/api/openapi.json``) and a self-contained,
readable HTML page of it (``/api/docs``; no script or stylesheet from elsewhere).

Every body's schema is generated from its Struct in :mod:`server.wire.messages` (the ones the
handlers encode and decode with), so the document cannot drift from the wire. The WebSocket is
described by the AsyncAPI document (``/api/asyncapi.json``, :mod:`.asyncapi`).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import html
import json
import typing
from typing import Any

from server.rules import RULES
from server.wire import messages as w
from server.wire.schema import REST_BODIES, components

from .errors import HTTP_STATUS
from .openapi_accounts import account_paths
from .openapi_export import LIST_FILTERS, export_paths

_DESCRIBED = {
    400: "malformed JSON, unknown or missing fields, bad values",
    401: "missing or unknown token",
    403: "not your match (or a wrong invite code)",
    404: "no such match (or session, or player)",
    409: "the match's state forbids it (or the username is taken)",
    413: "the body is over 4 KiB",
    429: "a rate limit was hit: see limit and reset_in, and the Retry-After header",
}


def _codes(status: int) -> str:
    return ", ".join(f"`{code}`" for code, s in HTTP_STATUS.items() if s == status)


def _errors(*statuses: int) -> dict[str, Any]:
    return {
        str(s): {
            "description": f"{_codes(s)}: {_DESCRIBED[s]}",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorResponse"}}},
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
_AUTH: list[dict[str, list[str]]] = [{"bearer": []}]


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
                        "schema": {"type": "string", "enum": list(typing.get_args(w.Status))},
                    },
                    {
                        "name": "rules",
                        "in": "query",
                        "schema": {"type": "string", "enum": list(RULES)},
                    },
                    {
                        "name": "opponent",
                        "in": "query",
                        "schema": {"type": "string", "enum": list(typing.get_args(w.Opponent))},
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
                    *LIST_FILTERS,
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
        "/api/matches/{match_id}/cancel": {
            "post": {
                "summary": "Cancel a match nobody has joined (its creator only): it is deleted",
                "description": "The match and its invite are gone (later calls about it are 404"
                " not_found); it counts in nobody's statistics. Sockets bound to it are closed with"
                " 4004. Once someone has joined, resign instead (409 conflict).",
                "parameters": [_MATCH_ID],
                "responses": {
                    "204": {"description": "Cancelled: the match no longer exists"},
                    **_errors(401, 403, 404, 409, 429),
                },
            }
        },
        "/api/matches/{match_id}/claim": {
            "post": {
                "summary": "Claim the match: your human opponent has been gone past the grace period",
                "description": "Allowed from the view's claim_at on (Limits.claim_seconds, 60 s, after"
                " this server first saw the opponent disconnected); before that, or while the opponent"
                " is connected, 409 conflict. You win with outcome reason abandoned.",
                "parameters": [_MATCH_ID],
                "responses": {
                    **_ok("MatchSummary", "The finished match"),
                    **_errors(401, 403, 404, 409, 429),
                },
            }
        },
        "/api/matches/{match_id}/rematch": {
            "post": {
                "summary": "Offer a rematch of a finished match, or accept the one offered",
                "description": "Same rules and time control, seats swapped. Against the computer the"
                " rematch starts at once; against a human it starts when the other player offers too."
                " rematch.match_id names the new match (both players' sockets get it in their next"
                " state). Before the end, 409 match_not_over.",
                "parameters": [_MATCH_ID],
                "responses": {
                    **_ok("MatchSummary", "The finished match and its rematch"),
                    **_errors(401, 403, 404, 409, 429),
                },
            }
        },
        "/api/matches/{match_id}/rematch/decline": {
            "post": {
                "summary": "Decline the rematch your opponent offered",
                "parameters": [_MATCH_ID],
                "responses": {
                    **_ok("MatchSummary", "The finished match"),
                    **_errors(401, 403, 404, 409, 429),
                },
            }
        },
        "/api/rules": {
            "get": {
                "summary": "The rule presets (house, classic)",
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
                "responses": {
                    "200": {"description": "The schema document", "content": {"application/json": {}}}
                },
            }
        },
        "/api/asyncapi.json": {
            "get": {
                "summary": "AsyncAPI 3.0 document of the WebSocket /ws",
                "security": [],
                "responses": {
                    "200": {"description": "The AsyncAPI document", "content": {"application/json": {}}}
                },
            }
        },
        "/healthz": {
            "get": {
                "summary": "200 {status: ok} once the server is ready",
                "security": [],
                "responses": {**_ok("Health", "Ready"), **_ok("Health", "Shutting down", 503)},
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
    from .openapi_analysis import analysis_paths  # (they build on this module's helpers)
    from .openapi_ladder import ladder_paths
    from .openapi_ratings import rating_paths

    paths.update(rating_paths())
    paths.update(export_paths(_ok, _errors, _MATCH_ID))
    paths.update(analysis_paths())
    paths.update(ladder_paths())
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Gin Rummy server",
            "version": "1",
            "description": "REST part of protocol v1. Play happens over the WebSocket at /ws "
            "(see docs/protocol.md and /api/asyncapi.json): hello, act, ping; the server sends "
            "state, ack, error, pong.",
        },
        "servers": [{"url": "/"}],
        "security": _AUTH,
        "paths": paths | account_paths(_ok, _body, _errors),
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": components(REST_BODIES, ref_template="#/components/schemas/{name}")[1],
        },
    }


DOCS_STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.45}"
    "h2{border-top:1px solid #ccc;padding-top:1rem}code,pre{background:#f4f4f4;border-radius:4px}"
    "pre{padding:.6rem;overflow-x:auto;font-size:.85rem}.m{font-weight:bold;color:#064}"
)
DOCS_STYLE_HASH = "sha256-" + base64.b64encode(hashlib.sha256(DOCS_STYLE.encode()).digest()).decode()
"""The docs page's one inline style, allowed by its hash in the page's Content-Security-Policy."""


@functools.cache
def docs_page() -> str:
    doc = openapi_document()
    out = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>Gin Rummy API</title><style>{DOCS_STYLE}</style></head><body>",
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
