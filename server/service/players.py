"""Players: creating one, and knowing a player by its token.

A token is never stored, only its sha256 hash, as a session (one per device; see
:mod:`.accounts`). The players seen are remembered by token hash (at most ``known`` of them,
least recently used forgotten first); an unknown token is not remembered and is asked of the
store every time. A revoked session is forgotten here at once (:meth:`Players.forget`), by
this process when it revokes and by the others when the broadcaster tells them; after
notifications may have been lost, everything is forgotten.
"""

from __future__ import annotations

import hashlib
import logging
import unicodedata
from typing import Any

from server.bots import DIFFICULTIES

from .account_ports import UNKNOWN_DEVICE, session_id_of
from .clock import Clock
from .errors import BadRequest, Unauthorized
from .ids import Ids
from .metrics import Metrics
from .ports import PlayerRecord, Store

log = logging.getLogger("server.service")

MAX_NAME = 40
PLAYERS_KNOWN = 10_000
"""Players a process remembers by token (about 200 bytes each)."""


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def clean_name(name: Any) -> str:
    """A display name: 1 to 40 printable characters, surrounding spaces removed."""
    if not isinstance(name, str):
        raise BadRequest("name must be a string")
    text = unicodedata.normalize("NFC", name).strip()
    if not text:
        raise BadRequest("name must not be empty")
    if len(text) > MAX_NAME:
        raise BadRequest(f"name must be at most {MAX_NAME} characters")
    if any(unicodedata.category(ch)[0] == "C" for ch in text):
        raise BadRequest("name must not contain control characters")
    if _reads_as_the_computer(text):
        raise BadRequest("that name is the computer's: choose another")
    return text


def _reads_as_the_computer(name: str) -> bool:
    """Whether ``name`` would pass for the computer's own, e.g. ``"Computer (Hard)"``,
    ``"computer"`` or ``"COMPUTER  hard!"``: its letters and digits, case and width folded, are
    "computer" alone or followed by a difficulty's name.

    >>> [_reads_as_the_computer(n) for n in ("Computer (Hard)", "COMPUTER  normal!", "Computerlove", "Ada")]
    [True, True, False, False]
    """
    letters = "".join(ch for ch in unicodedata.normalize("NFKC", name).casefold() if ch.isalnum())
    return letters in {"computer", *(f"computer{d}" for d in DIFFICULTIES)}


class Players:
    def __init__(
        self, store: Store, clock: Clock, ids: Ids, metrics: Metrics, *, known: int = PLAYERS_KNOWN
    ) -> None:
        self.store = store
        self.clock = clock
        self.ids = ids
        self.metrics = metrics
        self.known = known
        self._by_token: dict[str, PlayerRecord] = {}
        """Players by token hash, most recently used last."""
        self._forgotten = 0
        """How many times sessions were forgotten (a store read older than that is not kept)."""

    async def create(self, name: Any, device: str = UNKNOWN_DEVICE) -> tuple[PlayerRecord, str]:
        name = clean_name(name)
        token = self.ids.token()
        player = PlayerRecord(self.ids.player_id(), name, hash_token(token), self.clock.now())
        await self.store.create_player(player, device)
        self._remember(player)
        self.metrics.players_created.inc()
        log.info("player created", extra={"player_id": player.player_id})
        return player, token

    async def authenticate(self, token: str | None) -> PlayerRecord:
        if not token:
            raise Unauthorized("missing token: send Authorization: Bearer TOKEN")
        player = await self.by_token_hash(hash_token(token))
        if player is None:
            raise Unauthorized("unknown token")
        return player

    async def by_token_hash(self, token_hash: str) -> PlayerRecord | None:
        player = self._by_token.pop(token_hash, None)
        if player is None:
            forgotten = self._forgotten
            player = await self.store.player_by_token_hash(token_hash)
            if player is None or forgotten != self._forgotten:
                # (A revocation meanwhile may have been of this very session: do not remember
                # what the store said before it.)
                return player
        self._remember(player)
        return player

    def forget(self, session_ids: list[str]) -> None:
        """Forget the players remembered by these sessions' tokens (they were revoked)."""
        self._forgotten += 1
        gone = set(session_ids)
        for token_hash in [h for h in self._by_token if session_id_of(h) in gone]:
            del self._by_token[token_hash]

    def forget_all(self) -> None:
        self._forgotten += 1
        self._by_token.clear()

    def _remember(self, player: PlayerRecord) -> None:
        self._by_token[player.token_hash] = player
        if len(self._by_token) > self.known:
            del self._by_token[next(iter(self._by_token))]
