"""The ``deals`` migration: a match that existed before it keeps being dealt the way it was
(``legacy``), so it replays exactly; new rows are written with their own scheme."""

from __future__ import annotations

from sqlalchemy import text

from server.storage import SqlStore, create_engine, upgrade


async def test_rows_from_before_the_migration_are_legacy_deals(tmp_path):
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'old.db'}")
    try:
        await upgrade(engine, "0001")
        async with engine.begin() as conn:
            await conn.execute(
                text(
                    "INSERT INTO players (id, name, token_hash, created_at) VALUES ('p_old', 'Ada', 'h', :t)"
                ),
                {"t": "2026-11-30 10:00:00.000000"},
            )
            await conn.execute(
                text(
                    "INSERT INTO matches (id, rules, opponent, difficulty, seed, first_starter, status, version,"
                    " seat0_id, watch_token_hash, hand_number, score0, score1, hands_won0, hands_won1,"
                    " created_at, updated_at) VALUES ('m_old', 'house', 'computer', 'easy', 'old seed', 0,"
                    " 'active', 0, 'p_old', 'w', 1, 0, 0, 0, 0, :t, :t)"
                ),
                {"t": "2026-11-30 10:00:00.000000"},
            )
        await upgrade(engine)
        meta = await SqlStore(engine).load_meta("m_old")
        assert meta is not None and meta.deal == "legacy"
    finally:
        await engine.dispose()
