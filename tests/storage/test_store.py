"""What only the SQL store has, on SQLite and PostgreSQL: migrations match the models, reads
batched within the database's limits, a load that is one moment of the match, and the prepared
update covering every changing column. (What every Store does is in test_store_contract.py.)"""

from __future__ import annotations

from datetime import timedelta

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from server.service.ports import Change
from server.storage.models import Base

from .records import make_match, make_player, next_version, now, pass_action


async def test_the_migrations_build_exactly_the_models(engine):
    def diff(connection):
        ctx = MigrationContext.configure(connection, opts={"compare_type": True})
        return compare_metadata(ctx, Base.metadata)

    async with engine.connect() as conn:
        assert await conn.run_sync(diff) == []


async def test_match_versions_takes_several_queries_for_many_matches(store, monkeypatch):
    import server.storage.repository as repository

    ada = await make_player(store)
    metas = [await make_match(store, ada) for _ in range(5)]
    moved = next_version(metas[2])
    assert await store.commit(Change(metas[2].version, moved, pass_action(1, moved.version, "c1")))
    monkeypatch.setattr(repository, "VERSIONS_AT_ONCE", 2)  # so it takes several queries
    ids = [m.match_id for m in metas] + ["m_missing"]
    assert await store.match_versions(ids) == {m.match_id: (1 if i == 2 else 0) for i, m in enumerate(metas)}


async def test_a_match_loads_as_of_its_row_even_if_a_newer_action_is_read_with_it(store):
    """The row and the actions are two reads: an action committed in between (newer than the
    row that was read) must not be replayed under the row's older version."""
    from server.storage.models import MatchAction

    ada = await make_player(store)
    meta = await make_match(store, ada)
    new = next_version(meta)
    assert await store.commit(Change(0, new, pass_action(1, 1, "c1")))
    # What a reader in between sees: the action of version 2 is there, the row still says 1.
    a = pass_action(2, 2, "c2")
    async with store.engine.begin() as conn:
        await conn.execute(
            MatchAction.__table__.insert(),
            {
                "match_id": meta.match_id,
                "seq": 2,
                "seat": 0,
                "action": a.action,
                "client_id": "c2",
                "version": 2,
                "created_at": a.created_at,
            },
        )
    loaded, actions = await store.load_match(meta.match_id)
    assert loaded.version == 1 and [x.version for x in actions] == [1]


async def test_the_prepared_match_update_writes_every_column_a_change_carries(store):
    from server.storage.repository import ROW_COLUMNS, row_values

    ada = await make_player(store)
    meta = await make_match(store, ada)
    assert set(ROW_COLUMNS) == set(row_values(meta))
    done = next_version(
        meta,
        status="finished",
        winner=1,
        resigned=0,
        scores=[3, 4],
        hands_won=[1, 2],
        hand_number=3,
        outcome={"winner": 1, "reason": "resign", "totals": []},
        updated_at=now() + timedelta(minutes=5),
    )
    assert await store.commit(Change(0, done))
    loaded = await store.load_meta(meta.match_id)
    assert loaded == done
