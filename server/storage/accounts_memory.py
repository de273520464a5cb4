"""The in-memory store's accounts part (a mixin of :class:`~server.storage.memory.MemoryStore`),
with the SQL store's semantics: unique token hashes, usernames unique by their key, a
challenge taken at most once. ``_players`` is the MemoryStore's."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from server.service.account_ports import (
    AccountRecord,
    ChallengeRecord,
    PasskeyRecord,
    SessionRecord,
    session_id_of,
)
from server.service.ports import PlayerRecord


class AccountsMemory:
    _players: dict[str, PlayerRecord]

    def _accounts_init(self) -> None:
        self._sessions: dict[str, SessionRecord] = {}
        self._accounts: dict[str, tuple[AccountRecord, str]] = {}
        self._passkeys: dict[str, PasskeyRecord] = {}
        self._challenges: dict[str, ChallengeRecord] = {}

    async def create_session(self, session: SessionRecord) -> None:
        if session.player_id not in self._players:
            raise ValueError(f"no player {session.player_id!r}")
        if session.session_id in self._sessions or any(
            s.token_hash == session.token_hash for s in self._sessions.values()
        ):
            raise ValueError("that session or token exists already")
        self._sessions[session.session_id] = session

    async def sessions_of(self, player_id: str) -> list[SessionRecord]:
        mine = [s for s in self._sessions.values() if s.player_id == player_id]
        return sorted(mine, key=lambda s: (s.created_at, s.session_id))

    async def session_by_token_hash(self, token_hash: str) -> SessionRecord | None:
        found = self._sessions.get(session_id_of(token_hash))
        return found if found is not None and found.token_hash == token_hash else None

    async def touch_session(self, session_id: str, at: datetime) -> None:
        if session_id in self._sessions:
            self._sessions[session_id] = replace(self._sessions[session_id], last_seen_at=at)

    async def delete_sessions(self, player_id: str, session_ids: list[str]) -> list[str]:
        gone = [
            i
            for i in dict.fromkeys(session_ids)
            if i in self._sessions and self._sessions[i].player_id == player_id
        ]
        for i in gone:
            del self._sessions[i]
        return gone

    async def set_account(self, account: AccountRecord, username_key: str) -> bool:
        for player_id, (_, key) in self._accounts.items():
            if key == username_key and player_id != account.player_id:
                return False
        self._accounts[account.player_id] = (account, username_key)
        return True

    async def account_by_key(self, username_key: str) -> AccountRecord | None:
        return next((a for a, key in self._accounts.values() if key == username_key), None)

    async def account_of(self, player_id: str) -> AccountRecord | None:
        found = self._accounts.get(player_id)
        return None if found is None else found[0]

    async def add_passkey(self, passkey: PasskeyRecord) -> bool:
        if passkey.credential_id in self._passkeys:
            return False
        self._passkeys[passkey.credential_id] = passkey
        return True

    async def passkey(self, credential_id: str) -> PasskeyRecord | None:
        return self._passkeys.get(credential_id)

    async def passkeys_of(self, player_id: str) -> list[PasskeyRecord]:
        return sorted(
            (p for p in self._passkeys.values() if p.player_id == player_id),
            key=lambda p: (p.created_at, p.credential_id),
        )

    async def delete_passkey(self, player_id: str, credential_id: str) -> bool:
        found = self._passkeys.get(credential_id)
        if found is None or found.player_id != player_id:
            return False
        del self._passkeys[credential_id]
        return True

    async def set_sign_count(self, credential_id: str, sign_count: int) -> None:
        if credential_id in self._passkeys:
            self._passkeys[credential_id] = replace(self._passkeys[credential_id], sign_count=sign_count)

    async def put_challenge(self, challenge: ChallengeRecord, now: datetime) -> None:
        for key in [k for k, c in self._challenges.items() if c.expires_at < now]:
            del self._challenges[key]
        self._challenges[challenge.challenge_id] = challenge

    async def take_challenge(self, challenge_id: str) -> ChallengeRecord | None:
        return self._challenges.pop(challenge_id, None)
