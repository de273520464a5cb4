"""The SQL side of the store's rating and lobby part (:class:`~server.service.rating_ports.RatingStore`),
mixed into :class:`~server.storage.repository.SqlStore`.

A match counts once per player: ``rating_changes``' primary key (match, player) refuses a second
insert, and every rating row is updated only if it still counts the games the update was
computed from (compare-and-set on ``games``), all in one transaction. Nothing here computes a
rating.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import and_, exists, func, insert, select, union, update
from sqlalchemy.exc import IntegrityError

from server.service.rating_ports import RankedPlayer, RatingChange, RatingOutcome, RatingRecord, RatingUpdate

from .match_rows import META_QUERY, meta_row, newest_first
from .models import RATING_CHANGES, RATINGS, Match, Player, Rating
from .models import RatingChange as RatingChangeRow

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

    from server.service.ports import MatchMeta

_RATING_COLUMNS = (
    Rating.player_id,
    Rating.rating,
    Rating.deviation,
    Rating.volatility,
    Rating.games,
    Rating.updated_at,
)
_CHANGE_COLUMNS = (
    RatingChangeRow.match_id,
    RatingChangeRow.player_id,
    RatingChangeRow.rating,
    RatingChangeRow.deviation,
    RatingChangeRow.volatility,
    RatingChangeRow.games,
    RatingChangeRow.rated_at,
)


class RatingsSql:
    engine: AsyncEngine
    sessions: async_sessionmaker[AsyncSession]

    async def player_name(self, player_id: str) -> str | None:
        async with self.sessions() as s:
            return (await s.execute(select(Player.name).where(Player.id == player_id))).scalar_one_or_none()

    async def rating(self, player_id: str) -> RatingRecord | None:
        async with self.sessions() as s:
            row = (
                await s.execute(select(*_RATING_COLUMNS).where(Rating.player_id == player_id))
            ).one_or_none()
        return None if row is None else RatingRecord(*row)

    async def apply_ratings(self, match_id: str, updates: list[RatingUpdate]) -> RatingOutcome:
        try:
            async with self.engine.begin() as conn:
                # The history rows first: a match already counted fails here, before any rating moves.
                await conn.execute(
                    insert(RATING_CHANGES),
                    [{c.name: getattr(u.change, c.name) for c in RATING_CHANGES.columns} for u in updates],
                )
                for u in updates:
                    c = u.change
                    values = {
                        "rating": c.rating,
                        "deviation": c.deviation,
                        "volatility": c.volatility,
                        "games": c.games,
                        "updated_at": c.rated_at,
                    }
                    if u.expected_games == 0:
                        # A player's first rated match: the row does not exist yet (a second
                        # first match racing this one fails on the primary key).
                        await conn.execute(insert(RATINGS).values(player_id=c.player_id, **values))
                        continue
                    result = await conn.execute(
                        update(RATINGS)
                        .where(RATINGS.c.player_id == c.player_id, RATINGS.c.games == u.expected_games)
                        .values(**values)
                    )
                    if result.rowcount != 1:
                        await conn.rollback()
                        return RatingOutcome.MOVED
        except IntegrityError:
            async with self.sessions() as s:
                counted = (
                    await s.execute(
                        select(func.count())
                        .where(RatingChangeRow.match_id == match_id)
                        .select_from(RatingChangeRow)
                    )
                ).scalar_one()
            return RatingOutcome.ALREADY if counted else RatingOutcome.MOVED
        return RatingOutcome.APPLIED

    async def rating_history(
        self, player_id: str, *, limit: int, offset: int
    ) -> tuple[list[RatingChange], int]:
        where = RatingChangeRow.player_id == player_id
        async with self.sessions() as s:
            total = (
                await s.execute(select(func.count()).select_from(RatingChangeRow).where(where))
            ).scalar_one()
            rows = (
                await s.execute(
                    select(*_CHANGE_COLUMNS)
                    .where(where)
                    .order_by(RatingChangeRow.games.desc())
                    .limit(limit)
                    .offset(offset)
                )
            ).all()
        return [RatingChange(*r) for r in rows], int(total)

    async def leaderboard(
        self, *, min_games: int, max_deviation: float, limit: int, offset: int
    ) -> tuple[list[RankedPlayer], int]:
        where = (Rating.games >= min_games) & (Rating.deviation <= max_deviation)
        async with self.sessions() as s:
            total = (await s.execute(select(func.count()).select_from(Rating).where(where))).scalar_one()
            rows = (
                await s.execute(
                    select(*_RATING_COLUMNS, Player.name)
                    .join(Player, Player.id == Rating.player_id)
                    .where(where)
                    .order_by(Rating.rating.desc(), Rating.deviation, Rating.player_id)
                    .limit(limit)
                    .offset(offset)
                )
            ).all()
        return [RankedPlayer(RatingRecord(*r[:6]), r[6]) for r in rows], int(total)

    async def unrated_matches(self, *, limit: int) -> list[MatchMeta]:
        counted = exists().where(RatingChangeRow.match_id == Match.id)
        query = (
            META_QUERY.where(Match.status == "finished", Match.rated.is_(True), ~counted)
            .order_by(Match.updated_at, Match.id)
            .limit(limit)
        )
        async with self.sessions() as s:
            rows = (await s.execute(query)).all()
        return [meta_row(r) for r in rows]

    async def open_challenges(self, *, limit: int, offset: int) -> tuple[list[MatchMeta], int]:
        where = and_(Match.status == "waiting", Match.public.is_(True))
        async with self.sessions() as s:
            return await newest_first(s, where, limit=limit, offset=offset)

    async def lobby_counts(self, active_since: datetime) -> tuple[int, int]:
        waiting = and_(Match.status == "waiting", Match.public.is_(True))
        active = and_(Match.status == "active", Match.updated_at >= active_since)
        # Each player once, however many matches they are in (seat 1 is the computer's in a
        # match against it).
        seated = union(
            select(Match.seat0_id.label("p")).where(active),
            select(Match.seat1_id.label("p")).where(
                active, Match.opponent == "human", Match.seat1_id.is_not(None)
            ),
        ).subquery()
        async with self.sessions() as s:
            n_waiting = (await s.execute(select(func.count()).select_from(Match).where(waiting))).scalar_one()
            n_playing = (await s.execute(select(func.count()).select_from(seated))).scalar_one()
        return int(n_waiting), int(n_playing)
