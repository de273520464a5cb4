"""An asyncpg connection of one user's own, taken out of the engine's pool for good (so it is set
up as the engine's connections are: URL, options, search path, type codecs): the group commit's
writer and the replicas' catch-up reads each keep one, to skip the pool's checkout and
liveness ping on every statement.

A statement that finds the connection broken (Postgres restarted, its backend terminated, the
protocol stuck in an earlier operation) replaces it and runs once more; callers use it only for
statements for which that is safe (a read; a compare-and-set batch, which fails the second
time for whatever landed the first). One statement at a time: asyncpg allows no more on a
connection, and each user keeps its own.
"""

from __future__ import annotations

import asyncio
from typing import cast

import asyncpg
from sqlalchemy.ext.asyncio import AsyncEngine


class OwnConnection:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.connection: asyncpg.Connection | None = None
        """The current connection (None until the first statement, or after a failure)."""

    async def fetch(self, sql: str, *args: object) -> list[asyncpg.Record]:
        for attempt in (1, 2):
            conn = self.connection
            try:
                if conn is None or conn.is_closed():
                    pooled = await self.engine.raw_connection()
                    # (driver_connection is None only once invalidated: not a fresh one)
                    conn = self.connection = cast(asyncpg.Connection, pooled.driver_connection)
                    pooled.detach()  # the pool forgets it; closing it is ours
                return cast(list[asyncpg.Record], await conn.fetch(sql, *args))
            except (
                OSError,
                asyncpg.InterfaceError,
                asyncpg.PostgresConnectionError,
                asyncpg.exceptions.InternalClientError,  # its protocol stuck (a killed backend)
            ) as e:
                if isinstance(e, asyncpg.InterfaceError) and isinstance(e, ValueError):
                    raise  # an argument asyncpg could not encode: the connection is fine
                self.connection = None
                if conn is not None:
                    conn.terminate()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    async def close(self) -> None:
        conn, self.connection = self.connection, None
        if conn is not None:
            try:
                await asyncio.wait_for(conn.close(), timeout=2)
            except Exception:
                conn.terminate()
