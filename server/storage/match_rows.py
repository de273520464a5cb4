"""Reading match rows as :class:`MatchMeta`: the one statement (the match with both seats'
names) and the one conversion, shared by the repository's parts; and the statement of a match's
actions after a sequence number."""

from __future__ import annotations

from typing import Any, cast

from sqlalchemy import ColumnElement, Row, bindparam, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from server.service.ports import MatchMeta

from .models import MATCHES, PLAYERS, Match, MatchAction


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
_p0, _p1 = PLAYERS.alias("p0"), PLAYERS.alias("p1")
# Rows of the match's columns and both seats' names (``name1`` None while no one has joined): a
# Core statement, so reading a row builds no ORM object (no identity map, no instance state),
# even through a session; :func:`meta_row` reads it.
META_QUERY = (
    select(MATCHES, _p0.c.name.label("name0"), _p1.c.name.label("name1"))
    .join_from(MATCHES, _p0, MATCHES.c.seat0_id == _p0.c.id)
    .outerjoin(_p1, MATCHES.c.seat1_id == _p1.c.id)
)


ACTIONS_AFTER = (
    select(
        MatchAction.seq,
        MatchAction.seat,
        MatchAction.action,
        MatchAction.client_id,
        MatchAction.version,
        MatchAction.created_at,
    )
    .where(MatchAction.match_id == bindparam("match_id"), MatchAction.seq > bindparam("after"))
    .order_by(MatchAction.seq)
)
"""A match's actions after a sequence number, oldest first: :class:`StoredAction`'s fields in
order (``match_id``, ``after``)."""


def meta_row(row: Row[Any]) -> MatchMeta:
    """A row of :data:`META_QUERY` as a match's meta (its columns are named as ``Match``'s)."""
    return meta_of(cast(Match, row), row.name0, row.name1)


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
    return [meta_row(r) for r in rows], int(total)
