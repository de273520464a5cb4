"""The ladder's tables: bot accounts, ladder entries (the ladder rating) and ladder pairs.

A pair's two match ids are plain columns (not foreign keys: a pair is written before its
matches are, in the same unit of work of the ladder, and the matches outlive nothing of it).
"""

from __future__ import annotations

from datetime import datetime
from typing import cast

from sqlalchemy import Boolean, Float, ForeignKey, Index, Integer, String, Table, Text
from sqlalchemy.orm import Mapped, mapped_column

from .models import Base, UTCDateTime


class BotAccount(Base):
    __tablename__ = "bot_accounts"

    player_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), primary_key=True)
    owner: Mapped[str] = mapped_column(String(80))
    description: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class LadderEntryRow(Base):
    __tablename__ = "ladder_entries"

    player_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), primary_key=True)
    reference: Mapped[bool] = mapped_column(Boolean)
    rating: Mapped[float] = mapped_column(Float)
    deviation: Mapped[float] = mapped_column(Float)
    volatility: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    enrolled_at: Mapped[datetime] = mapped_column(UTCDateTime())
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())


class LadderPairRow(Base):
    __tablename__ = "ladder_pairs"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    a_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    b_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    rules: Mapped[str] = mapped_column(String(16))
    match0_id: Mapped[str] = mapped_column(String(32))
    match1_id: Mapped[str] = mapped_column(String(32))
    status: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    wins: Mapped[int | None] = mapped_column(Integer)
    points: Mapped[int | None] = mapped_column(Integer)
    score: Mapped[float | None] = mapped_column(Float)

    __table_args__ = (
        Index("ix_ladder_pairs_a_created", "a_id", "created_at"),
        Index("ix_ladder_pairs_b_created", "b_id", "created_at"),
        Index("ix_ladder_pairs_status_created", "status", "created_at"),
    )


BOT_ACCOUNTS = cast(Table, BotAccount.__table__)
LADDER_ENTRIES = cast(Table, LadderEntryRow.__table__)
LADDER_PAIRS = cast(Table, LadderPairRow.__table__)
