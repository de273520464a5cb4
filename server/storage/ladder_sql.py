"""The SQL side of the store's bot and ladder part (:class:`~server.service.ladder_ports.LadderStore`),
mixed into :class:`~server.storage.repository.SqlStore`.

A finished pair is written once: its row moves from ``playing`` to ``finished`` and both
entrants' rows move from the games count the new ratings were computed from (compare-and-set),
in one transaction, or nothing is written. Nothing here computes a rating.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy import bindparam, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from server.service.ladder_ports import BotRecord, LadderEntry, LadderPair

from .ladder_models import (
    BOT_ACCOUNTS,
    LADDER_ENTRIES,
    LADDER_PAIRS,
    BotAccount,
    LadderEntryRow,
    LadderPairRow,
)
from .models import Player

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

_ENTRY_COLUMNS = (
    LadderEntryRow.player_id,
    Player.name,
    LadderEntryRow.reference,
    LadderEntryRow.rating,
    LadderEntryRow.deviation,
    LadderEntryRow.volatility,
    LadderEntryRow.games,
    LadderEntryRow.enrolled_at,
    LadderEntryRow.updated_at,
)
_BOT_COLUMNS = (BotAccount.player_id, BotAccount.owner, BotAccount.description, BotAccount.created_at)
# Built once: built per call, ``in_(a_list)`` leaves its bound parameters in reference cycles
# (every match's start asks), which a freeze of the collector could catch alive.
_BOTS_QUERY = select(*_BOT_COLUMNS).where(BotAccount.player_id.in_(bindparam("ids", expanding=True)))
BOT_BY_ID = select(*_BOT_COLUMNS).where(BotAccount.player_id == bindparam("player_id"))
"""One bot account (the one-step SQLite read asks for each seat in turn)."""


class _Moved(Exception):
    """An entrant's rating moved under a pair being finished."""


def _pair(row: Any) -> LadderPair:
    return LadderPair(
        row.id,
        row.a_id,
        row.b_id,
        row.rules,
        (row.match0_id, row.match1_id),
        row.status,
        row.created_at,
        row.finished_at,
        row.wins,
        row.points,
        row.score,
    )


class LadderSql:
    engine: AsyncEngine
    sessions: async_sessionmaker[AsyncSession]

    async def create_bot(self, bot: BotRecord) -> bool:
        try:
            async with self.engine.begin() as conn:
                await conn.execute(
                    insert(BOT_ACCOUNTS).values(
                        player_id=bot.player_id,
                        owner=bot.owner,
                        description=bot.description,
                        created_at=bot.created_at,
                    )
                )
        except IntegrityError:
            return False
        return True

    async def bot(self, player_id: str) -> BotRecord | None:
        return (await self.bots([player_id])).get(player_id)

    async def bots(self, player_ids: list[str]) -> dict[str, BotRecord]:
        if not player_ids:
            return {}
        async with self.engine.connect() as conn:  # (every hello of a match not in memory asks)
            rows = (await conn.execute(_BOTS_QUERY, {"ids": player_ids})).all()
        return {r[0]: BotRecord(*r) for r in rows}

    async def ladder_entry(self, player_id: str) -> LadderEntry | None:
        async with self.sessions() as s:
            row = (
                await s.execute(
                    select(*_ENTRY_COLUMNS)
                    .join(Player, Player.id == LadderEntryRow.player_id)
                    .where(LadderEntryRow.player_id == player_id)
                )
            ).one_or_none()
        return None if row is None else LadderEntry(*row)

    async def add_ladder_entry(self, entry: LadderEntry) -> bool:
        try:
            async with self.engine.begin() as conn:
                await conn.execute(
                    insert(LADDER_ENTRIES).values(
                        player_id=entry.player_id,
                        reference=entry.reference,
                        rating=entry.rating,
                        deviation=entry.deviation,
                        volatility=entry.volatility,
                        games=entry.games,
                        enrolled_at=entry.enrolled_at,
                        updated_at=entry.updated_at,
                    )
                )
        except IntegrityError:
            return False
        return True

    async def ladder_entries(self) -> list[LadderEntry]:
        async with self.sessions() as s:
            rows = (
                await s.execute(
                    select(*_ENTRY_COLUMNS)
                    .join(Player, Player.id == LadderEntryRow.player_id)
                    .order_by(
                        LadderEntryRow.rating.desc(), LadderEntryRow.deviation, LadderEntryRow.player_id
                    )
                )
            ).all()
        return [LadderEntry(*r) for r in rows]

    async def create_ladder_pair(self, pair: LadderPair) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(
                insert(LADDER_PAIRS).values(
                    id=pair.pair_id,
                    a_id=pair.a,
                    b_id=pair.b,
                    rules=pair.rules,
                    match0_id=pair.match_ids[0],
                    match1_id=pair.match_ids[1],
                    status=pair.status,
                    created_at=pair.created_at,
                )
            )

    async def ladder_pairs(
        self, *, player_id: str | None, status: str | None, limit: int
    ) -> list[LadderPair]:
        q = select(LADDER_PAIRS)
        if player_id is not None:
            q = q.where(or_(LadderPairRow.a_id == player_id, LadderPairRow.b_id == player_id))
        if status is not None:
            q = q.where(LadderPairRow.status == status)
        q = q.order_by(LadderPairRow.created_at.desc(), LadderPairRow.id.desc()).limit(limit)
        async with self.sessions() as s:
            rows = (await s.execute(q)).all()
        return [_pair(r) for r in rows]

    async def finish_ladder_pair(self, pair: LadderPair, entries: list[LadderEntry]) -> bool:
        try:
            return await self._finish_pair(pair, entries)
        except _Moved:
            return False

    async def _finish_pair(self, pair: LadderPair, entries: list[LadderEntry]) -> bool:
        async with self.engine.begin() as conn:
            moved = await conn.execute(
                update(LADDER_PAIRS)
                .where(LadderPairRow.id == pair.pair_id, LadderPairRow.status == "playing")
                .values(
                    status="finished",
                    finished_at=pair.finished_at,
                    wins=pair.wins,
                    points=pair.points,
                    score=pair.score,
                )
            )
            if moved.rowcount != 1:
                return False
            for e in entries:
                done = await conn.execute(
                    update(LADDER_ENTRIES)
                    .where(LadderEntryRow.player_id == e.player_id, LadderEntryRow.games == e.games - 1)
                    .values(
                        rating=e.rating,
                        deviation=e.deviation,
                        volatility=e.volatility,
                        games=e.games,
                        updated_at=e.updated_at,
                    )
                )
                if done.rowcount != 1:
                    raise _Moved  # (rolls the whole transaction back)
        return True
