"""Passkeys (WebAuthn, the ``webauthn`` package): registering one while signed in, signing in
with one (a new session, like a password sign-in), and the player's own passkeys listed and
removed (revoking sessions leaves passkeys: one added by a stolen session is removed here).

A ceremony is two calls: the options (a fresh challenge, stored server-side for
``CHALLENGE_SECONDS`` and usable once) and the authenticator's answer, verified against that
challenge, the relying party id and the origin. The transport says what the relying party id
and origin are (the request's public host, as the proxy reports it). Credentials are
discoverable, so signing in needs no username first.

A passkey is the only factor of its sign-in, so both ceremonies require *user verification*
(the device's PIN, fingerprint or face, not just a touch): an authenticator that reports only
the user's presence (a plain security key picked up by anyone) is refused.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from .account_ports import UNKNOWN_DEVICE, ChallengeRecord, PasskeyRecord
from .accounts import Accounts
from .errors import BadRequest, Conflict, NotFound, Unauthorized
from .ports import PlayerRecord

log = logging.getLogger("server.service")

CHALLENGE_SECONDS = 300.0
MAX_CREDENTIAL_ID = 700
"""The longest credential id stored (base64url), as the column."""
RP_NAME = "Gin Rummy"


class Passkeys:
    def __init__(self, accounts: Accounts, *, challenge_seconds: float = CHALLENGE_SECONDS) -> None:
        self.accounts = accounts
        self.store = accounts.store
        self.clock = accounts.clock
        self.ids = accounts.ids
        self.challenge_seconds = challenge_seconds

    async def registration_options(self, player: PlayerRecord, rp_id: str) -> tuple[str, str]:
        """``(challenge_id, options as JSON)`` for ``navigator.credentials.create``."""
        account = await self.store.account_of(player.player_id)
        existing = await self.store.passkeys_of(player.player_id)
        options = generate_registration_options(
            rp_id=rp_id,
            rp_name=RP_NAME,
            user_id=player.player_id.encode(),
            user_name=account.username if account is not None else player.name,
            user_display_name=player.name,
            timeout=int(self.challenge_seconds * 1000),
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.REQUIRED,
                user_verification=UserVerificationRequirement.REQUIRED,
            ),
            exclude_credentials=[
                PublicKeyCredentialDescriptor(id=base64url_to_bytes(p.credential_id)) for p in existing
            ],
        )
        challenge_id = await self._keep(options.challenge, "register", player.player_id)
        return challenge_id, options_to_json(options)

    async def register(
        self,
        player: PlayerRecord,
        challenge_id: Any,
        credential: Any,
        rp_id: str,
        origin: str,
        device: str = UNKNOWN_DEVICE,
    ) -> PasskeyRecord:
        """``device``: the label of the device registering it (as its session's)."""
        challenge = await self._take(challenge_id, "register")
        if challenge.player_id != player.player_id:
            raise BadRequest("unknown or expired challenge")
        try:
            verified = verify_registration_response(
                credential=_credential(credential),
                expected_challenge=challenge.challenge,
                expected_rp_id=rp_id,
                expected_origin=origin,
                require_user_verification=True,
            )
        except (WebAuthnException, ValueError, KeyError, TypeError) as e:
            raise BadRequest(f"the passkey could not be verified: {e}") from None
        passkey = PasskeyRecord(
            bytes_to_base64url(verified.credential_id),
            player.player_id,
            verified.credential_public_key,
            verified.sign_count,
            self.clock.now(),
            device,
        )
        if not await self.store.add_passkey(passkey):
            raise Conflict("that passkey is registered already")
        log.info("passkey registered", extra={"player_id": player.player_id})
        return passkey

    async def authentication_options(self, rp_id: str) -> tuple[str, str]:
        options = generate_authentication_options(
            rp_id=rp_id,
            timeout=int(self.challenge_seconds * 1000),
            user_verification=UserVerificationRequirement.REQUIRED,
        )
        challenge_id = await self._keep(options.challenge, "login", None)
        return challenge_id, options_to_json(options)

    async def sign_in(
        self, challenge_id: Any, credential: Any, rp_id: str, origin: str, device: str
    ) -> tuple[PlayerRecord, str]:
        challenge = await self._take(challenge_id, "login")
        credential = _credential(credential)
        raw_id = credential.get("id")
        passkey = (
            await self.store.passkey(raw_id)
            if isinstance(raw_id, str) and len(raw_id) <= MAX_CREDENTIAL_ID
            else None
        )
        if passkey is None:
            raise Unauthorized("unknown passkey")
        try:
            verified = verify_authentication_response(
                credential=credential,
                expected_challenge=challenge.challenge,
                expected_rp_id=rp_id,
                expected_origin=origin,
                credential_public_key=passkey.public_key,
                credential_current_sign_count=passkey.sign_count,
                require_user_verification=True,
            )
        except (WebAuthnException, ValueError, KeyError, TypeError):
            log.info("passkey sign-in refused", extra={"player_id": passkey.player_id})
            raise Unauthorized("the passkey could not be verified") from None
        await self.store.set_sign_count(passkey.credential_id, verified.new_sign_count)
        return await self.accounts.open_session(passkey.player_id, device)

    async def of(self, player: PlayerRecord) -> list[PasskeyRecord]:
        """The player's passkeys, oldest first."""
        return await self.store.passkeys_of(player.player_id)

    async def remove(self, player: PlayerRecord, credential_id: str) -> None:
        """Remove one of the player's own passkeys: it signs in no more. Another player's and an
        unknown one are the same :class:`NotFound` (nothing says which)."""
        if not 0 < len(credential_id) <= MAX_CREDENTIAL_ID or not await self.store.delete_passkey(
            player.player_id, credential_id
        ):
            raise NotFound("no such passkey")
        log.info("passkey removed", extra={"player_id": player.player_id})

    async def _keep(self, challenge: bytes, kind: str, player_id: str | None) -> str:
        challenge_id = self.ids.token()
        now = self.clock.now()
        expires = now + timedelta(seconds=self.challenge_seconds)
        await self.store.put_challenge(
            ChallengeRecord(challenge_id, kind, challenge, player_id, expires), now
        )
        return challenge_id

    async def _take(self, challenge_id: Any, kind: str) -> ChallengeRecord:
        if not isinstance(challenge_id, str) or not 0 < len(challenge_id) <= 64:
            raise BadRequest("unknown or expired challenge")
        challenge = await self.store.take_challenge(challenge_id)
        if challenge is None or challenge.kind != kind or challenge.expires_at <= self.clock.now():
            raise BadRequest("unknown or expired challenge")
        return challenge


def _credential(credential: Any) -> dict[str, Any]:
    if not isinstance(credential, dict):
        raise BadRequest("credential must be an object (the PublicKeyCredential as JSON)")
    return credential
