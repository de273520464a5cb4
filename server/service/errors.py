"""The service's error tree, each error with a stable machine ``code``; the WebSocket and REST
send the same code (the transport maps codes to HTTP statuses, in one table).

::

    ServiceError
    ├── BadRequest          bad_request       malformed JSON, unknown/missing fields, bad values
    ├── Unauthorized        unauthorized      bad or missing token
    ├── Forbidden           forbidden         not your match
    │   └── NotForBots      not_for_bots      a bot taking an open challenge (meant for people)
    ├── NotFound            not_found         no such match
    ├── Conflict            conflict
    │   ├── MatchNotOver    match_not_over
    │   ├── UsernameTaken   username_taken    another player has that username (any case)
    │   ├── AlreadyJoined   already_joined    the caller already has a seat in this match
    │   ├── MatchFull       match_full        both seats of this match are taken by others
    │   ├── ChallengeTaken  challenge_taken   another player accepted the open challenge first
    │   ├── MatchOver       match_over
    │   ├── StaleVersion    stale_version
    │   ├── IdReused        id_reused         an act id already used for another action
    │   ├── NotYourTurn     not_your_turn
    │   └── IllegalAction   illegal_action
    ├── TooManyMatches      too_many_matches  a player's cap of waiting or active matches reached
    ├── TooLarge            too_large
    ├── RateLimited         rate_limited      says which limit and when it resets
    └── Unavailable         unavailable       shutting down

One condition, one code: the WebSocket's former ``bad_message`` and ``unknown_match`` are
``bad_request`` and ``not_found`` (docs/protocol.md has the migration note).

An error never changes anything: every check happens before a write.
"""

from __future__ import annotations

from server.rules import IllegalActionError, InvalidActionError, NotYourTurnError, RulesError


class ServiceError(Exception):
    code = "error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class BadRequest(ServiceError):
    code = "bad_request"


class Unauthorized(ServiceError):
    code = "unauthorized"


class Forbidden(ServiceError):
    code = "forbidden"


class NotForBots(Forbidden):
    """A bot account doing what only people may (taking an open challenge)."""

    code = "not_for_bots"


class NotFound(ServiceError):
    code = "not_found"


class Conflict(ServiceError):
    code = "conflict"


class MatchNotOver(Conflict):
    code = "match_not_over"


class UsernameTaken(Conflict):
    code = "username_taken"


class AlreadyJoined(Conflict):
    code = "already_joined"


class ChallengeTaken(Conflict):
    """Another player accepted this open challenge first (the store decided)."""

    code = "challenge_taken"


class MatchFull(Conflict):
    """Joining a match whose two seats are already taken by two other players."""

    code = "match_full"


class MatchOver(Conflict):
    code = "match_over"


class StaleVersion(Conflict):
    code = "stale_version"


class IdReused(Conflict):
    """An ``act`` whose id this seat already used for a different action (the same id with the
    same action is a retry, answered with the original ack)."""

    code = "id_reused"


class NotYourTurn(Conflict):
    code = "not_your_turn"


class IllegalAction(Conflict):
    code = "illegal_action"


class TooManyMatches(ServiceError):
    """The player already has as many waiting (or active) matches as one may have."""

    code = "too_many_matches"


class TooLarge(ServiceError):
    code = "too_large"


class RateLimited(ServiceError):
    code = "rate_limited"

    def __init__(self, message: str, *, limit: str, reset_in: float) -> None:
        super().__init__(message)
        self.limit = limit
        self.reset_in = max(0.01, round(reset_in, 2))


class Unavailable(ServiceError):
    code = "unavailable"


def from_rules_error(error: RulesError) -> ServiceError:
    """The service error for an error the rules engine raised."""
    if isinstance(error, NotYourTurnError):
        return NotYourTurn(str(error))
    if isinstance(error, InvalidActionError):
        return BadRequest(str(error))
    if isinstance(error, IllegalActionError):
        return IllegalAction(str(error))
    return IllegalAction(str(error))


__all__ = [
    "AlreadyJoined",
    "BadRequest",
    "ChallengeTaken",
    "Conflict",
    "Forbidden",
    "IdReused",
    "IllegalAction",
    "MatchNotOver",
    "MatchOver",
    "NotForBots",
    "NotFound",
    "NotYourTurn",
    "RateLimited",
    "ServiceError",
    "StaleVersion",
    "TooLarge",
    "TooManyMatches",
    "Unauthorized",
    "Unavailable",
    "from_rules_error",
]
