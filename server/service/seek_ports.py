"""The store's part for quick pairing (seeks): the record it keeps of a seek and the methods the
:class:`~server.service.ports.Store` port adds for them (every store implements both parts).

A seek is open while its ``match_id`` is None. The store, not any one process, decides a
pairing: :meth:`SeekStore.place_seek` claims the oldest open compatible seek and creates the
paired match in one transaction, so a seek is never in two matches. A seek is alive while some
process refreshes ``alive_at`` (its socket is open there); one not refreshed is expired by any
process. Nothing here does I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .ports import MatchMeta


@dataclass(frozen=True, slots=True)
class SeekRecord:
    seek_id: str
    player_id: str
    name: str
    pool: str
    """Seeks are compatible exactly when their pools are equal (rules, time control, rated)."""
    rules: str
    time_control: dict[str, Any] | None
    rated: bool
    created_at: datetime
    alive_at: datetime
    match_id: str | None = None
    """The match it was paired into (None: still open)."""


@dataclass(frozen=True, slots=True)
class SeekPlacement:
    """What :meth:`SeekStore.place_seek` did: paired with ``partner`` (the paired match now
    exists), or left the seek open (``partner`` None), or nothing (``duplicate``: the player
    already has an open seek)."""

    partner: SeekRecord | None = None
    duplicate: bool = False


class SeekStore(Protocol):
    async def place_seek(self, seek: SeekRecord, match: MatchMeta, alive_after: datetime) -> SeekPlacement:
        """In one transaction: claim the oldest open seek of ``seek.pool`` by another player and
        alive at ``alive_after`` or later (its ``match_id`` becomes ``match.match_id``), then
        create ``match`` with the claimed seek's player in seat 0 (``match`` comes with the
        seeker in seat 1) and return that seek; ``seek`` itself is not stored. With no such
        seek, store ``seek`` open. Either way nothing, and ``duplicate``, when the player already
        has an open seek. Two placements never claim the same seek, on any number of processes.
        """
        ...

    async def remove_seek(self, seek_id: str) -> bool:
        """Delete the seek if it is still open; False (nothing deleted) if it was paired or is
        gone."""
        ...

    async def load_seek(self, seek_id: str) -> SeekRecord | None: ...

    async def forget_seeks(self, seek_ids: list[str]) -> None:
        """Delete these seeks whatever their state (paired ones whose seeker has been told)."""
        ...

    async def refresh_seeks(self, seek_ids: list[str], now: datetime) -> list[SeekRecord]:
        """Mark these seeks alive at ``now``; returns those of them that were paired meanwhile
        (so a seeker whose notice was lost still hears of its match)."""
        ...

    async def expire_seeks(self, before: datetime) -> int:
        """Delete every seek not refreshed since ``before`` (its process died); how many."""
        ...

    async def count_seeking(self, alive_after: datetime) -> int:
        """Open seeks alive at ``alive_after`` or later."""
        ...
