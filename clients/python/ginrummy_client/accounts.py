"""Accounts and sessions (docs/protocol.md, "Accounts and sessions"): a username and password
added to the player this client is, signing in with them (a token of this client's own), and
the player's sessions (listed, revoked one by one or all but this one).

A mixin of :class:`~ginrummy_client.rest.GinRummyClient`: it needs only its ``request`` and
``token``. Passwords are sent, never kept.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class SignedIn:
    player_id: str
    name: str
    username: str | None
    token: str = field(repr=False)
    session_id: str
    device_key: str | None = field(default=None, repr=False)
    """Pass it to the next :meth:`AccountsMixin.login` of this username from this program: a
    device that signed in before is held to a sign-in limit of its own, which wrong passwords
    others try for the username do not use up."""

    @staticmethod
    def from_wire(d: Mapping[str, Any]) -> SignedIn:
        return SignedIn(
            str(d["player_id"]),
            str(d["name"]),
            d.get("username"),
            str(d["token"]),
            str(d["session_id"]),
            d.get("device_key"),
        )


@dataclass(frozen=True, slots=True)
class Session:
    session_id: str
    device: str
    created_at: str
    last_seen_at: str
    current: bool
    """Whether it is this client's own session."""

    @staticmethod
    def from_wire(d: Mapping[str, Any]) -> Session:
        return Session(
            str(d["session_id"]),
            str(d["device"]),
            str(d["created_at"]),
            str(d["last_seen_at"]),
            bool(d["current"]),
        )


class AccountsMixin:
    token: str | None

    async def request(self, method: str, path: str, body: Any = None) -> Any:  # pragma: no cover
        raise NotImplementedError

    async def add_password(self, username: str, password: str) -> dict[str, Any]:
        """Give this (anonymous) player a username and password; the account
        (``{player_id, name, username, passkeys, session_id, device_key}``)."""
        return dict(
            await self.request("POST", "/api/account/password", {"username": username, "password": password})
        )

    async def account(self) -> dict[str, Any]:
        return dict(await self.request("GET", "/api/account"))

    async def login(self, username: str, password: str, device_key: str | None = None) -> SignedIn:
        """Sign in: a new session of that player, whose token this client keeps from now on.
        A wrong username or password raises ``Unauthorized`` (the same for both).
        ``device_key``: one an earlier answer for this account gave (:attr:`SignedIn.device_key`,
        or the account's ``device_key``), to be held to this device's own sign-in limit."""
        body = {"username": username, "password": password}
        if device_key is not None:
            body["device_key"] = device_key
        signed_in = SignedIn.from_wire(await self.request("POST", "/api/sessions", body))
        self.token = signed_in.token
        return signed_in

    async def sessions(self) -> list[Session]:
        """This player's sessions (one per device), oldest first."""
        return [Session.from_wire(s) for s in (await self.request("GET", "/api/sessions"))["sessions"]]

    async def revoke_session(self, session_id: str) -> None:
        """End one of this player's sessions: its token stops working at once."""
        await self.request("DELETE", f"/api/sessions/{urllib.parse.quote(session_id, safe='')}")

    async def revoke_other_sessions(self) -> int:
        """Sign out everywhere else; how many sessions ended."""
        return int((await self.request("POST", "/api/sessions/revoke-others"))["revoked"])

    async def sign_out(self) -> None:
        """End this client's own session and forget its token."""
        current = next(s for s in await self.sessions() if s.current)
        await self.revoke_session(current.session_id)
        self.token = None
