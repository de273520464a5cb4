"""The database schema: players, matches, their actions and finished hands.

A match row holds what rebuilds it (rules, seed, first starter) plus a summary kept up to date
for listing (status, scores, version); the actions table is the authoritative move list. The
summary never holds a card, and nothing here stores a plain token: only sha256 hashes.

``matches.version`` is the optimistic-concurrency counter: every write is
``UPDATE ... WHERE id = :id AND version = :expected``, and ``(match_id, seq)`` is the actions'
primary key, so two writers can never both append to one match.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC datetime on every backend (SQLite stores naive values)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime: always store UTC-aware datetimes")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is not None and value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class Player(Base):
    __tablename__ = "players"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(40))
    # No token here: a token works while its session (the ``sessions`` table) exists. (The
    # hash of the first token, written and never read, was dropped by 0008_sessions_only.)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    # Accounts (server/storage/accounts_models.py has the rest): null while anonymous.
    username: Mapped[str | None] = mapped_column(String(40))
    username_key: Mapped[str | None] = mapped_column(String(160), unique=True, index=True)
    """The username case- and width-folded (NFKC casefold): unique, so "Ada" and "ADA" are one."""
    password_hash: Mapped[str | None] = mapped_column(String(200))


class Match(Base):
    __tablename__ = "matches"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    rules: Mapped[str] = mapped_column(String(16))
    opponent: Mapped[str] = mapped_column(String(16))  # computer | human
    difficulty: Mapped[str | None] = mapped_column(String(16))
    seed: Mapped[str] = mapped_column(String(64))
    first_starter: Mapped[int] = mapped_column(Integer)
    deal: Mapped[str] = mapped_column(String(16), server_default="legacy")
    """The deal scheme (server.rules.DEALS); rows from before schemes were dealt ``legacy``."""
    status: Mapped[str] = mapped_column(String(16))  # waiting | active | finished
    version: Mapped[int] = mapped_column(Integer)
    seat0_id: Mapped[str] = mapped_column(ForeignKey("players.id"))
    seat1_id: Mapped[str | None] = mapped_column(ForeignKey("players.id"))
    watch_token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    invite_hash: Mapped[str | None] = mapped_column(String(64))
    hand_number: Mapped[int] = mapped_column(Integer)
    score0: Mapped[int] = mapped_column(Integer, default=0)
    score1: Mapped[int] = mapped_column(Integer, default=0)
    hands_won0: Mapped[int] = mapped_column(Integer, default=0)
    hands_won1: Mapped[int] = mapped_column(Integer, default=0)
    winner: Mapped[int | None] = mapped_column(Integer)
    resigned: Mapped[int | None] = mapped_column(Integer)
    outcome: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())
    # Clocks (migration 0010_clocks): the time control (written at creation; null: untimed),
    # the clock's state, the deadline every process enforces, and a finished match's rematch.
    time_control: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    clock: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    deadline_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    rematch: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    rated: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    public: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())

    __table_args__ = (
        Index("ix_matches_seat0_created", "seat0_id", "created_at"),
        Index("ix_matches_status_public_created", "status", "public", "created_at"),
        Index("ix_matches_seat1_created", "seat1_id", "created_at"),
        Index("ix_matches_status_deadline", "status", "deadline_at"),
        Index("ix_matches_status_created", "status", "created_at"),
    )


class MatchAction(Base):
    """One action of a match, in order. ``client_id`` is the id the seat's client gave it (null
    for the computer); a repeated id is answered from here and never applied twice. No index
    keeps it unique (migration 0009): the service answers or refuses an id from every id of the
    match, and the match's compare-and-set and ``seq`` keep an action from being written twice."""

    __tablename__ = "actions"

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)
    action: Mapped[dict[str, Any]] = mapped_column(JSON)
    client_id: Mapped[str | None] = mapped_column(String(64))
    version: Mapped[int] = mapped_column(Integer)
    """The match version this action produced (what its ack said)."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class HandRecord(Base):
    """A finished hand's result (both hands revealed: written only once the hand is over)."""

    __tablename__ = "hands"

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    starter: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(16))  # gin | knock | undercut | dead
    winner: Mapped[int | None] = mapped_column(Integer)
    knocker: Mapped[int | None] = mapped_column(Integer)
    points: Mapped[int] = mapped_column(Integer)
    result: Mapped[dict[str, Any]] = mapped_column(JSON)
    finished_at: Mapped[datetime] = mapped_column(UTCDateTime())


class Rating(Base):
    """A player's Glicko-2 rating; ``games`` (rated matches counted) is the compare-and-set
    counter every update checks."""

    __tablename__ = "ratings"

    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), primary_key=True)
    rating: Mapped[float] = mapped_column(Float)
    deviation: Mapped[float] = mapped_column(Float)
    volatility: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())

    __table_args__ = (Index("ix_ratings_games_rating", "games", "rating"),)


class RatingChange(Base):
    """One rated match's effect on one player (the values after it). The primary key makes a
    match count once per player, whoever tries again."""

    __tablename__ = "rating_changes"

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), primary_key=True)
    rating: Mapped[float] = mapped_column(Float)
    deviation: Mapped[float] = mapped_column(Float)
    volatility: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    rated_at: Mapped[datetime] = mapped_column(UTCDateTime())

    __table_args__ = (Index("ix_rating_changes_player_rated", "player_id", "rated_at"),)


# The tables themselves, for Core statements. A declarative class's ``__table__`` is typed as
# any FromClause; these classes map plain tables, so say so once here.
PLAYERS = cast(Table, Player.__table__)
MATCHES = cast(Table, Match.__table__)
ACTIONS = cast(Table, MatchAction.__table__)
HANDS = cast(Table, HandRecord.__table__)
RATINGS = cast(Table, Rating.__table__)
RATING_CHANGES = cast(Table, RatingChange.__table__)


# The accounts' tables (sessions, passkeys, challenges) are in their own module; importing it
# here puts them in Base.metadata whichever module is imported first.
from . import accounts_models as accounts_models  # noqa: E402
from . import ladder_models as ladder_models  # noqa: E402
from . import seeks_models as seeks_models  # noqa: E402  (quick pairing's seeks, likewise)

__all__ = [
    "ACTIONS",
    "HANDS",
    "MATCHES",
    "NAMING_CONVENTION",
    "PLAYERS",
    "RATINGS",
    "RATING_CHANGES",
    "Base",
    "HandRecord",
    "Match",
    "MatchAction",
    "Player",
    "Rating",
    "RatingChange",
    "UTCDateTime",
]
