"""JSON columns (an action, a clock, a hand's result) are written with msgspec's compact
encoding (the engine's serializer, which the group commit's own SQL and the repository both
use), and rows written before, with the standard library's spaced text, read back the same."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import text

from server.storage import create_engine, upgrade
from server.storage.engine import json_text
from server.storage.group_commit import GroupCommitStore
from tests.scale.test_group_commit import matches, step


async def test_an_action_is_stored_compact_and_a_spaced_row_reads_back_alike(tmp_path: Path):
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'json.db'}")
    await upgrade(engine)
    store = GroupCommitStore(engine)
    try:
        (m,) = await matches(store, 1)
        assert await store.commit(step(m, 1, hand=True))
        async with engine.connect() as conn:
            stored = (
                await conn.execute(text("SELECT action FROM actions WHERE match_id = :m"), {"m": m.match_id})
            ).scalar_one()
            result = (
                await conn.execute(text("SELECT result FROM hands WHERE match_id = :m"), {"m": m.match_id})
            ).scalar_one()
        assert stored == json_text({"kind": "draw", "source": "stock"}) == '{"kind":"draw","source":"stock"}'
        assert result == '{"kind":"knock"}'
        before = (await store.load_match(m.match_id))[1]

        # The same action as the standard library wrote it before this encoder.
        async with engine.begin() as conn:
            spaced = json.dumps({"kind": "draw", "source": "stock"})
            assert spaced != stored
            await conn.execute(
                text("UPDATE actions SET action = :a WHERE match_id = :m"), {"a": spaced, "m": m.match_id}
            )
        after = (await store.load_match(m.match_id))[1]
        assert (
            [a.action for a in after] == [a.action for a in before] == [{"kind": "draw", "source": "stock"}]
        )
    finally:
        await store.close()
        await engine.dispose()
