"""Storage fixtures: every SQL storage test runs on SQLite, and on PostgreSQL too when the
server at 127.0.0.1:5432 is reachable (in a schema of its own, dropped afterwards); otherwise
the Postgres run is skipped saying why. (tests/storage/test_store_contract.py has its own
fixture: every implementation of the Store port.)"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.storage import SqlStore

from .databases import POSTGRES_URL as POSTGRES_URL  # (tests/transport/test_postgres.py reads it here)
from .databases import database


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def engine(request, tmp_path) -> AsyncIterator:
    async with database(request.param, tmp_path) as eng:
        yield eng


@pytest.fixture
async def store(engine) -> SqlStore:
    return SqlStore(engine)
