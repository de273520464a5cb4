"""Migration 0008 drops ``players.token_hash`` (a token is known by its session only) without
losing a row that hangs off a player: on SQLite it rebuilds ``players``, whose drop would
cascade to sessions, bots and the rest were foreign keys on. Downgrade puts the column back."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest
import sqlalchemy as sa
from alembic import command

from server.service.account_ports import SessionRecord, session_id_of
from server.service.ladder_ports import BotRecord
from server.service.ports import PlayerRecord
from server.storage import SqlStore, upgrade
from server.storage.engine import alembic_config

from .databases import database
from .records import make_match, make_player, now

HASH_A = hashlib.sha256(b"Ada's first token").hexdigest()
HASH_A2 = hashlib.sha256(b"Ada's phone").hexdigest()
HASH_B = hashlib.sha256(b"Bob's revoked token").hexdigest()


async def columns(engine) -> set[str]:
    async with engine.connect() as db:
        return await db.run_sync(lambda c: {col["name"] for col in sa.inspect(c).get_columns("players")})


async def token_column(engine) -> dict[str, str]:
    async with engine.connect() as db:
        rows = (await db.execute(sa.text("SELECT id, token_hash FROM players"))).all()
    return {pid: token_hash for pid, token_hash in rows}


async def downgrade(engine, revision: str) -> None:
    def run(connection) -> None:
        cfg = alembic_config()
        cfg.attributes["connection"] = connection
        command.downgrade(cfg, revision)

    async with engine.begin() as db:
        await db.run_sync(run)


async def foreign_keys_on(engine) -> bool:
    if engine.dialect.name != "sqlite":
        return True
    async with engine.connect() as db:
        return (await db.execute(sa.text("PRAGMA foreign_keys"))).scalar() == 1


@pytest.mark.parametrize("kind", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def test_dropping_the_players_token_column_keeps_every_row_and_downgrade_restores_it(kind, tmp_path):
    async with database(kind, tmp_path, "ladder") as engine:
        store = SqlStore(engine)
        t = now()
        async with engine.begin() as db:
            for pid, name, token_hash in [("p_a", "Ada", HASH_A), ("p_b", "Bob", HASH_B)]:
                await db.execute(
                    sa.text("INSERT INTO players (id, name, token_hash, created_at) VALUES (:p, :n, :h, :t)"),
                    {"p": pid, "n": name, "h": token_hash, "t": t},
                )
        # Ada signed in again from her phone; Bob's only session was revoked; Bob is a bot.
        for token_hash, at in [(HASH_A, t), (HASH_A2, t + timedelta(minutes=5))]:
            await store.create_session(
                SessionRecord(session_id_of(token_hash), "p_a", token_hash, "d", at, at)
            )
        ada = PlayerRecord("p_a", "Ada", HASH_A, t)
        match = await make_match(store, ada)
        await store.create_bot(BotRecord("p_b", "Bob's owner", "a bot", t))

        await upgrade(engine)
        assert "token_hash" not in await columns(engine)
        assert await foreign_keys_on(engine)
        assert [s.session_id for s in await store.sessions_of("p_a")] == [
            session_id_of(HASH_A),
            session_id_of(HASH_A2),
        ]
        assert await store.player_by_token_hash(HASH_A2) == PlayerRecord("p_a", "Ada", HASH_A2, t)
        assert await store.player_by_token_hash(HASH_B) is None
        assert await store.load_meta(match.match_id) is not None
        assert await store.bot("p_b") is not None
        cleo = await make_player(store, "Cleo")  # players are created without the column
        assert await store.player_by_token_hash(cleo.token_hash) == cleo

        await downgrade(engine, "ladder")
        assert await foreign_keys_on(engine)
        # Each player's first session's hash, or a mark no hash equals when none is left.
        assert await token_column(engine) == {
            "p_a": HASH_A,
            "p_b": "none:p_b",
            cleo.player_id: cleo.token_hash,
        }
        assert len(await store.sessions_of("p_a")) == 2 and await store.bot("p_b") is not None
        with pytest.raises(sa.exc.IntegrityError):  # NOT NULL, as 0007 made it
            async with engine.begin() as db:
                await db.execute(
                    sa.text("INSERT INTO players (id, name, created_at) VALUES ('p_x', 'X', :t)"), {"t": t}
                )

        await upgrade(engine)
        assert "token_hash" not in await columns(engine)
        assert await store.load_meta(match.match_id) is not None and len(await store.sessions_of("p_a")) == 2
