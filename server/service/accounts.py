"""Accounts, kept optional: a username and password added to the anonymous player one already
is, signing in on another device (a new session, its own token), and the player's sessions
(listed, revoked one by one or all but the current: "sign out everywhere").

Rules kept here:

- A password is only ever held as its Argon2 hash (``argon2-cffi``; hashing runs in a thread,
  it is slow on purpose); it is never logged, and neither is a token.
- A new password must not be easy to guess: ``zxcvbn`` (Dropbox's estimator: dictionaries of
  common passwords, words and names, keyboard patterns, dates, repeats, and the player's own
  names) scores it at least :data:`MIN_STRENGTH`, about a million guesses, which the sign-in
  limits make months of trying. It looks at the first :data:`STRENGTH_PREFIX` characters (its
  cost grows fast with length), in a thread.
- One error for a wrong username and a wrong password (``unauthorized``, "wrong username or
  password"), and the same work for both: an unknown username is checked against a dummy hash.
- Usernames follow the display-name rules (:func:`.players.clean_name`: nothing that reads as
  the computer) and are unique case- and width-insensitively (:func:`username_key`).
- A revoked session stops working at once: its row is deleted, this process forgets it and
  closes its sockets, and the broadcaster tells the other processes to do the same.

Rate limits on signing in are the transport's (per username and per client address). A
username's limit would let anyone keep its owner out by trying wrong passwords for it, so a
device that has signed in to the account before is held to a limit of its own instead
(OWASP's "device cookies"): every answer that shows the account gives it a *device key*
(:meth:`Accounts.device_key`), which it sends with its next sign-in (:meth:`Accounts.
known_device`). A key is a random nonce and its HMAC under the account's password hash, so it
needs nothing stored, works on every process, and stops working when the password changes.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import inspect
import logging
import unicodedata
from collections.abc import Awaitable, Callable, Sequence
from itertools import islice
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from zxcvbn import zxcvbn  # type: ignore[import-untyped]  # (no type hints)

from .account_ports import AccountRecord, SessionRecord, session_id_of
from .clock import Clock
from .errors import BadRequest, Conflict, NotFound, Unauthorized, UsernameTaken
from .ids import Ids
from .players import Players, clean_name, hash_token
from .ports import Broadcaster, PlayerRecord, Store

log = logging.getLogger("server.service")

MIN_PASSWORD = 8
MAX_PASSWORD = 256
MIN_STRENGTH = 2
"""zxcvbn's score: 2 is "somewhat guessable", at least 10^6 guesses (0 and 1 are refused)."""
STRENGTH_PREFIX = 32
"""The characters zxcvbn looks at: 23 ms at most for 32 random ones, 72 ms for 72."""
TOUCH_SECONDS = 300.0
"""A session's ``last_seen_at`` is written at most this often (per process)."""
TOUCHED_MAX = 50_000
"""The most sessions remembered as written lately; past it the one written longest ago is
forgotten (and written again when next used), not every one at once."""
WRONG = "wrong username or password"


def password_hasher() -> PasswordHasher:
    """Argon2id with OWASP's minimum (19 MiB, 2 passes, 1 lane): about 40 ms of one core on an
    idle machine. argon2-cffi's default (64 MiB, 3 passes, 4 lanes) took 1.8 s on this project's
    busy 2-core machine; the sign-in rate limits bound what an attacker can make it spend. A
    hash carries its parameters, so changing them later still verifies old hashes."""
    return PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1)


DEVICE_NONCE = 22
"""Characters of a device key's nonce (about 128 random bits)."""
MAX_DEVICE_KEY = 128


def _device_mac(account: AccountRecord, nonce: str) -> str:
    message = f"device|{account.player_id}|{nonce}".encode()
    digest = hmac.new(account.password_hash.encode(), message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


RevokedHook = Callable[[list[str]], Awaitable[None] | None]


def username_key(username: str) -> str:
    """What makes two usernames the same: NFKC, case folded.

    >>> username_key("Ada") == username_key("\\uff21\\uff24\\uff21") == username_key("ada")
    True
    """
    return unicodedata.normalize("NFKC", username).casefold()


def clean_password(password: Any) -> str:
    if not isinstance(password, str):
        raise BadRequest("password must be a string")
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise BadRequest(f"password must be {MIN_PASSWORD} to {MAX_PASSWORD} characters")
    return password


def weakness(password: str, names: Sequence[str]) -> str | None:
    """Why ``password`` is too easy to guess (zxcvbn's feedback, as a sentence), or None."""
    found = zxcvbn(password[:STRENGTH_PREFIX], user_inputs=[*names, "gin", "rummy", "ginrummy"])
    if found["score"] >= MIN_STRENGTH:
        return None
    feedback = found["feedback"]
    said = [feedback["warning"] or "It follows a common pattern.", *feedback["suggestions"]]
    return " ".join(s if s.endswith(".") else s + "." for s in said if s)


class Accounts:
    def __init__(
        self,
        store: Store,
        clock: Clock,
        ids: Ids,
        players: Players,
        broadcaster: Broadcaster,
        *,
        hasher: PasswordHasher | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        self.ids = ids
        self.players = players
        self.broadcaster = broadcaster
        self.hasher = hasher or password_hasher()
        self._dummy: str | None = None
        self._touched: dict[str, float] = {}
        self._hooks: list[RevokedHook] = []
        broadcaster.listen_revoked(self._heard_revoked)
        broadcaster.on_gap(players.forget_all)

    def on_revoked(self, hook: RevokedHook) -> None:
        """``hook(session_ids)`` runs when sessions are revoked, here or by another process (the
        transport closes their sockets)."""
        self._hooks.append(hook)

    # --- passwords ----------------------------------------------------------------------------

    async def add_password(self, player: PlayerRecord, username: Any, password: Any) -> AccountRecord:
        """Give the anonymous ``player`` a username and password (its history stays its own)."""
        name = clean_name(username)
        secret = clean_password(password)
        if await self.store.account_of(player.player_id) is not None:
            raise Conflict("this player has a username already")
        if (why := await asyncio.to_thread(weakness, secret, [name, player.name])) is not None:
            raise BadRequest(f"that password is too easy to guess. {why}")
        hashed = await asyncio.to_thread(self.hasher.hash, secret)
        account = AccountRecord(player.player_id, name, hashed)
        if not await self.store.set_account(account, username_key(name)):
            raise UsernameTaken("that username is taken")
        log.info("username added", extra={"player_id": player.player_id})
        return account

    async def sign_in(self, username: Any, password: Any, device: str) -> tuple[PlayerRecord, str]:
        """A new session of the player with this username and password; ``unauthorized`` for a
        wrong name or password alike, after the same work."""
        if not isinstance(username, str) or not isinstance(password, str) or len(password) > MAX_PASSWORD:
            raise Unauthorized(WRONG)
        account = await self.store.account_by_key(username_key(username.strip()))
        hashed = account.password_hash if account is not None else await self._dummy_hash()
        if not await asyncio.to_thread(self._verify, hashed, password) or account is None:
            log.info("sign-in refused")
            raise Unauthorized(WRONG)
        return await self.open_session(account.player_id, device)

    def _verify(self, hashed: str, password: str) -> bool:
        try:
            return self.hasher.verify(hashed, password)
        except (VerificationError, InvalidHashError):
            return False

    async def _dummy_hash(self) -> str:
        if self._dummy is None:
            self._dummy = await asyncio.to_thread(self.hasher.hash, self.ids.token())
        return self._dummy

    async def account(self, player: PlayerRecord) -> AccountRecord | None:
        return await self.store.account_of(player.player_id)

    # --- devices ------------------------------------------------------------------------------

    def device_key(self, account: AccountRecord) -> str:
        """A new key for a device that has proved it may use ``account`` (see the module's
        docstring): ``nonce.mac``."""
        nonce = self.ids.token()[:DEVICE_NONCE]
        return f"{nonce}.{_device_mac(account, nonce)}"

    async def known_device(self, username: Any, key: Any) -> str | None:
        """The nonce of ``key`` when it is a device key of the account named ``username`` (the
        key of that device's own sign-in limit), else None; never an error."""
        if not isinstance(username, str) or not isinstance(key, str) or len(key) > MAX_DEVICE_KEY:
            return None
        nonce, dot, mac = key.partition(".")
        if not dot or not nonce:
            return None
        account = await self.store.account_by_key(username_key(username.strip()))
        if account is None or not hmac.compare_digest(mac.encode(), _device_mac(account, nonce).encode()):
            return None
        return nonce

    # --- sessions -----------------------------------------------------------------------------

    async def open_session(self, player_id: str, device: str) -> tuple[PlayerRecord, str]:
        token = self.ids.token()
        token_hash = hash_token(token)
        now = self.clock.now()
        await self.store.create_session(
            SessionRecord(session_id_of(token_hash), player_id, token_hash, device, now, now)
        )
        player = await self.players.by_token_hash(token_hash)
        if player is None:  # revoked in the instant since it was made
            raise Unauthorized("the new session was revoked")
        log.info("signed in", extra={"player_id": player_id})
        return player, token

    async def seen(self, player: PlayerRecord) -> None:
        """Note that ``player``'s session is in use (written at most every ``TOUCH_SECONDS``)."""
        session_id = session_id_of(player.token_hash)
        now = self.clock.monotonic()
        touched = self._touched
        last = touched.get(session_id)
        if last is not None and now - last < TOUCH_SECONDS:
            return
        # Kept in the order written: the oldest first, forgotten once stale or past the cap.
        touched.pop(session_id, None)
        touched[session_id] = now
        for oldest, at in list(islice(touched.items(), 2)):
            if len(touched) <= TOUCHED_MAX and now - at < TOUCH_SECONDS:
                break
            del touched[oldest]
        await self.store.touch_session(session_id, self.clock.now())

    async def sessions(self, player: PlayerRecord) -> list[SessionRecord]:
        return await self.store.sessions_of(player.player_id)

    async def revoke(self, player: PlayerRecord, session_id: str) -> None:
        """End one of the player's sessions (its own current one: signing out)."""
        if not await self._revoke(player, [session_id]):
            raise NotFound(f"no session {session_id!r}")

    async def revoke_others(self, player: PlayerRecord) -> int:
        """End every session of the player but the current one; how many ended."""
        current = session_id_of(player.token_hash)
        others = [
            s.session_id for s in await self.store.sessions_of(player.player_id) if s.session_id != current
        ]
        return len(await self._revoke(player, others))

    async def _revoke(self, player: PlayerRecord, session_ids: list[str]) -> list[str]:
        gone = await self.store.delete_sessions(player.player_id, session_ids)
        if gone:
            log.info("sessions revoked", extra={"player_id": player.player_id, "count": len(gone)})
            await self._revoked(gone)
            await self.broadcaster.publish_revoked(gone)
        return gone

    async def _heard_revoked(self, session_ids: list[str]) -> None:
        await self._revoked(session_ids)

    async def _revoked(self, session_ids: list[str]) -> None:
        self.players.forget(session_ids)
        for session_id in session_ids:
            self._touched.pop(session_id, None)
        for hook in list(self._hooks):
            result = hook(session_ids)
            if inspect.isawaitable(result):
                await result
