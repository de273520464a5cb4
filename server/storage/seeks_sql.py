"""The SQL side of the store's seek part (:class:`~server.service.seek_ports.SeekStore`), mixed
into :class:`~server.storage.repository.SqlStore`.

Pairing is one transaction that claims the oldest open seek of a pool with a compare-and-set
(``UPDATE seeks SET match_id = :m WHERE id = (oldest open) AND match_id IS NULL``) and inserts
the paired match. Two placements must never both miss each other (each leaving its seek open,
unseen by the other's transaction):

- on SQLite, the claiming ``UPDATE`` is the transaction's first statement, so it holds the one
  write lock before it reads (across processes too): placements never overlap;
- on Postgres, placements run in parallel (no lock on the pool, which would hold every
  placement of a pool behind one commit's fsync): the oldest seek is read ``FOR UPDATE SKIP
  LOCKED`` (one being paired or cancelled is passed over, not waited for), and a seek left
  open, once committed, looks again: of two placements that missed each other the later
  look sees the other, and the two rows are paired under row locks taken in id order.

Nothing here decides which seeks are compatible: that is the pool the service computed.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import and_, bindparam, delete, func, insert, select, update
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
        try:
            if self.engine.dialect.name == "postgresql":
                return await self._place_postgres(seek, match, alive_after)
            return await self._place_sqlite(seek, match, alive_after)
        except (_Duplicate, IntegrityError):
            # Rolled back: the player has an open seek already (the unique index says so when
            # two placements of one player race).
            return SeekPlacement(duplicate=True)

    async def _place_sqlite(self, seek: SeekRecord, match: MatchMeta, alive_after: datetime) -> SeekPlacement:
        async with self.engine.begin() as conn:
            # The claim first: it takes the one write lock before it reads, so what it and the
            # reads after it see is current until the commit.
            row = (
                await conn.execute(_claim(seek, match.match_id, alive_after, skip_locked=False))
            ).one_or_none()
            if (await conn.execute(_open_of(seek.player_id))).first() is not None:
                raise _Duplicate
            if row is None:
                await conn.execute(insert(SEEKS).values(_values(seek)))
                return SeekPlacement()
            partner = _record(row, row.name)
            await conn.execute(_insert_match(match, partner))
            return SeekPlacement(partner=partner)

    async def _place_postgres(
        self, seek: SeekRecord, match: MatchMeta, alive_after: datetime
    ) -> SeekPlacement:
        async with self.engine.connect() as conn:
            if (await conn.execute(_open_of(seek.player_id))).first() is not None:
                return SeekPlacement(duplicate=True)
        async with self.engine.begin() as conn:
            row = (
                await conn.execute(_claim(seek, match.match_id, alive_after, skip_locked=True))
            ).one_or_none()
            if row is not None:
                partner = _record(row, row.name)
                await conn.execute(_insert_match(match, partner))
                return SeekPlacement(partner=partner)
            await conn.execute(insert(SEEKS).values(_values(seek)))
        # Open and committed. A placement racing ours may have missed it as we missed theirs;
        # of two such, the one that looks again last sees the other (it committed first), so
        # look again and pair the two seeks, locking both rows in id order (no deadlock).
        for _ in range(_RETRIES):
            async with self.engine.connect() as conn:
                other = (await conn.execute(_oldest(seek, alive_after))).scalar_one_or_none()
            if other is None:
                return SeekPlacement()
            async with self.engine.begin() as conn:
                rows = (await conn.execute(_PAIR_ROWS, {"ids": [seek.seek_id, other]})).all()
                found = {r.id: r for r in rows}
                mine, theirs = found.get(seek.seek_id), found.get(other)
                if mine is None or mine.match_id is not None:
                    return SeekPlacement()  # claimed (or expired) meanwhile: its notice tells the seeker
                if theirs is None or theirs.match_id is not None:
                    continue
                await conn.execute(update(SEEKS).where(SEEKS.c.id == other).values(match_id=match.match_id))
                await conn.execute(delete(SEEKS).where(SEEKS.c.id == seek.seek_id))
                partner = _record(theirs, theirs.name)
                partner = SeekRecord(**{**_as_dict(partner), "match_id": match.match_id})
                await conn.execute(_insert_match(match, partner))
                return SeekPlacement(partner=partner)
        return SeekPlacement()

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
                await conn.execute(_FORGET, {"ids": seek_ids[i : i + _AT_ONCE]})

    async def refresh_seeks(self, seek_ids: list[str], now: datetime) -> list[SeekRecord]:
        out: list[SeekRecord] = []
        async with self.engine.begin() as conn:
            for i in range(0, len(seek_ids), _AT_ONCE):
                ids = seek_ids[i : i + _AT_ONCE]
                # Rows another transaction holds (a pairing under way) are passed over rather
                # than waited for: no lock-order deadlock with a pairing, and a seek being
                # paired needs no refresh.
                await conn.execute(_REFRESH, {"ids": ids, "now": now})
                rows = await conn.execute(_PAIRED, {"ids": ids})
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


_RETRIES = 100
"""Times a Postgres placement that stayed open looks again for a seek that raced it. Each look
either pairs, finds nobody, or finds a seek someone else paired first (which cannot happen
again for that seek): under a burst several placements may chase the same oldest seek, so
this is a bound against a bug, not a budget."""


def _oldest(seek: SeekRecord, alive_after: datetime) -> Any:
    """The oldest open seek of ``seek``'s pool by another player, alive at ``alive_after``."""
    return (
        select(SEEKS.c.id)
        .where(
            SEEKS.c.pool == seek.pool,
            SEEKS.c.match_id.is_(None),
            SEEKS.c.player_id != seek.player_id,
            SEEKS.c.id != seek.seek_id,
            SEEKS.c.alive_at >= alive_after,
        )
        .order_by(SEEKS.c.created_at, SEEKS.c.id)
        .limit(1)
    )


def _claim(seek: SeekRecord, match_id: str, alive_after: datetime, *, skip_locked: bool) -> Any:
    """Compare-and-set: the oldest open seek of the pool is paired into ``match_id`` (a seek
    another transaction holds is passed over on Postgres); returns it, with its player's name."""
    oldest = _oldest(seek, alive_after)
    if skip_locked:
        oldest = oldest.with_for_update(skip_locked=True)
    name = select(Player.name).where(Player.id == SEEKS.c.player_id).scalar_subquery().label("name")
    return (
        update(SEEKS)
        .where(SEEKS.c.id == oldest.scalar_subquery(), SEEKS.c.match_id.is_(None))
        .values(match_id=match_id)
        .returning(*_COLUMNS, name)
    )


def _open_of(player_id: str) -> Any:
    return select(SEEKS.c.id).where(SEEKS.c.player_id == player_id, SEEKS.c.match_id.is_(None))


def _insert_match(match: MatchMeta, partner: SeekRecord) -> Any:
    """The paired match's row: ``match`` with the claimed seek's player in seat 0."""
    from .repository import _fixed_values, row_values

    paired = match.copy()
    paired.seat_ids[0], paired.seat_names[0] = partner.player_id, partner.name
    return insert(MATCHES).values(id=paired.match_id, **row_values(paired), **_fixed_values(paired))


def _as_dict(seek: SeekRecord) -> dict[str, Any]:
    return {f: getattr(seek, f) for f in SeekRecord.__dataclass_fields__}


_SELECT = select(*_COLUMNS, Player.name).join(Player, Player.id == SEEKS.c.player_id)
# Statements over a list of seeks, built once: built per call, ``in_(a_list)`` leaves its bound
# parameters in reference cycles, which a freeze of the collector could catch alive.
_PAIR_ROWS = (
    _SELECT.where(SEEKS.c.id.in_(bindparam("ids", expanding=True)))
    .order_by(SEEKS.c.id)
    .with_for_update(of=SEEKS)
)
_FORGET = delete(SEEKS).where(SEEKS.c.id.in_(bindparam("ids", expanding=True)))
_REFRESH = (
    update(SEEKS)
    .where(
        SEEKS.c.id.in_(
            select(SEEKS.c.id)
            .where(SEEKS.c.id.in_(bindparam("ids", expanding=True)))
            .with_for_update(skip_locked=True)
        )
    )
    .values(alive_at=bindparam("now"))
)
_PAIRED = _SELECT.where(SEEKS.c.id.in_(bindparam("ids", expanding=True)), SEEKS.c.match_id.is_not(None))


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
