"""The service's error tree, each error with a stable machine ``code`` and the HTTP ``status``
it maps to (the WebSocket sends the same ``code``). This is the one place that mapping lives.

::

    ServiceError
    ├── BadRequest          bad_request (400)     malformed JSON, unknown/missing fields, bad values
    │   └── BadMessage      bad_message (400)     the WebSocket's name for the same
    ├── Unauthorized        unauthorized (401)    bad or missing token
    ├── Forbidden           forbidden (403)       not your match
    ├── NotFound            not_found (404)
    │   └── UnknownMatch    unknown_match (404)   the WebSocket's name for a match that does not exist
    ├── Conflict            conflict (409)
    │   ├── MatchNotOver    match_not_over (409)
    │   ├── AlreadyJoined   already_joined (409)
    │   ├── MatchOver       match_over (409)
    │   ├── StaleVersion    stale_version (409)
    │   ├── NotYourTurn     not_your_turn (409)
    │   └── IllegalAction   illegal_action (409)
    ├── TooLarge            too_large (413)
    ├── RateLimited         rate_limited (429)    says which limit and when it resets
    └── Unavailable         unavailable (503)     shutting down

An error never changes anything: every check happens before a write.
"""

from __future__ import annotations

from typing import Any

from server.rules import IllegalActionError, InvalidActionError, NotYourTurnError, RulesError


class ServiceError(Exception):
    code = "error"
    status = 500
    rest_code: str | None = None
    """The REST code when it differs from the WebSocket's (``unknown_match`` is ``not_found``)."""
    ws_code: str | None = None
    """The WebSocket code when it differs from the REST one (``bad_request`` is ``bad_message``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def extra(self) -> dict[str, Any]:
        """Fields added to the wire error object besides code and message."""
        return {}

    def to_wire(self, *, websocket: bool = False) -> dict[str, Any]:
        code = (self.ws_code if websocket else self.rest_code) or self.code
        return {"code": code, "message": self.message, **self.extra()}


class BadRequest(ServiceError):
    code, status = "bad_request", 400
    ws_code = "bad_message"


class BadMessage(BadRequest):
    code = "bad_message"
    rest_code = "bad_request"


class Unauthorized(ServiceError):
    code, status = "unauthorized", 401


class Forbidden(ServiceError):
    code, status = "forbidden", 403


class NotFound(ServiceError):
    code, status = "not_found", 404
    ws_code = "unknown_match"


class UnknownMatch(NotFound):
    code = "unknown_match"
    rest_code = "not_found"


class Conflict(ServiceError):
    code, status = "conflict", 409


class MatchNotOver(Conflict):
    code = "match_not_over"


class AlreadyJoined(Conflict):
    code = "already_joined"


class MatchOver(Conflict):
    code = "match_over"


class StaleVersion(Conflict):
    code = "stale_version"


class NotYourTurn(Conflict):
    code = "not_your_turn"


class IllegalAction(Conflict):
    code = "illegal_action"


class TooLarge(ServiceError):
    code, status = "too_large", 413


class RateLimited(ServiceError):
    code, status = "rate_limited", 429

    def __init__(self, message: str, *, limit: str, reset_in: float) -> None:
        super().__init__(message)
        self.limit = limit
        self.reset_in = max(0.01, round(reset_in, 2))

    def extra(self) -> dict[str, Any]:
        return {"limit": self.limit, "reset_in": self.reset_in}


class Unavailable(ServiceError):
    code, status = "unavailable", 503


def from_rules_error(error: RulesError) -> ServiceError:
    """The service error for an error the rules engine raised."""
    if isinstance(error, NotYourTurnError):
        return NotYourTurn(str(error))
    if isinstance(error, InvalidActionError):
        return BadMessage(str(error))
    if isinstance(error, IllegalActionError):
        return IllegalAction(str(error))
    return IllegalAction(str(error))


__all__ = [
    "AlreadyJoined",
    "BadMessage",
    "BadRequest",
    "Conflict",
    "Forbidden",
    "IllegalAction",
    "MatchNotOver",
    "MatchOver",
    "NotFound",
    "NotYourTurn",
    "RateLimited",
    "ServiceError",
    "StaleVersion",
    "TooLarge",
    "Unauthorized",
    "Unavailable",
    "UnknownMatch",
    "from_rules_error",
]
