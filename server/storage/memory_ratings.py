"""The in-memory side of the store's rating and lobby part, mixed into
:class:`~server.storage.memory.MemoryStore`, with the SQL side's semantics exactly (the store
contract test runs both): a match counts once per player, a rating row moves only from the
games count its update was computed from, and all of a match's updates land or none do.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from server.service.rating_ports import RankedPlayer, RatingChange, RatingOutcome, RatingRecord, RatingUpdate

if TYPE_CHECKING:
    from server.service.ports import MatchMeta, PlayerRecord


class MemoryRatings:
    _players: dict[str, PlayerRecord]
    _matches: dict[str, Any]

    def __init__(self) -> None:
        self._ratings: dict[str, RatingRecord] = {}
        self._changes: dict[tuple[str, str], RatingChange] = {}

    def _ratings_state(self) -> tuple[dict[str, RatingRecord], dict[tuple[str, str], RatingChange]]:
        return self._ratings, self._changes

    def _out(self, meta: MatchMeta) -> MatchMeta:  # (MemoryStore's)
        raise NotImplementedError

    async def player_name(self, player_id: str) -> str | None:
        p = self._players.get(player_id)
        return None if p is None else p.name

    async def rating(self, player_id: str) -> RatingRecord | None:
        return self._ratings_state()[0].get(player_id)

    async def apply_ratings(self, match_id: str, updates: list[RatingUpdate]) -> RatingOutcome:
        ratings, changes = self._ratings_state()
        if any((u.change.match_id, u.change.player_id) in changes for u in updates):
            return RatingOutcome.ALREADY
        for u in updates:
            if match_id not in self._matches or u.change.player_id not in self._players:
                raise ValueError("no such match or player")  # (the SQL store's foreign keys)
            stored = ratings.get(u.change.player_id)
            if (0 if stored is None else stored.games) != u.expected_games:
                return RatingOutcome.MOVED
        for u in updates:
            c = u.change
            changes[(c.match_id, c.player_id)] = c
            ratings[c.player_id] = RatingRecord(
                c.player_id, c.rating, c.deviation, c.volatility, c.games, c.rated_at
            )
        return RatingOutcome.APPLIED

    async def rating_history(
        self, player_id: str, *, limit: int, offset: int
    ) -> tuple[list[RatingChange], int]:
        mine = sorted(
            (c for c in self._ratings_state()[1].values() if c.player_id == player_id), key=lambda c: -c.games
        )
        return mine[offset : offset + limit], len(mine)

    async def leaderboard(
        self, *, min_games: int, max_deviation: float, limit: int, offset: int
    ) -> tuple[list[RankedPlayer], int]:
        rows = sorted(
            (
                r
                for r in self._ratings_state()[0].values()
                if r.games >= min_games and r.deviation <= max_deviation
            ),
            key=lambda r: (-r.rating, r.deviation, r.player_id),
        )
        return [RankedPlayer(r, self._players[r.player_id].name) for r in rows[offset : offset + limit]], len(
            rows
        )

    async def unrated_matches(self, *, limit: int) -> list[MatchMeta]:
        counted = {match_id for match_id, _ in self._ratings_state()[1]}
        found = [
            m.meta
            for m in self._matches.values()
            if m.meta.status == "finished" and m.meta.rated and m.meta.match_id not in counted
        ]
        found.sort(key=lambda meta: (meta.updated_at, meta.match_id))
        return [self._out(meta) for meta in found[:limit]]

    async def open_challenges(self, *, limit: int, offset: int) -> tuple[list[MatchMeta], int]:
        found = [m.meta for m in self._matches.values() if m.meta.status == "waiting" and m.meta.public]
        found.sort(key=lambda meta: (meta.created_at, meta.match_id), reverse=True)
        return [self._out(meta) for meta in found[offset : offset + limit]], len(found)

    async def lobby_counts(self, active_since: datetime) -> tuple[int, int]:
        waiting = sum(1 for m in self._matches.values() if m.meta.status == "waiting" and m.meta.public)
        playing: set[str] = set()
        for m in self._matches.values():
            meta = m.meta
            if meta.status == "active" and meta.updated_at >= active_since:
                playing.add(meta.seat_ids[0])
                if meta.opponent == "human" and meta.seat_ids[1] is not None:
                    playing.add(meta.seat_ids[1])
        return waiting, len(playing)
