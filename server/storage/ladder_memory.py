"""The in-memory side of the store's bot and ladder part, mixed into
:class:`~server.storage.memory.MemoryStore`, with the SQL side's semantics exactly (the store
contract test runs both): a bot is marked once, an entrant enrolls once, and a finished pair
lands with both new ratings, or nothing does.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from server.service.ladder_ports import BotRecord, LadderEntry, LadderPair

if TYPE_CHECKING:
    from server.service.ports import PlayerRecord


class LadderMemory:
    _players: dict[str, PlayerRecord]

    def _ladder_init(self) -> None:
        self._bots: dict[str, BotRecord] = {}
        self._entries: dict[str, LadderEntry] = {}
        self._pairs: dict[str, LadderPair] = {}

    async def create_bot(self, bot: BotRecord) -> bool:
        if bot.player_id not in self._players:
            raise ValueError(f"no player {bot.player_id!r}")
        if bot.player_id in self._bots:
            return False
        self._bots[bot.player_id] = bot
        return True

    async def bot(self, player_id: str) -> BotRecord | None:
        return self._bots.get(player_id)

    async def bots(self, player_ids: list[str]) -> dict[str, BotRecord]:
        return {p: self._bots[p] for p in player_ids if p in self._bots}

    def _named(self, e: LadderEntry) -> LadderEntry:
        return dataclasses.replace(e, name=self._players[e.player_id].name)

    async def ladder_entry(self, player_id: str) -> LadderEntry | None:
        e = self._entries.get(player_id)
        return None if e is None else self._named(e)

    async def add_ladder_entry(self, entry: LadderEntry) -> bool:
        if entry.player_id not in self._players:
            raise ValueError(f"no player {entry.player_id!r}")
        if entry.player_id in self._entries:
            return False
        self._entries[entry.player_id] = entry
        return True

    async def ladder_entries(self) -> list[LadderEntry]:
        return sorted(
            (self._named(e) for e in self._entries.values()),
            key=lambda e: (-e.rating, e.deviation, e.player_id),
        )

    async def create_ladder_pair(self, pair: LadderPair) -> None:
        if pair.pair_id in self._pairs:
            raise ValueError(f"pair {pair.pair_id!r} exists already")
        self._pairs[pair.pair_id] = pair

    async def ladder_pairs(
        self, *, player_id: str | None, status: str | None, limit: int
    ) -> list[LadderPair]:
        found = [
            p
            for p in self._pairs.values()
            if (player_id is None or player_id in (p.a, p.b)) and (status is None or p.status == status)
        ]
        found.sort(key=lambda p: (p.created_at, p.pair_id), reverse=True)
        return found[:limit]

    async def finish_ladder_pair(self, pair: LadderPair, entries: list[LadderEntry]) -> bool:
        stored = self._pairs.get(pair.pair_id)
        if stored is None or stored.status != "playing":
            return False
        for e in entries:
            before = self._entries.get(e.player_id)
            if before is None or before.games != e.games - 1:
                return False
        self._pairs[pair.pair_id] = dataclasses.replace(pair, status="finished")
        for e in entries:
            self._entries[e.player_id] = e
        return True
