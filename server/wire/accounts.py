"""The REST bodies of accounts and sessions (docs/protocol.md "Accounts and sessions"): a
username and password, signing in, the account, its sessions and passkeys. Nothing here does
I/O or holds game logic."""

from __future__ import annotations

from typing import Annotated, Any

from msgspec import Meta

from .fields import STORABLE, Timestamp, _Wire

Username = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=40,
        pattern=STORABLE,
        description="1 to 40 characters, the display-name rules; unique ignoring case and width",
    ),
]
Password = Annotated[str, Meta(min_length=8, max_length=256, description="8 to 256 characters")]
_SessionId = Annotated[str, Meta(examples=["s_0f1e2d3c4b5a6978"])]


class AddPassword(_Wire):
    username: Username
    password: Password


DeviceKey = Annotated[
    str,
    Meta(
        max_length=128,
        description="This device's key for signing in to this account again: send it as the sign-in's "
        "device_key, and this device is held to a sign-in limit of its own, not the username's "
        "(which anyone can use up); it stops working when the password changes",
    ),
]


class SignIn(_Wire):
    username: Annotated[str, Meta(max_length=256)]
    password: Annotated[str, Meta(max_length=256)]
    device_key: DeviceKey | None = None


class SignedIn(_Wire):
    player_id: str
    name: str
    username: str | None
    token: Annotated[
        str, Meta(description="This device's own; shown once; send as Authorization: Bearer TOKEN")
    ]
    session_id: _SessionId
    device_key: Annotated[DeviceKey | None, Meta(description="null while the player has no username")]


class Account(_Wire):
    player_id: str
    name: str
    username: Annotated[str | None, Meta(description="null while the player is anonymous")]
    passkeys: Annotated[int, Meta(description="How many passkeys the player has registered")]
    session_id: Annotated[str, Meta(description="The session of the token this request sent")]
    device_key: Annotated[DeviceKey | None, Meta(description="null while the player has no username")]


class Session(_Wire):
    session_id: _SessionId
    device: Annotated[
        str, Meta(examples=["Chrome on Android"], description="From the User-Agent that opened it")
    ]
    created_at: Timestamp
    last_seen_at: Timestamp
    current: Annotated[bool, Meta(description="Whether it is the session of this request's token")]


class SessionList(_Wire):
    sessions: list[Session]


class RevokedSessions(_Wire):
    revoked: int


class PasskeyOptions(_Wire):
    challenge_id: Annotated[
        str, Meta(description="Send it back with the answer; usable once, expires in 5 minutes")
    ]
    options: Annotated[
        dict[str, Any],
        Meta(
            description="PublicKeyCredentialCreationOptions or ...RequestOptions, binary fields as base64url"
        ),
    ]


class PasskeyAnswer(_Wire):
    challenge_id: Annotated[str, Meta(min_length=1, max_length=64)]
    credential: Annotated[
        dict[str, Any], Meta(description="The PublicKeyCredential, as its toJSON() gives it")
    ]


class PasskeyInfo(_Wire):
    credential_id: Annotated[
        str,
        Meta(
            description="WebAuthn's credential id (base64url): names the passkey in "
            "DELETE /api/passkeys/{credential_id}"
        ),
    ]
    created_at: Timestamp
    device: Annotated[
        str,
        Meta(
            examples=["Chrome on Android"],
            description='From the User-Agent that registered it; "unknown device" for older passkeys',
        ),
    ]


class PasskeyList(_Wire):
    passkeys: Annotated[list[PasskeyInfo], Meta(description="Oldest first")]
