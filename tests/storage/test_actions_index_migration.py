"""Migration 0009 drops the unique index on ``actions (match_id, seat, client_id)`` (on SQLite by
rebuilding ``actions``) and keeps every action, the primary key and the foreign key to its match
with its cascade; downgrade puts the index back."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from server.service.ports import Change
from server.storage import SqlStore, upgrade

from .databases import database
from .records import make_match, make_player, next_version, pass_action
from .test_token_column_migration import downgrade, foreign_keys_on


async def uniques(engine) -> list[list[str]]:
    async with engine.connect() as db:
        return await db.run_sync(
            lambda c: [u["column_names"] for u in sa.inspect(c).get_unique_constraints("actions")]
        )


async def insert_action(engine, match_id: str, seq: int, client_id: str) -> None:
    async with engine.begin() as db:
        await db.execute(
            sa.text(
                "INSERT INTO actions (match_id, seq, seat, action, client_id, version, created_at)"
                " VALUES (:m, :s, 0, '{\"kind\": \"pass\"}', :c, :s, '2026-12-03 00:00:00')"
            ),
            {"m": match_id, "s": seq, "c": client_id},
        )


@pytest.mark.parametrize("kind", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def test_dropping_the_client_id_index_keeps_every_action_and_key_and_downgrade_restores_it(
    kind, tmp_path
):
    async with database(kind, tmp_path, "sessions_only") as engine:
        store = SqlStore(engine)
        ada = await make_player(store)
        meta = await make_match(store, ada)
        v1 = next_version(meta)
        assert await store.commit(Change(0, v1, pass_action(1, 1, "first")))
        assert await store.commit(Change(1, next_version(v1), pass_action(2, 2, "second", seat=1)))
        assert await uniques(engine) == [["match_id", "seat", "client_id"]]

        await upgrade(engine)
        assert await uniques(engine) == []
        assert await foreign_keys_on(engine)
        _, actions = await store.load_match(meta.match_id)
        assert [(a.seq, a.seat, a.client_id) for a in actions] == [(1, 0, "first"), (2, 1, "second")]
        with pytest.raises(sa.exc.IntegrityError):  # the primary key (match_id, seq) stands
            await insert_action(engine, meta.match_id, 2, "another")
        with pytest.raises(sa.exc.IntegrityError):  # and the foreign key to the match
            await insert_action(engine, "no_such_match", 1, "x")

        await downgrade(engine, "sessions_only")
        assert await uniques(engine) == [["match_id", "seat", "client_id"]]
        with pytest.raises(sa.exc.IntegrityError):
            await insert_action(engine, meta.match_id, 3, "first")

        await upgrade(engine)
        assert await uniques(engine) == []
        # The rebuilt table keeps the cascade: a match's deletion takes its actions.
        async with engine.begin() as db:
            await db.execute(sa.text("DELETE FROM matches WHERE id = :m"), {"m": meta.match_id})
            left = (await db.execute(sa.text("SELECT count(*) FROM actions"))).scalar()
        assert left == 0
