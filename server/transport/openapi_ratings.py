"""The OpenAPI paths of ratings and the lobby (:mod:`.ratings_rest`), added to the document
:func:`~server.transport.openapi.openapi_document` builds."""

from __future__ import annotations

from typing import Any

from .openapi import _MATCH_ID, _errors, _ok

_PLAYER_ID = {"name": "player_id", "in": "path", "required": True, "schema": {"type": "string"}}


def _page(default: int) -> list[dict[str, Any]]:
    return [
        {
            "name": "limit",
            "in": "query",
            "schema": {"type": "integer", "minimum": 1, "maximum": 100, "default": default},
        },
        {"name": "offset", "in": "query", "schema": {"type": "integer", "minimum": 0, "default": 0}},
    ]


def rating_paths() -> dict[str, Any]:
    public: list[Any] = []
    return {
        "/api/players/{player_id}/profile": {
            "get": {
                "summary": "A player's public page: rating, record and the last 10 finished matches",
                "security": public,
                "parameters": [_PLAYER_ID],
                "responses": {**_ok("PlayerPage", "The player"), **_errors(404, 429)},
            }
        },
        "/api/players/{player_id}/rating": {
            "get": {
                "summary": "A player's Glicko-2 rating and deviation (null before a first rated match)",
                "security": public,
                "parameters": [_PLAYER_ID],
                "responses": {**_ok("PlayerRating", "The rating"), **_errors(404, 429)},
            }
        },
        "/api/players/{player_id}/rating/history": {
            "get": {
                "summary": "A player's rating after each rated match, newest first",
                "security": public,
                "parameters": [_PLAYER_ID, *_page(50)],
                "responses": {**_ok("RatingHistory", "A page of the history"), **_errors(400, 404, 429)},
            }
        },
        "/api/leaderboard": {
            "get": {
                "summary": "Players with an established rating (at least min_games rated matches, deviation at most max_deviation), best first",
                "security": public,
                "parameters": _page(20),
                "responses": {**_ok("Leaderboard", "A page of the leaderboard"), **_errors(400, 429)},
            }
        },
        "/api/challenges": {
            "get": {
                "summary": "Open challenges: public matches waiting for anyone to accept, newest first",
                "security": public,
                "parameters": _page(20),
                "responses": {**_ok("ChallengeList", "A page of challenges"), **_errors(400, 429)},
            }
        },
        "/api/challenges/{match_id}/accept": {
            "post": {
                "summary": "Accept an open challenge: take its second seat, as an invite would",
                "description": "When two accept at once, the database gives the seat to exactly one;"
                " the other gets 409 `challenge_taken`. A match that is not public is 403 `forbidden`.",
                "parameters": [_MATCH_ID],
                "responses": {
                    **_ok("JoinedMatch", "The match and your seat"),
                    **_errors(401, 403, 404, 409, 429),
                },
            }
        },
        "/api/lobby": {
            "get": {
                "summary": "Live counts: open challenges waiting, players playing and seeking now (from the database)",
                "security": public,
                "responses": {**_ok("Lobby", "The counts"), **_errors(429)},
            }
        },
    }
