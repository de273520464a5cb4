"""The OpenAPI paths of explained play (:mod:`.analysis_rest`), added to the document
:func:`~server.transport.openapi.openapi_document` builds."""

from __future__ import annotations

from typing import Any

from .openapi import _MATCH_ID, _errors, _ok


def analysis_paths() -> dict[str, Any]:
    return {
        "/api/matches/{match_id}/analysis": {
            "get": {
                "summary": "Hard's analysis of your decisions in the match's finished hands",
                "description": "For each of your decisions (upcard, draw, discard, knock) in every hand"
                " the rules have finished: what Hard would have played and why, and every legal"
                " action's value in expected points of the hand for your seat, computed only from what"
                " your seat could see then. Mistakes (a loss of at least budget.mistake) biggest first,"
                " and the luck-versus-skill line (luck: the deals' expected value; lost: the value"
                " given away). Your own seat only (403 for anyone else). Computed in the thinking"
                " workers with budget.worlds sampled worlds per decision, cached; 429 with limit"
                " analysis past Limits.analysis_rate (10 a minute).",
                "parameters": [_MATCH_ID],
                "responses": {
                    **_ok("MatchAnalysis", "The analysis"),
                    **_errors(401, 403, 404, 429),
                },
            }
        },
        "/api/matches/{match_id}/hint": {
            "get": {
                "summary": "What Hard would play now, on your turn against the computer",
                "description": "From your own view only: the suggested draw or discard and whether to"
                " knock, with the reason in a few words and every legal action's value. Only in a"
                " match against the computer that is not rated (403 otherwise); 409 not_your_turn"
                " when it is not your turn, match_over once it is over; 429 with limit hint past"
                " Limits.hint_rate (60 a minute).",
                "parameters": [_MATCH_ID],
                "responses": {
                    **_ok("Hint", "The hint"),
                    **_errors(401, 403, 404, 409, 429),
                },
            }
        },
    }
