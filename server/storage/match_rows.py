"""Reading match rows as :class:`MatchMeta`: the one statement (the match with both seats'
names) and the one conversion, shared by the repository's parts."""

from __future__ import annotations

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from server.service.ports import MatchMeta

from .models import Match, Player


def meta_of(m: Match, name0: str, name1: str | None) -> MatchMeta:
    return MatchMeta(
        match_id=m.id,
        rules=m.rules,
        opponent=m.opponent,
        difficulty=m.difficulty,
        seed=m.seed,
        first_starter=m.first_starter,
        status=m.status,
        version=m.version,
        seat_ids=[m.seat0_id, m.seat1_id],
        seat_names=[name0, name1],
        watch_token_hash=m.watch_token_hash,
        invite_hash=m.invite_hash,
        hand_number=m.hand_number,
        scores=[m.score0, m.score1],
        hands_won=[m.hands_won0, m.hands_won1],
        winner=m.winner,
        resigned=m.resigned,
        outcome=m.outcome,
        created_at=m.created_at,
        updated_at=m.updated_at,
        time_control=m.time_control,
        clock=m.clock,
        deadline_at=m.deadline_at,
        rematch=m.rematch,
        rated=m.rated,
        public=m.public,
        deal=m.deal,
    )


# Built once: building it per call (the seat aliases above all) cost as much CPU as running it.
_p0, _p1 = aliased(Player), aliased(Player)
# Rows of (match, seat 0's name, seat 1's name); the outer join makes the last None while no one
# has joined (SQLAlchemy types it str: ``meta_of`` takes ``str | None``).
META_QUERY = (
    select(Match, _p0.name, _p1.name)
    .join(_p0, Match.seat0_id == _p0.id)
    .outerjoin(_p1, Match.seat1_id == _p1.id)
)


async def newest_first(
    s: AsyncSession, where: ColumnElement[bool], *, limit: int, offset: int
) -> tuple[list[MatchMeta], int]:
    """A page of the matches ``where`` holds, newest first, and how many it holds in all."""
    total = (await s.execute(select(func.count()).select_from(Match).where(where))).scalar_one()
    rows = (
        await s.execute(
            META_QUERY.where(where)
            .order_by(Match.created_at.desc(), Match.id.desc())
            .limit(limit)
            .offset(offset)
        )
    ).all()
    return [meta_of(*r) for r in rows], int(total)
