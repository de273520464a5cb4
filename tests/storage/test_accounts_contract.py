"""The Store port's accounts part, on every implementation (in memory, SQL on SQLite, and on
PostgreSQL when reachable): sessions by token hash and per player, revocation of one's own
sessions only, usernames unique by key, passkeys registered once, listed oldest first and
deleted by their owner only, a challenge taken once; and the migration that turns every existing
player's token into its first session."""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest
import sqlalchemy as sa

from server.service.account_ports import (
    AccountRecord,
    ChallengeRecord,
    PasskeyRecord,
    SessionRecord,
    session_id_of,
)
from server.storage import MemoryStore, SqlStore

from .databases import database
from .records import make_player, now


@pytest.fixture(params=["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def store(request, tmp_path) -> AsyncIterator:
    if request.param == "memory":
        yield MemoryStore()
        return
    async with database(request.param, tmp_path) as engine:
        yield SqlStore(engine)


def session_for(player_id: str, device: str = "phone", minutes: int = 0) -> SessionRecord:
    token_hash = secrets.token_hex(32)
    at = now() + timedelta(minutes=minutes)
    return SessionRecord(session_id_of(token_hash), player_id, token_hash, device, at, at)


async def test_a_player_has_its_first_session_and_is_found_by_any_of_its_sessions(store):
    ada = await make_player(store)
    phone = session_for(ada.player_id, minutes=1)
    await store.create_session(phone)
    found = await store.player_by_token_hash(phone.token_hash)
    assert found is not None and (found.player_id, found.name, found.token_hash) == (
        ada.player_id,
        "Ada",
        phone.token_hash,
    )
    sessions = await store.sessions_of(ada.player_id)
    assert [s.session_id for s in sessions] == [session_id_of(ada.token_hash), phone.session_id]
    assert sessions[0].device == "unknown device"
    assert await store.session_by_token_hash(phone.token_hash) == phone
    later = now() + timedelta(hours=1)
    await store.touch_session(phone.session_id, later)
    assert (await store.session_by_token_hash(phone.token_hash)).last_seen_at == later  # type: ignore[union-attr]


async def test_deleting_sessions_touches_only_the_players_own(store):
    ada, bob = await make_player(store), await make_player(store, "Bob")
    phone = session_for(ada.player_id)
    await store.create_session(phone)
    bobs = session_id_of(bob.token_hash)
    assert await store.delete_sessions(ada.player_id, [phone.session_id, bobs, "s_nope"]) == [
        phone.session_id
    ]
    assert await store.player_by_token_hash(phone.token_hash) is None
    assert await store.player_by_token_hash(bob.token_hash) is not None
    assert await store.delete_sessions(ada.player_id, []) == []


async def test_usernames_are_unique_by_key(store):
    ada, bob = await make_player(store), await make_player(store, "Bob")
    assert await store.account_of(ada.player_id) is None
    assert await store.set_account(AccountRecord(ada.player_id, "Ada", "hash-a"), "ada")
    assert not await store.set_account(AccountRecord(bob.player_id, "ADA", "hash-b"), "ada")
    assert await store.account_of(bob.player_id) is None
    assert await store.account_by_key("ada") == AccountRecord(ada.player_id, "Ada", "hash-a")
    assert await store.account_by_key("bob") is None


async def test_a_passkey_is_registered_once_and_its_sign_count_moves(store):
    ada = await make_player(store)
    key = PasskeyRecord("cred-1", ada.player_id, b"\x01\x02", 0, now())
    assert await store.add_passkey(key)
    assert not await store.add_passkey(PasskeyRecord("cred-1", ada.player_id, b"\x03", 0, now()))
    await store.set_sign_count("cred-1", 5)
    assert (await store.passkey("cred-1")).sign_count == 5  # type: ignore[union-attr]
    assert [p.credential_id for p in await store.passkeys_of(ada.player_id)] == ["cred-1"]
    assert await store.passkey("cred-2") is None


async def test_a_passkey_is_listed_oldest_first_with_its_device_and_deleted_by_its_owner_only(store):
    ada, bob = await make_player(store), await make_player(store, "Bob")
    t = now()
    later = PasskeyRecord(
        "cred-later", ada.player_id, b"\x02", 0, t + timedelta(minutes=1), "Firefox on Linux"
    )
    first = PasskeyRecord("cred-first", ada.player_id, b"\x01", 0, t, "Chrome on Android")
    bobs = PasskeyRecord("cred-bob", bob.player_id, b"\x03", 0, t)
    for key in (later, first, bobs):
        assert await store.add_passkey(key)
    assert await store.passkeys_of(ada.player_id) == [first, later]
    assert (await store.passkey("cred-bob")).device == "unknown device"  # type: ignore[union-attr]

    assert not await store.delete_passkey(ada.player_id, "cred-bob")  # another player's
    assert not await store.delete_passkey(ada.player_id, "cred-nope")  # unknown
    assert await store.passkey("cred-bob") == bobs
    assert await store.delete_passkey(ada.player_id, "cred-later")
    assert await store.passkey("cred-later") is None
    assert await store.passkeys_of(ada.player_id) == [first]
    assert not await store.delete_passkey(ada.player_id, "cred-later")  # once
    assert [p.credential_id for p in await store.passkeys_of(bob.player_id)] == ["cred-bob"]


async def test_a_challenge_is_taken_once_and_expired_ones_are_dropped(store):
    ada = await make_player(store)
    t = now()
    old = ChallengeRecord("c-old", "login", b"old", None, t + timedelta(seconds=1))
    await store.put_challenge(old, t)
    fresh = ChallengeRecord("c-new", "register", b"new", ada.player_id, t + timedelta(minutes=10))
    await store.put_challenge(fresh, t + timedelta(minutes=1))  # old has expired by then
    assert await store.take_challenge("c-old") is None
    results = await asyncio.gather(store.take_challenge("c-new"), store.take_challenge("c-new"))
    assert sorted(results, key=lambda r: r is None) == [fresh, None]


async def test_the_migration_turns_every_players_token_into_its_first_session(tmp_path):
    from server.storage import create_engine, upgrade

    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'old.db'}")
    try:
        await upgrade(engine, "0001")
        token_hash = hashlib.sha256(b"an old token").hexdigest()
        async with engine.begin() as db:
            await db.execute(
                sa.text(
                    "INSERT INTO players (id, name, token_hash, created_at) VALUES ('p_old', 'Old', :h, :t)"
                ),
                {"h": token_hash, "t": now()},
            )
        await upgrade(engine)
        store = SqlStore(engine)
        found = await store.player_by_token_hash(token_hash)
        assert found is not None and found.player_id == "p_old"
        async with engine.connect() as db:
            columns = await db.run_sync(
                lambda c: {col["name"] for col in sa.inspect(c).get_columns("players")}
            )
        assert {"username", "username_key", "password_hash"} <= columns
        assert [s.session_id for s in await store.sessions_of("p_old")] == [session_id_of(token_hash)]
    finally:
        await engine.dispose()
