"""The group commit's SQLite ``UPDATE`` of a match row assigns the columns an index or a
constraint covers (``KEYED``) only when the change alters one of them: SQLite rewrites an
assigned column's index entries even when its value is the same, so leaving them out of an
ordinary action's row saves most of its cost (see docs/benchmarks.md)."""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path

from server.storage import create_engine, upgrade
from server.storage.batch_sql import KEYED, UNKEYED
from server.storage.group_commit import GroupCommitStore
from tests.scale.test_group_commit import matches, step


def test_the_keyed_columns_are_the_indexed_and_constrained_ones_among_a_rows_changing_columns():
    assert KEYED == ("status", "seat1_id", "deadline_at")
    assert not set(KEYED) & set(UNKEYED) and "version" in UNKEYED


async def test_only_a_change_to_a_keyed_column_assigns_the_keyed_columns(tmp_path: Path):
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'keyed.db'}")
    await upgrade(engine)
    store = GroupCommitStore(engine)
    try:
        plain, finishing, joined, unchanged = await matches(store, 4)
        assert store.sqlite is not None
        store.sqlite.inline_max = 0  # every batch on the writer thread, whose statements we see
        assert await store.commit(step(unchanged, 1))  # opens the writer's connection
        unchanged = (await store.load_match(unchanged.match_id))[0]
        conn = store.sqlite.threaded
        assert conn is not None
        statements: list[str] = []
        conn.set_trace_callback(statements.append)

        deadline = dt.datetime(2026, 12, 3, 9, 0, tzinfo=dt.UTC)
        changes = [step(plain, 1), step(finishing, 1), step(joined, 1), step(unchanged, 2)]
        changes[1].meta.status, changes[1].meta.deadline_at = "finished", deadline
        changes[2].meta.seat_ids = [joined.seat_ids[0], plain.seat_ids[0]]
        assert await asyncio.gather(*(store.commit(c) for c in changes)) == [True] * 4

        updates = [s for s in statements if s.startswith("UPDATE")]
        assert len(updates) == 2, statements  # the two changed rows whole, the two others without
        whole, rest = sorted(updates, key=lambda s: "status = " not in s)
        assert all(f"{col} = " in whole for col in KEYED)
        assert not any(f"{col} = " in rest for col in KEYED) and "version = " in rest

        loaded = {c.meta.match_id: (await store.load_match(c.meta.match_id))[0] for c in changes}
        for c in changes:
            row = loaded[c.meta.match_id]
            assert (row.version, row.scores, row.status, row.seat_ids, row.deadline_at) == (
                c.meta.version, c.meta.scores, c.meta.status, c.meta.seat_ids, c.meta.deadline_at,
            )  # fmt: skip
        assert loaded[finishing.match_id].status == "finished"
        assert loaded[finishing.match_id].deadline_at == deadline
        assert loaded[joined.match_id].seat_ids[1] == plain.seat_ids[0]
    finally:
        await store.close()
        await engine.dispose()
