"""Service errors on the wire: the one table from error code to HTTP status, and the wire
error bodies (REST ``{"error": {...}}``, the WebSocket ``error`` message)."""

from __future__ import annotations

import typing

from server.service.errors import RateLimited, ServiceError
from server.wire import messages as w

HTTP_STATUS: dict[str, int] = {
    "bad_request": 400,
    "unauthorized": 401,
    "forbidden": 403,
    "not_for_bots": 403,
    "not_found": 404,
    "conflict": 409,
    "match_not_over": 409,
    "already_joined": 409,
    "username_taken": 409,
    "challenge_taken": 409,
    "match_full": 409,
    "match_over": 409,
    "stale_version": 409,
    "id_reused": 409,
    "not_your_turn": 409,
    "illegal_action": 409,
    "too_many_matches": 409,
    "too_large": 413,
    "rate_limited": 429,
    "unavailable": 503,
    "internal": 500,
}
"""Every error code (``server.wire.messages.ErrorCode``) and its HTTP status."""

assert set(HTTP_STATUS) == set(typing.get_args(w.ErrorCode)), "one status per error code"

# What the HTTP statuses aiohttp raises itself (404 for an unknown path...) are called.
HTTP_CODE: dict[int, str] = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "bad_request",
    409: "conflict",
    413: "too_large",
}


def status(error: ServiceError) -> int:
    return HTTP_STATUS.get(error.code, 500)


def detail(error: ServiceError) -> w.ErrorDetail:
    if isinstance(error, RateLimited):
        return w.ErrorDetail(error.code, error.message, error.limit, error.reset_in)  # type: ignore[arg-type]
    return w.ErrorDetail(error.code, error.message)  # type: ignore[arg-type]


def ws_error(error: ServiceError, msg_id: str | None) -> w.Error:
    d = detail(error)
    return w.Error(msg_id, d.code, d.message, d.limit, d.reset_in)  # type: ignore[arg-type]


__all__ = ["HTTP_CODE", "HTTP_STATUS", "detail", "status", "ws_error"]
