"""The OpenAPI paths of accounts and sessions (:mod:`.accounts`), merged into the document by
:mod:`.openapi`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_SESSION_ID = {"name": "session_id", "in": "path", "required": True, "schema": {"type": "string"}}
_CREDENTIAL_ID = {"name": "credential_id", "in": "path", "required": True, "schema": {"type": "string"}}


def account_paths(
    ok: Callable[..., dict[str, Any]],
    body: Callable[..., dict[str, Any]],
    errors: Callable[..., dict[str, Any]],
) -> dict[str, Any]:
    return {
        "/api/account": {
            "get": {
                "summary": "The caller's account: username (null while anonymous), passkeys, session",
                "responses": {**ok("Account", "The account"), **errors(401, 429)},
            }
        },
        "/api/account/password": {
            "post": {
                "summary": "Add a username and password to the anonymous player the token is "
                "(its matches and history stay its own); once per player",
                "requestBody": body("AddPassword"),
                "responses": {
                    **ok("Account", "The account, with its username"),
                    **errors(400, 401, 409, 413, 429),
                },
            }
        },
        "/api/sessions": {
            "post": {
                "summary": "Sign in with a username and password: a new session (token) for this device. "
                "A wrong username and a wrong password get the same 401; rate limited per address "
                "(login_address) and per username (login_account), or, with a valid device_key, per "
                "device (login_device) instead of per username",
                "security": [],
                "requestBody": body("SignIn"),
                "responses": {
                    **ok("SignedIn", "The new session and its token", 201),
                    **errors(400, 401, 413, 429),
                },
            },
            "get": {
                "summary": "The caller's sessions (one per device), oldest first",
                "responses": {**ok("SessionList", "Sessions"), **errors(401, 429)},
            },
        },
        "/api/sessions/revoke-others": {
            "post": {
                "summary": "Sign out everywhere else: revoke every session but the caller's",
                "responses": {**ok("RevokedSessions", "How many were revoked"), **errors(401, 429)},
            }
        },
        "/api/sessions/{session_id}": {
            "delete": {
                "summary": "Revoke one of the caller's sessions (its own: sign out). Its token stops "
                "working at once on every server and its sockets are closed with 4001",
                "parameters": [_SESSION_ID],
                "responses": {"204": {"description": "Revoked"}, **errors(401, 404, 429)},
            }
        },
        "/api/passkeys/register/options": {
            "post": {
                "summary": "Begin registering a passkey: options for navigator.credentials.create",
                "responses": {**ok("PasskeyOptions", "A challenge and the options"), **errors(401, 429)},
            }
        },
        "/api/passkeys": {
            "post": {
                "summary": "Finish registering a passkey with the authenticator's answer",
                "requestBody": body("PasskeyAnswer"),
                "responses": {**ok("PasskeyInfo", "The passkey", 201), **errors(400, 401, 409, 413, 429)},
            },
            "get": {
                "summary": "The caller's passkeys, oldest first. Signing out everywhere does not "
                "remove them: remove any you do not recognise",
                "responses": {**ok("PasskeyList", "Passkeys"), **errors(401, 429)},
            },
        },
        "/api/passkeys/{credential_id}": {
            "delete": {
                "summary": "Remove one of the caller's passkeys: it signs in no more. Another "
                "player's or an unknown one is 404",
                "parameters": [_CREDENTIAL_ID],
                "responses": {"204": {"description": "Removed"}, **errors(401, 404, 429)},
            }
        },
        "/api/passkeys/login/options": {
            "post": {
                "summary": "Begin signing in with a passkey: options for navigator.credentials.get",
                "security": [],
                "responses": {**ok("PasskeyOptions", "A challenge and the options"), **errors(429)},
            }
        },
        "/api/passkeys/login": {
            "post": {
                "summary": "Sign in with a passkey: a new session (token) for this device",
                "security": [],
                "requestBody": body("PasskeyAnswer"),
                "responses": {
                    **ok("SignedIn", "The new session and its token", 201),
                    **errors(400, 401, 413, 429),
                },
            }
        },
    }
