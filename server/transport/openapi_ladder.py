"""The OpenAPI paths of the bot ladder (:mod:`.ladder_rest`), added to the document
:func:`~server.transport.openapi.openapi_document` builds."""

from __future__ import annotations

from typing import Any

from .openapi import _errors, _ok


def ladder_paths() -> dict[str, Any]:
    public: list[Any] = []
    return {
        "/api/ladder": {
            "get": {
                "summary": "The bot ladder's standings: every entrant's ladder rating and deviation, best first",
                "security": public,
                "responses": {**_ok("Ladder", "The standings"), **_errors(429)},
            }
        },
        "/api/ladder/pairs": {
            "get": {
                "summary": "An entrant's recent duplicate-deal pairs and its paired result per opponent",
                "security": public,
                "parameters": [
                    {"name": "player", "in": "query", "required": True, "schema": {"type": "string"}},
                    {
                        "name": "limit",
                        "in": "query",
                        "schema": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
                    },
                ],
                "responses": {**_ok("LadderPairs", "The pairs, newest first"), **_errors(400, 404, 429)},
            }
        },
        "/api/ladder/entries": {
            "post": {
                "summary": "Enroll the calling bot in the ladder (again: nothing changes)",
                "description": "Only a bot account (created with `bot`) may enroll: a person is 403 `forbidden`.",
                "responses": {**_ok("LadderEnrolled", "The bot's entry"), **_errors(401, 403, 429)},
            }
        },
        "/api/ladder/matches": {
            "get": {
                "summary": "The calling bot's ladder matches in play (asking says it is there to be paired)",
                "responses": {**_ok("LadderMatches", "The matches to play"), **_errors(401, 404, 429)},
            }
        },
    }
