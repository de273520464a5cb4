"""The client's exceptions: every error the server sends becomes one typed exception.

The tree::

    GinRummyError
    ├── ServerError(code, message, status=None)    the server said no; ``code`` is its stable code
    │   ├── BadRequest          bad_request (malformed JSON, fields or action; bad_message from older servers)
    │   ├── Unauthorized        unauthorized (bad or missing token; an ``act`` from a watcher)
    │   ├── Forbidden           forbidden (not your match; a forbidden Origin)
    │   ├── NotFound            not_found (unknown_match from older servers)
    │   ├── NotYourTurn         not_your_turn
    │   ├── IllegalAction       illegal_action (not legal now, or the match is over)
    │   ├── StaleVersion        stale_version (the match moved on; act on the newer state)
    │   ├── Conflict            conflict, match_not_over, already_joined, match_full, challenge_taken
    │   │                       (another player accepted the open challenge first), match_over,
    │   │                       id_reused (an act id already used for another action),
    │   │                       too_many_matches (the player's waiting or active matches are at their cap)
    │   ├── RateLimited         rate_limited (``limit`` and ``reset_in`` seconds when the server says)
    │   ├── TooLarge            too_large
    │   └── Unavailable         unavailable (the server is shutting down, or busy: try again shortly;
    │                           ``retry_in`` seconds when the server says)
    ├── ConnectionLost          the socket dropped and could not be brought back
    └── ProtocolError           the server sent something this client cannot read

An error code without a class of its own (``internal``, or one this client does not know yet)
still arrives, as a plain :class:`ServerError`.

>>> err = server_error("stale_version", "the match is at version 14")
>>> type(err).__name__, err.code, str(err)
('StaleVersion', 'stale_version', 'stale_version: the match is at version 14')
>>> isinstance(server_error("some_new_code", "…"), ServerError)
True

This module never does I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = [
    "BadRequest",
    "Conflict",
    "ConnectionLost",
    "Forbidden",
    "GinRummyError",
    "IllegalAction",
    "NotFound",
    "NotYourTurn",
    "ProtocolError",
    "RateLimited",
    "ServerError",
    "StaleVersion",
    "TooLarge",
    "Unauthorized",
    "Unavailable",
    "server_error",
]


class GinRummyError(Exception):
    """Base of every exception this package raises on purpose."""


class ServerError(GinRummyError):
    """The server answered with an error: ``code`` is its stable machine code, ``message`` its
    words, ``status`` the HTTP status for a REST call (None on the socket), ``details`` any other
    fields of the error object (``limit``, ``reset_in``…), ``action_id`` the ``act`` it answers."""

    def __init__(
        self,
        code: str,
        message: str = "",
        *,
        status: int | None = None,
        details: dict[str, Any] | None = None,
        action_id: str | None = None,
    ) -> None:
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code
        self.message = message
        self.status = status
        self.details = dict(details or {})
        self.action_id = action_id

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"


class BadRequest(ServerError):
    """Malformed input: the request or message was not understood (nothing changed)."""


class Unauthorized(ServerError):
    """The token is missing or wrong, or a watcher tried to act."""


class Forbidden(ServerError):
    """Not your match (or the Origin was refused)."""


class NotFound(ServerError):
    """No such match or resource."""


class NotYourTurn(ServerError):
    """The other seat is to act."""


class IllegalAction(ServerError):
    """The action is not legal now (or the match is over)."""


class StaleVersion(ServerError):
    """The action named an older version: the match moved on; look at the newer state."""


class Conflict(ServerError):
    """The request clashes with the match's state (already joined, not over yet, over...)."""


class RateLimited(ServerError):
    """Too many requests. ``limit`` names the limit hit, ``reset_in`` when it resets (seconds)."""

    @property
    def limit(self) -> str | None:
        value = self.details.get("limit")
        return None if value is None else str(value)

    @property
    def reset_in(self) -> float | None:
        value = self.details.get("reset_in")
        try:
            return None if value is None else float(value)
        except (TypeError, ValueError):
            return None


class TooLarge(ServerError):
    """The message or body was over the server's size limit."""


class Unavailable(ServerError):
    """The server is shutting down, or too busy to take on new players (or cannot serve now);
    the same request may work shortly: after ``retry_in`` seconds when the server says
    (``Retry-After``)."""

    @property
    def retry_in(self) -> float | None:
        value = self.details.get("reset_in")  # (the Retry-After header, kept as the 429's is)
        try:
            return None if value is None else float(value)
        except (TypeError, ValueError):
            return None


class ConnectionLost(GinRummyError):
    """The WebSocket dropped and every reconnect attempt failed (or reconnecting is off)."""


class ProtocolError(GinRummyError):
    """The server sent something that does not follow protocol v1."""


def need(data: Mapping[str, Any], key: str, what: str) -> Any:
    """``data[key]``, a field the typed mirrors cannot do without: a :class:`ProtocolError`
    naming ``what`` when it is missing (or ``data`` is not an object)."""
    try:
        return data[key]
    except (KeyError, TypeError):
        raise ProtocolError(f"{what} without {key!r}: {data!r:.200}") from None


# The one place where wire codes meet exception classes.
_BY_CODE: dict[str, type[ServerError]] = {
    "bad_request": BadRequest,
    "bad_message": BadRequest,  # the WebSocket's code for bad_request before the codes merged
    "unauthorized": Unauthorized,
    "forbidden": Forbidden,
    "not_found": NotFound,
    "unknown_match": NotFound,  # the WebSocket's code for not_found before the codes merged
    "not_your_turn": NotYourTurn,
    "illegal_action": IllegalAction,
    "stale_version": StaleVersion,
    "conflict": Conflict,
    "match_not_over": Conflict,
    "already_joined": Conflict,
    "challenge_taken": Conflict,
    "match_full": Conflict,
    "match_over": Conflict,
    "id_reused": Conflict,
    "too_many_matches": Conflict,
    "rate_limited": RateLimited,
    "too_large": TooLarge,
    "unavailable": Unavailable,
}

# WebSocket close codes after which reconnecting cannot help (docs/protocol.md, "Close codes").
FATAL_CLOSE_CODES: dict[int, tuple[str, str]] = {
    1008: ("forbidden", "the server refused this Origin"),
    1009: ("too_large", "a message was over the server's frame limit"),
    4001: ("unauthorized", "the server refused the hello (bad or missing token)"),
    4004: ("not_found", "the server knows no such match"),
    4008: ("rate_limited", "the server closed the socket: too many errors or messages"),
}


def server_error(
    code: str,
    message: str = "",
    *,
    status: int | None = None,
    details: dict[str, Any] | None = None,
    action_id: str | None = None,
) -> ServerError:
    """The exception for a server error code (a plain :class:`ServerError` for unknown codes)."""
    cls = _BY_CODE.get(code, ServerError)
    return cls(code, message, status=status, details=details, action_id=action_id)
