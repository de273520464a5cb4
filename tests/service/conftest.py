"""The service tests' database: a fresh SQLite file, migrated, per test (a module may define
its own ``engine``)."""

from __future__ import annotations

import pytest

from server.storage import create_engine, upgrade


@pytest.fixture
async def engine(tmp_path):
    eng = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'service.db'}")
    await upgrade(eng)
    yield eng
    await eng.dispose()
