"""On Postgres, the read a replica makes for every move another replica commits: the match's row
and the actions it has not seen, in one statement (one snapshot, one round trip) on a connection
of its own.

Through SQLAlchemy that read was a pooled connection's liveness ping, a transaction, two ORM
queries and a rollback: about 40% of a replica's CPU when every match's two players sat on
different replicas (``python -m server.bench peer --targets ours-pg2``). Here it is a prepared
statement on a connection of its own (:mod:`.pg_connection`: a broken one is replaced and the
read tried once more), used by one caller at a time.
"""

from __future__ import annotations

import asyncio
from typing import Any, cast

import asyncpg
from sqlalchemy.ext.asyncio import AsyncEngine

from server.service.ports import MatchMeta, StoredAction, new_stored_action

from .match_rows import meta_of
from .models import Match, MatchAction, Player
from .pg_connection import OwnConnection

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
        self.connection = OwnConnection(engine)
        self._lock = asyncio.Lock()

    async def load_match_after(self, match_id: str, seq: int) -> tuple[MatchMeta, list[StoredAction]] | None:
        async with self._lock:
            records = await self.connection.fetch(_SQL, match_id, seq)
        if not records:
            return None
        first = records[0]
        meta = meta_of(cast(Match, _Row(first)), first["_name0"], first["_name1"])
        actions = [
            new_stored_action(
                r["_seq"], r["_seat"], r["_action"], r["_client_id"], r["_version"], r["_created_at"]
            )
            for r in records
            if r["_seq"] is not None
        ]
        return meta, actions

    async def close(self) -> None:
        await self.connection.close()
