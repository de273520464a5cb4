"""The seeks table of quick pairing: one row per open seek (``match_id`` null) and per paired
seek whose seeker has not been told yet.

A player has at most one open seek (a unique index on ``player_id`` where ``match_id`` is null);
pairing reads the oldest open seek of a pool (the ``pool, created_at`` index); ``alive_at`` is
refreshed by the process holding the seek's socket, and rows it stops refreshing are expired.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import JSON, Boolean, ForeignKey, Index, String, Table
from sqlalchemy.orm import Mapped, mapped_column

from .models import Base, UTCDateTime


class Seek(Base):
    __tablename__ = "seeks"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    pool: Mapped[str] = mapped_column(String(80))
    """Compatible seeks share a pool: rules, time control and rated/casual."""
    rules: Mapped[str] = mapped_column(String(16))
    time_control: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    rated: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    alive_at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)
    match_id: Mapped[str | None] = mapped_column(String(32))
    """The match it was paired into; null while open."""

    __table_args__ = (
        Index("ix_seeks_pool_created_at", "pool", "created_at"),
        Index(
            "uq_seeks_open_player",
            "player_id",
            unique=True,
            sqlite_where=match_id.is_(None),
            postgresql_where=match_id.is_(None),
        ),
    )


SEEKS = cast(Table, Seek.__table__)
