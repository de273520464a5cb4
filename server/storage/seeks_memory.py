"""The in-memory side of the store's seek part, mixed into
:class:`~server.storage.memory.MemoryStore`, with the SQL side's semantics exactly (the store
contract test runs both): the oldest open seek of a pool by another player is claimed and the
match created at once (one event loop: nothing runs in between), one open seek per player.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from server.service.seek_ports import SeekPlacement, SeekRecord

if TYPE_CHECKING:
    from server.service.ports import MatchMeta, PlayerRecord


class SeeksMemory:
    _players: dict[str, PlayerRecord]

    def _seeks_state(self) -> dict[str, SeekRecord]:
        seeks: dict[str, SeekRecord] | None = getattr(self, "_seeks", None)
        if seeks is None:
            seeks = {}
            self._seeks: dict[str, SeekRecord] = seeks
        return seeks

    async def create_match(self, meta: MatchMeta) -> None:  # (MemoryStore's)
        raise NotImplementedError

    async def place_seek(self, seek: SeekRecord, match: MatchMeta, alive_after: datetime) -> SeekPlacement:
        seeks = self._seeks_state()
        if any(s.player_id == seek.player_id and s.match_id is None for s in seeks.values()):
            return SeekPlacement(duplicate=True)
        open_ = [
            s
            for s in seeks.values()
            if s.pool == seek.pool
            and s.match_id is None
            and s.player_id != seek.player_id
            and s.alive_at >= alive_after
        ]
        if not open_:
            seeks[seek.seek_id] = replace(seek, name=self._players[seek.player_id].name)
            return SeekPlacement()
        oldest = min(open_, key=lambda s: (s.created_at, s.seek_id))
        partner = seeks[oldest.seek_id] = replace(oldest, match_id=match.match_id)
        paired = match.copy()
        paired.seat_ids[0], paired.seat_names[0] = partner.player_id, partner.name
        await self.create_match(paired)
        return SeekPlacement(partner=partner)

    async def remove_seek(self, seek_id: str) -> bool:
        seeks = self._seeks_state()
        seek = seeks.get(seek_id)
        if seek is None or seek.match_id is not None:
            return False
        del seeks[seek_id]
        return True

    async def load_seek(self, seek_id: str) -> SeekRecord | None:
        return self._seeks_state().get(seek_id)

    async def forget_seeks(self, seek_ids: list[str]) -> None:
        seeks = self._seeks_state()
        for seek_id in seek_ids:
            seeks.pop(seek_id, None)

    async def refresh_seeks(self, seek_ids: list[str], now: datetime) -> list[SeekRecord]:
        seeks = self._seeks_state()
        out = []
        for seek_id in seek_ids:
            seek = seeks.get(seek_id)
            if seek is not None:
                seek = seeks[seek_id] = replace(seek, alive_at=now)
                if seek.match_id is not None:
                    out.append(seek)
        return out

    async def expire_seeks(self, before: datetime) -> int:
        seeks = self._seeks_state()
        gone = [k for k, s in seeks.items() if s.alive_at < before]
        for k in gone:
            del seeks[k]
        return len(gone)

    async def count_seeking(self, alive_after: datetime) -> int:
        return sum(
            1 for s in self._seeks_state().values() if s.match_id is None and s.alive_at >= alive_after
        )
