"""The accounts' tables: a session per device's token, passkeys, and WebAuthn challenges.

A session holds its token's sha256 hash, never the token; a revoked session is deleted, so a
token works exactly while its row exists.
"""

from __future__ import annotations

from datetime import datetime
from typing import cast

from sqlalchemy import ForeignKey, Integer, LargeBinary, String, Table
from sqlalchemy.orm import Mapped, mapped_column

from server.service.account_ports import UNKNOWN_DEVICE

from .models import Base, UTCDateTime


class Session(Base):
    __tablename__ = "sessions"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    device: Mapped[str] = mapped_column(String(80))
    """A label from the User-Agent ("Chrome on Android"), for the owner's list of devices."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    last_seen_at: Mapped[datetime] = mapped_column(UTCDateTime())


class Passkey(Base):
    __tablename__ = "passkeys"

    credential_id: Mapped[str] = mapped_column(String(700), primary_key=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), index=True)
    public_key: Mapped[bytes] = mapped_column(LargeBinary())
    sign_count: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    device: Mapped[str] = mapped_column(String(80), server_default=UNKNOWN_DEVICE)
    """The label of the session's device that registered it (migration 0010; older passkeys
    say "unknown device"), so its owner can tell their passkeys apart."""


class Challenge(Base):
    __tablename__ = "challenges"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))  # register | login
    challenge: Mapped[bytes] = mapped_column(LargeBinary())
    player_id: Mapped[str | None] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)


SESSIONS = cast(Table, Session.__table__)
PASSKEYS = cast(Table, Passkey.__table__)
CHALLENGES = cast(Table, Challenge.__table__)
