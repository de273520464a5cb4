"""The SQL side of the store's seek part (:class:`~server.service.seek_ports.SeekStore`), mixed
into :class:`~server.storage.repository.SqlStore`.

Pairing is one transaction that claims the oldest open seek of a pool with a compare-and-set
(``UPDATE seeks SET match_id = :m WHERE id = (oldest open) AND match_id IS NULL``) and inserts
the paired match. What keeps two placements from both missing each other (each leaving its
seek open, unseen by the other's transaction) is that placements of one pool never overlap:

- on Postgres, the transaction first takes an advisory lock on the pool
  (``pg_advisory_xact_lock``), and the oldest seek is read ``FOR UPDATE SKIP LOCKED`` (a seek
  being cancelled is passed over rather than waited for);
- on SQLite, the claiming ``UPDATE`` is the transaction's first statement, so it holds the one
  write lock before it reads (across processes too).

Nothing here decides which seeks are compatible: that is the pool the service computed.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import and_, delete, func, insert, select, text, update
from sqlalchemy.exc import IntegrityError

from server.service.seek_ports import SeekPlacement, SeekRecord

from .models import MATCHES, Player
from .seeks_models import SEEKS

if TYPE_CHECKING:
    from sqlalchemy.engine import Row
    from sqlalchemy.ext.asyncio import AsyncEngine

    from server.service.ports import MatchMeta

_COLUMNS = (
    SEEKS.c.id,
    SEEKS.c.player_id,
    SEEKS.c.pool,
    SEEKS.c.rules,
    SEEKS.c.time_control,
    SEEKS.c.rated,
    SEEKS.c.created_at,
    SEEKS.c.alive_at,
    SEEKS.c.match_id,
)
_AT_ONCE = 500


class SeeksSql:
    engine: AsyncEngine

    async def place_seek(self, seek: SeekRecord, match: MatchMeta, alive_after: datetime) -> SeekPlacement:
        from .repository import _fixed_values, row_values

        postgres = self.engine.dialect.name == "postgresql"
        oldest = (
            select(SEEKS.c.id)
            .where(
                SEEKS.c.pool == seek.pool,
                SEEKS.c.match_id.is_(None),
                SEEKS.c.player_id != seek.player_id,
                SEEKS.c.alive_at >= alive_after,
            )
            .order_by(SEEKS.c.created_at, SEEKS.c.id)
            .limit(1)
        )
        if postgres:
            oldest = oldest.with_for_update(skip_locked=True)
        claim = (
            update(SEEKS)
            .where(SEEKS.c.id == oldest.scalar_subquery(), SEEKS.c.match_id.is_(None))
            .values(match_id=match.match_id)
            .returning(*_COLUMNS)
        )
        mine_open = select(SEEKS.c.id).where(SEEKS.c.player_id == seek.player_id, SEEKS.c.match_id.is_(None))
        try:
            async with self.engine.begin() as conn:
                if postgres:
                    await conn.execute(
                        text("SELECT pg_advisory_xact_lock(hashtext(:pool))"), {"pool": seek.pool}
                    )
                row = (await conn.execute(claim)).one_or_none()
                if (await conn.execute(mine_open)).first() is not None:
                    raise _Duplicate
                if row is None:
                    await conn.execute(insert(SEEKS).values(_values(seek)))
                    return SeekPlacement()
                partner_name = (
                    await conn.execute(select(Player.name).where(Player.id == row.player_id))
                ).scalar_one()
                partner = _record(row, partner_name)
                paired = match.copy()
                paired.seat_ids[0], paired.seat_names[0] = partner.player_id, partner.name
                await conn.execute(
                    insert(MATCHES).values(id=paired.match_id, **row_values(paired), **_fixed_values(paired))
                )
                return SeekPlacement(partner=partner)
        except (_Duplicate, IntegrityError):
            # Rolled back: the player has an open seek already (the unique index says so when
            # two placements of one player race in different pools).
            return SeekPlacement(duplicate=True)

    async def remove_seek(self, seek_id: str) -> bool:
        async with self.engine.begin() as conn:
            result = await conn.execute(
                delete(SEEKS).where(SEEKS.c.id == seek_id, SEEKS.c.match_id.is_(None))
            )
            return result.rowcount == 1

    async def load_seek(self, seek_id: str) -> SeekRecord | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(_SELECT.where(SEEKS.c.id == seek_id))).one_or_none()
        return None if row is None else _record(row, row.name)

    async def forget_seeks(self, seek_ids: list[str]) -> None:
        async with self.engine.begin() as conn:
            for i in range(0, len(seek_ids), _AT_ONCE):
                await conn.execute(delete(SEEKS).where(SEEKS.c.id.in_(seek_ids[i : i + _AT_ONCE])))

    async def refresh_seeks(self, seek_ids: list[str], now: datetime) -> list[SeekRecord]:
        out: list[SeekRecord] = []
        async with self.engine.begin() as conn:
            for i in range(0, len(seek_ids), _AT_ONCE):
                ids = seek_ids[i : i + _AT_ONCE]
                await conn.execute(update(SEEKS).where(SEEKS.c.id.in_(ids)).values(alive_at=now))
                rows = await conn.execute(_SELECT.where(SEEKS.c.id.in_(ids), SEEKS.c.match_id.is_not(None)))
                out.extend(_record(r, r.name) for r in rows)
        return out

    async def expire_seeks(self, before: datetime) -> int:
        async with self.engine.begin() as conn:
            result = await conn.execute(delete(SEEKS).where(SEEKS.c.alive_at < before))
            return int(result.rowcount)

    async def count_seeking(self, alive_after: datetime) -> int:
        where = and_(SEEKS.c.match_id.is_(None), SEEKS.c.alive_at >= alive_after)
        async with self.engine.connect() as conn:
            return int(
                (await conn.execute(select(func.count()).select_from(SEEKS).where(where))).scalar_one()
            )


class _Duplicate(Exception):
    pass


_SELECT = select(*_COLUMNS, Player.name).join(Player, Player.id == SEEKS.c.player_id)


def _values(seek: SeekRecord) -> dict[str, object]:
    return {
        "id": seek.seek_id,
        "player_id": seek.player_id,
        "pool": seek.pool,
        "rules": seek.rules,
        "time_control": seek.time_control,
        "rated": seek.rated,
        "created_at": seek.created_at,
        "alive_at": seek.alive_at,
        "match_id": seek.match_id,
    }


def _record(row: Row[Any], name: str) -> SeekRecord:
    return SeekRecord(
        seek_id=row.id,
        player_id=row.player_id,
        name=name,
        pool=row.pool,
        rules=row.rules,
        time_control=row.time_control,
        rated=bool(row.rated),
        created_at=row.created_at,
        alive_at=row.alive_at,
        match_id=row.match_id,
    )
