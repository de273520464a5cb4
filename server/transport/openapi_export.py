"""The OpenAPI paths of the exports (:mod:`.exporting`) and the history filters of
``GET /api/matches``; :mod:`.openapi` joins them to the document."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from server.service.queries import RESULTS
from server.wire.export import EXPORT_FORMATS

_DAY = {"type": "string", "format": "date", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"}

LIST_FILTERS: list[dict[str, Any]] = [
    {
        "name": "result",
        "in": "query",
        "description": "Matches the caller won, or lost (a match without a winner is neither)",
        "schema": {"type": "string", "enum": list(RESULTS)},
    },
    {
        "name": "since",
        "in": "query",
        "description": "Created on this day (UTC) or later",
        "schema": _DAY,
    },
    {
        "name": "until",
        "in": "query",
        "description": "Created on this day (UTC) or earlier",
        "schema": _DAY,
    },
]


def export_paths(
    ok: Callable[..., dict[str, Any]], errors: Callable[..., dict[str, Any]], match_id: dict[str, Any]
) -> dict[str, Any]:
    match_export = ok("ExportedMatch", "The export (format=json) or its text notation (format=text)")
    match_export["200"]["content"]["text/plain"] = {"schema": {"type": "string"}}
    return {
        "/api/matches/{match_id}/export": {
            "get": {
                "summary": "Export a match for the caller's seat: JSON or the text notation "
                "(docs/notation.md). A match in play shows only what the seat may see",
                "parameters": [
                    match_id,
                    {
                        "name": "format",
                        "in": "query",
                        "schema": {"type": "string", "enum": list(EXPORT_FORMATS), "default": "json"},
                    },
                ],
                "responses": {**match_export, **errors(400, 401, 403, 404, 429)},
            }
        },
        "/api/players/{player_id}/export": {
            "get": {
                "summary": "Every finished match of the caller (player_id: the caller's id or `me`), "
                "newest first, as NDJSON: one ExportedMatch per line, streamed",
                "parameters": [
                    {"name": "player_id", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "responses": {
                    "200": {
                        "description": "One ExportedMatch (JSON) per line",
                        "content": {
                            "application/x-ndjson": {"schema": {"$ref": "#/components/schemas/ExportedMatch"}}
                        },
                    },
                    **errors(400, 401, 403, 429),
                },
            }
        },
    }
