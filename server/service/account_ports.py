"""The accounts' part of the service's ports: sessions (one per device's token), a player's
username and password hash, passkeys, and the WebAuthn challenges waiting for an answer.

Nothing here holds a plain token or password: a session is known by its token's sha256 hash, a
password only by its Argon2 hash. A session id (``s_`` and 16 hex digits of the token hash) names
a session to its owner and between processes; it cannot be turned back into the token.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

UNKNOWN_DEVICE = "unknown device"


def session_id_of(token_hash: str) -> str:
    """A session's id, from its token's hash.

    >>> session_id_of("0123456789abcdef" * 4)
    's_0123456789abcdef'
    """
    return "s_" + token_hash[:16]


@dataclass(frozen=True, slots=True)
class SessionRecord:
    session_id: str
    player_id: str
    token_hash: str
    device: str
    created_at: datetime
    last_seen_at: datetime


@dataclass(frozen=True, slots=True)
class AccountRecord:
    """A player's way to sign in with a password (only once they added one)."""

    player_id: str
    username: str
    password_hash: str


@dataclass(frozen=True, slots=True)
class PasskeyRecord:
    credential_id: str
    """base64url, as WebAuthn's ``id``."""
    player_id: str
    public_key: bytes
    sign_count: int
    created_at: datetime
    device: str = UNKNOWN_DEVICE
    """A label from the User-Agent that registered it ("Chrome on Android"), as a session's;
    ``unknown device`` for passkeys from before it was recorded."""


@dataclass(frozen=True, slots=True)
class ChallengeRecord:
    """A WebAuthn ceremony in progress: ``kind`` is ``register`` (``player_id`` set) or
    ``login``; answered once, before ``expires_at``."""

    challenge_id: str
    kind: str
    challenge: bytes
    player_id: str | None
    expires_at: datetime


class AccountStore(Protocol):
    """Besides these, ``Store.create_player(player, device)`` opens the player's first session
    (its ``token_hash``) and ``Store.player_by_token_hash`` finds a player by any of its
    sessions."""

    async def create_session(self, session: SessionRecord) -> None: ...
    async def sessions_of(self, player_id: str) -> list[SessionRecord]:
        """Oldest first."""
        ...

    async def session_by_token_hash(self, token_hash: str) -> SessionRecord | None: ...
    async def touch_session(self, session_id: str, at: datetime) -> None: ...
    async def delete_sessions(self, player_id: str, session_ids: list[str]) -> list[str]:
        """Delete those of ``session_ids`` that are ``player_id``'s; the ids deleted."""
        ...

    async def set_account(self, account: AccountRecord, username_key: str) -> bool:
        """Give the player a username (unique by ``username_key``) and password hash; False
        (nothing written) if another player has that key already."""
        ...

    async def account_by_key(self, username_key: str) -> AccountRecord | None: ...
    async def account_of(self, player_id: str) -> AccountRecord | None: ...
    async def add_passkey(self, passkey: PasskeyRecord) -> bool:
        """False (nothing written) if the credential is registered already."""
        ...

    async def passkey(self, credential_id: str) -> PasskeyRecord | None: ...
    async def passkeys_of(self, player_id: str) -> list[PasskeyRecord]:
        """Oldest first."""
        ...

    async def delete_passkey(self, player_id: str, credential_id: str) -> bool:
        """Delete the passkey if it is ``player_id``'s; whether one was deleted."""
        ...

    async def set_sign_count(self, credential_id: str, sign_count: int) -> None: ...
    async def put_challenge(self, challenge: ChallengeRecord, now: datetime) -> None:
        """Store it (and forget every challenge expired before ``now``)."""
        ...

    async def take_challenge(self, challenge_id: str) -> ChallengeRecord | None:
        """Remove and return it (at most one caller ever gets it)."""
        ...
