"""On Postgres, the read a replica makes for every move another replica commits: the match's row
and the actions it has not seen, in one statement (one snapshot, one round trip) on a connection
of its own.

Through SQLAlchemy that read was a pooled connection's liveness ping, a transaction, two ORM
queries and a rollback: about 40% of a replica's CPU when every match's two players sat on
different replicas (``python -m server.bench peer --targets ours-pg2``). Here it is a prepared
statement on an asyncpg connection taken out of the engine's pool for good (so it is set up as
the engine's are), used by one caller at a time; a connection found broken is replaced and the
read tried once more (a read changes nothing, so that is always safe).
"""

from __future__ import annotations

import asyncio
from typing import Any, cast

import asyncpg
from sqlalchemy.ext.asyncio import AsyncEngine

from server.service.ports import MatchMeta, StoredAction

from .match_rows import meta_of
from .models import Match, MatchAction, Player

_SQL = f"""
SELECT m.*, p0.name AS _name0, p1.name AS _name1,
       a.seq AS _seq, a.seat AS _seat, a.action AS _action, a.client_id AS _client_id,
       a.version AS _version, a.created_at AS _created_at
FROM {Match.__tablename__} m
JOIN {Player.__tablename__} p0 ON p0.id = m.seat0_id
LEFT JOIN {Player.__tablename__} p1 ON p1.id = m.seat1_id
LEFT JOIN {MatchAction.__tablename__} a ON a.match_id = m.id AND a.seq > $2 AND a.version <= m.version
WHERE m.id = $1
ORDER BY a.seq
"""
# The row and its newer actions as one snapshot: an action committed after the row's version
# is left for the next read (as SqlStore.load_match does).


class _Row:
    """A record's columns as attributes, as :func:`.match_rows.meta_of` reads a ``Match``."""

    def __init__(self, record: asyncpg.Record) -> None:
        self._record = record

    def __getattr__(self, name: str) -> Any:
        return self._record[name]


class PostgresCatchUp:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._conn: asyncpg.Connection | None = None
        self._lock = asyncio.Lock()

    async def load_match_after(self, match_id: str, seq: int) -> tuple[MatchMeta, list[StoredAction]] | None:
        async with self._lock:
            records = await self._fetch(match_id, seq)
        if not records:
            return None
        first = records[0]
        meta = meta_of(cast(Match, _Row(first)), first["_name0"], first["_name1"])
        actions = [
            StoredAction(
                r["_seq"], r["_seat"], r["_action"], r["_client_id"], r["_version"], r["_created_at"]
            )
            for r in records
            if r["_seq"] is not None
        ]
        return meta, actions

    async def _fetch(self, match_id: str, seq: int) -> list[asyncpg.Record]:
        for attempt in (1, 2):
            conn = self._conn
            try:
                if conn is None or conn.is_closed():
                    pooled = await self.engine.raw_connection()
                    conn = self._conn = cast(asyncpg.Connection, pooled.driver_connection)
                    pooled.detach()  # the pool forgets it; closing it is ours
                return cast(list[asyncpg.Record], await conn.fetch(_SQL, match_id, seq))
            except (
                OSError,
                asyncpg.InterfaceError,
                asyncpg.PostgresConnectionError,
                asyncpg.exceptions.InternalClientError,  # its protocol stuck (a killed backend)
            ) as e:
                if isinstance(e, asyncpg.InterfaceError) and isinstance(e, ValueError):
                    raise  # an argument asyncpg could not encode: the connection is fine
                self._conn = None
                if conn is not None:
                    conn.terminate()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    async def close(self) -> None:
        if self._conn is not None:
            conn, self._conn = self._conn, None
            try:
                await asyncio.wait_for(conn.close(), timeout=2)
            except Exception:
                conn.terminate()
