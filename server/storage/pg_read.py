"""On Postgres, the reads a replica makes most, each one statement on a connection of the store's
own: the match's row and the actions after a number (for every move another replica commits, and
every hello for a match not held here), the player by token and the seats' bot accounts (every
hello's).

Through SQLAlchemy each read was a pooled connection's liveness ping, a transaction, the query
and a rollback: the catch-up read about 40% of a replica's CPU when every match's two players sat
on different replicas (``python -m server.bench peer --targets ours-pg2``), and the player and bot
reads a fifth of a restarted server's interpreter while ten thousand players came back. Here each
is a prepared statement on a connection of its own (:mod:`.pg_connection`: a broken one is
replaced and the read tried once more), used by one caller at a time.
"""

from __future__ import annotations

import asyncio
from typing import Any, cast

import asyncpg
from sqlalchemy.ext.asyncio import AsyncEngine

from server.service.ladder_ports import BotRecord
from server.service.ports import MatchMeta, PlayerRecord, StoredAction, new_stored_action

from .ladder_sql import BOT_BY_ID
from .match_rows import meta_of
from .models import Match, MatchAction, Player
from .pg_connection import OwnConnection
from .read_statement import ReadStatement
from .repository import PLAYER_BY_TOKEN

_MATCH_AFTER = f"""
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


class PostgresRead:
    def __init__(self, engine: AsyncEngine) -> None:
        self.connection = OwnConnection(engine)
        self._lock = asyncio.Lock()
        self.player = ReadStatement(PLAYER_BY_TOKEN, engine.dialect)
        self.bot = ReadStatement(BOT_BY_ID, engine.dialect)

    async def load_match_after(self, match_id: str, seq: int) -> tuple[MatchMeta, list[StoredAction]] | None:
        """The match and its actions after ``seq`` (None: no such match), as one snapshot."""
        records = await self._fetch(_MATCH_AFTER, match_id, seq)
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

    async def player_by_token_hash(self, token_hash: str) -> PlayerRecord | None:
        rows = await self._rows(self.player, token_hash=token_hash)
        return PlayerRecord(*rows[0]) if rows else None

    async def bots(self, player_ids: list[str]) -> dict[str, BotRecord]:
        found: dict[str, BotRecord] = {}
        for player_id in player_ids:  # (a match's seats: one or two)
            for row in await self._rows(self.bot, player_id=player_id):
                found[row[0]] = BotRecord(*row)
        return found

    async def _rows(self, statement: ReadStatement, **values: Any) -> list[list[Any]]:
        return statement.converted(await self._fetch(statement.sql, *statement.args(**values)))

    async def _fetch(self, sql: str, *args: object) -> list[asyncpg.Record]:
        async with self._lock:
            return await self.connection.fetch(sql, *args)

    async def close(self) -> None:
        await self.connection.close()
