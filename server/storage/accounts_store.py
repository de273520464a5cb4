"""The SQL store's accounts part (:class:`~server.service.account_ports.AccountStore`):
sessions, usernames and password hashes, passkeys, WebAuthn challenges. A mixin of
:class:`~server.storage.repository.SqlStore`, which provides ``sessions`` (its session maker)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import CursorResult, bindparam, delete, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from server.service.account_ports import AccountRecord, ChallengeRecord, PasskeyRecord, SessionRecord

from .accounts_models import CHALLENGES, PASSKEYS, SESSIONS
from .models import PLAYERS

_SESSION_COLUMNS = (
    SESSIONS.c.id,
    SESSIONS.c.player_id,
    SESSIONS.c.token_hash,
    SESSIONS.c.device,
    SESSIONS.c.created_at,
    SESSIONS.c.last_seen_at,
)
# Built once: built per call, ``in_(a_list)`` leaves its bound parameters in reference cycles,
# which a freeze of the collector could catch alive.
_OWN = (SESSIONS.c.player_id == bindparam("player_id"), SESSIONS.c.id.in_(bindparam("ids", expanding=True)))
_OWN_SESSIONS = select(SESSIONS.c.id).where(*_OWN)
_DELETE_OWN_SESSIONS = delete(SESSIONS).where(*_OWN)
_PASSKEY_COLUMNS = (
    PASSKEYS.c.credential_id,
    PASSKEYS.c.player_id,
    PASSKEYS.c.public_key,
    PASSKEYS.c.sign_count,
    PASSKEYS.c.created_at,
    PASSKEYS.c.device,
)


class AccountsSql:
    sessions: async_sessionmaker[AsyncSession]

    async def create_session(self, session: SessionRecord) -> None:
        async with self.sessions.begin() as s:
            await s.execute(insert(SESSIONS).values(_session_values(session)))

    async def sessions_of(self, player_id: str) -> list[SessionRecord]:
        query = (
            select(*_SESSION_COLUMNS)
            .where(SESSIONS.c.player_id == player_id)
            .order_by(SESSIONS.c.created_at, SESSIONS.c.id)
        )
        async with self.sessions() as s:
            return [SessionRecord(*row) for row in await s.execute(query)]

    async def session_by_token_hash(self, token_hash: str) -> SessionRecord | None:
        async with self.sessions() as s:
            row = (
                await s.execute(select(*_SESSION_COLUMNS).where(SESSIONS.c.token_hash == token_hash))
            ).one_or_none()
        return None if row is None else SessionRecord(*row)

    async def touch_session(self, session_id: str, at: datetime) -> None:
        async with self.sessions.begin() as s:
            await s.execute(update(SESSIONS).where(SESSIONS.c.id == session_id).values(last_seen_at=at))

    async def delete_sessions(self, player_id: str, session_ids: list[str]) -> list[str]:
        if not session_ids:
            return []
        values = {"player_id": player_id, "ids": session_ids}
        async with self.sessions.begin() as s:
            found = list((await s.execute(_OWN_SESSIONS, values)).scalars())
            await s.execute(_DELETE_OWN_SESSIONS, values)
        return found

    async def set_account(self, account: AccountRecord, username_key: str) -> bool:
        try:
            async with self.sessions.begin() as s:
                await s.execute(
                    update(PLAYERS)
                    .where(PLAYERS.c.id == account.player_id)
                    .values(
                        username=account.username,
                        username_key=username_key,
                        password_hash=account.password_hash,
                    )
                )
        except IntegrityError:
            return False
        return True

    async def account_by_key(self, username_key: str) -> AccountRecord | None:
        return await self._account(PLAYERS.c.username_key == username_key)

    async def account_of(self, player_id: str) -> AccountRecord | None:
        return await self._account(PLAYERS.c.id == player_id)

    async def _account(self, where: object) -> AccountRecord | None:
        query = select(PLAYERS.c.id, PLAYERS.c.username, PLAYERS.c.password_hash).where(
            where,  # type: ignore[arg-type]
            PLAYERS.c.username.is_not(None),
        )
        async with self.sessions() as s:
            row = (await s.execute(query)).one_or_none()
        return None if row is None else AccountRecord(*row)

    async def add_passkey(self, passkey: PasskeyRecord) -> bool:
        try:
            async with self.sessions.begin() as s:
                await s.execute(
                    insert(PASSKEYS).values(
                        credential_id=passkey.credential_id,
                        player_id=passkey.player_id,
                        public_key=passkey.public_key,
                        sign_count=passkey.sign_count,
                        created_at=passkey.created_at,
                        device=passkey.device,
                    )
                )
        except IntegrityError:
            return False
        return True

    async def passkey(self, credential_id: str) -> PasskeyRecord | None:
        async with self.sessions() as s:
            row = (
                await s.execute(select(*_PASSKEY_COLUMNS).where(PASSKEYS.c.credential_id == credential_id))
            ).one_or_none()
        return None if row is None else PasskeyRecord(*row)

    async def passkeys_of(self, player_id: str) -> list[PasskeyRecord]:
        query = (
            select(*_PASSKEY_COLUMNS)
            .where(PASSKEYS.c.player_id == player_id)
            .order_by(PASSKEYS.c.created_at, PASSKEYS.c.credential_id)
        )
        async with self.sessions() as s:
            return [PasskeyRecord(*row) for row in await s.execute(query)]

    async def delete_passkey(self, player_id: str, credential_id: str) -> bool:
        query = delete(PASSKEYS).where(
            PASSKEYS.c.player_id == player_id, PASSKEYS.c.credential_id == credential_id
        )
        async with self.sessions.begin() as s:
            # The row count, not RETURNING: SQLite has that only from 3.35 (this store needs 3.33).
            deleted = cast("CursorResult[Any]", await s.execute(query))
            return bool(deleted.rowcount)

    async def set_sign_count(self, credential_id: str, sign_count: int) -> None:
        async with self.sessions.begin() as s:
            await s.execute(
                update(PASSKEYS)
                .where(PASSKEYS.c.credential_id == credential_id)
                .values(sign_count=sign_count)
            )

    async def put_challenge(self, challenge: ChallengeRecord, now: datetime) -> None:
        async with self.sessions.begin() as s:
            # Expired challenges go whenever a new one comes (they are never answerable).
            await s.execute(delete(CHALLENGES).where(CHALLENGES.c.expires_at < now))
            await s.execute(
                insert(CHALLENGES).values(
                    id=challenge.challenge_id,
                    kind=challenge.kind,
                    challenge=challenge.challenge,
                    player_id=challenge.player_id,
                    expires_at=challenge.expires_at,
                )
            )

    async def take_challenge(self, challenge_id: str) -> ChallengeRecord | None:
        columns = (
            CHALLENGES.c.id,
            CHALLENGES.c.kind,
            CHALLENGES.c.challenge,
            CHALLENGES.c.player_id,
            CHALLENGES.c.expires_at,
        )
        async with self.sessions.begin() as s:
            # DELETE ... RETURNING: of two takers at once, one gets the row.
            row = (
                await s.execute(delete(CHALLENGES).where(CHALLENGES.c.id == challenge_id).returning(*columns))
            ).one_or_none()
        return None if row is None else ChallengeRecord(*row)


def _session_values(session: SessionRecord) -> dict[str, object]:
    return {
        "id": session.session_id,
        "player_id": session.player_id,
        "token_hash": session.token_hash,
        "device": session.device,
        "created_at": session.created_at,
        "last_seen_at": session.last_seen_at,
    }
