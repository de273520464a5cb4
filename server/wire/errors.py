"""The wire shapes of a refusal: every error code, the WebSocket ``error`` message and the REST
error body, with the rate limit's details. Nothing here does I/O (the codes' HTTP statuses
are mapped in :mod:`server.transport.errors`)."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import UNSET, Meta, UnsetType

from .fields import _Wire

WsErrorCode = Literal[
    "bad_request",
    "unauthorized",
    "not_found",
    "not_your_turn",
    "illegal_action",
    "stale_version",
    "id_reused",
    "rate_limited",
    "too_large",
    "unavailable",
    "conflict",
    "too_many_matches",
]
"""The codes a WebSocket ``error`` carries (docs/protocol.md lists them; the last two on the
lobby socket only)."""

ErrorCode = Literal[
    "bad_request",
    "unauthorized",
    "forbidden",
    "not_for_bots",
    "not_found",
    "conflict",
    "match_not_over",
    "already_joined",
    "username_taken",
    "challenge_taken",
    "match_full",
    "match_over",
    "stale_version",
    "id_reused",
    "not_your_turn",
    "illegal_action",
    "too_many_matches",
    "too_large",
    "rate_limited",
    "unavailable",
    "internal",
]
"""Every error code, REST or WebSocket."""

_Limit = Annotated[str | UnsetType, Meta(description="rate_limited only: which limit was hit")]
_ResetIn = Annotated[float | UnsetType, Meta(description="rate_limited only: seconds until it resets")]


class Error(_Wire, tag="error", tag_field="type"):
    """The message named by ``id`` (null when unknown) was refused; nothing changed."""

    id: str | None
    code: WsErrorCode
    message: str
    limit: _Limit = UNSET
    reset_in: _ResetIn = UNSET


class ErrorDetail(_Wire):
    code: ErrorCode
    message: str
    limit: _Limit = UNSET
    reset_in: _ResetIn = UNSET


class ErrorResponse(_Wire):
    error: ErrorDetail
