"""The in-memory :class:`~server.service.ports.Store`: everything the SQL store does, in this
process only, for fast service tests and benchmarks that need no database.

It keeps the SQL store's semantics exactly (tests/storage/test_store_contract.py runs the same
cases against both): a match write is a compare-and-set on the version that lands whole or not
at all, an action number is written once per match, seat names come from the players, and lists
are ordered newest first. It copies what it is given and what it hands out, so no caller shares
a list with it. Nothing is ever persisted.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from datetime import datetime

from server.service.account_ports import UNKNOWN_DEVICE, SessionRecord, session_id_of
from server.service.ports import Change, FinishedHand, MatchMeta, PlayerRecord, StoredAction

from .accounts_memory import AccountsMemory
from .ladder_memory import LadderMemory
from .memory_ratings import MemoryRatings
from .seeks_memory import SeeksMemory


@dataclass(slots=True)
class _Match:
    meta: MatchMeta
    actions: list[StoredAction] = field(default_factory=list)
    hands: list[FinishedHand] = field(default_factory=list)


class MemoryStore(AccountsMemory, MemoryRatings, SeeksMemory, LadderMemory):
    def __init__(self) -> None:
        super().__init__()
        self._players: dict[str, PlayerRecord] = {}
        self._matches: dict[str, _Match] = {}
        self._accounts_init()
        self._ladder_init()

    def unreachable(self, error: BaseException) -> bool:
        return False

    # --- players ------------------------------------------------------------------------------

    async def create_player(self, player: PlayerRecord, device: str = UNKNOWN_DEVICE) -> None:
        if player.player_id in self._players or await self.session_by_token_hash(player.token_hash):
            raise ValueError(f"player {player.player_id!r} or its token exists already")
        self._players[player.player_id] = player
        at = player.created_at
        await self.create_session(
            SessionRecord(
                session_id_of(player.token_hash), player.player_id, player.token_hash, device, at, at
            )
        )

    async def player_by_token_hash(self, token_hash: str) -> PlayerRecord | None:
        session = await self.session_by_token_hash(token_hash)
        if session is None:
            return None
        p = self._players[session.player_id]
        return PlayerRecord(p.player_id, p.name, token_hash, p.created_at)

    # --- matches ------------------------------------------------------------------------------

    async def create_match(self, meta: MatchMeta) -> None:
        if meta.match_id in self._matches:
            raise ValueError(f"match {meta.match_id!r} exists already")
        self._check_players(meta)
        self._matches[meta.match_id] = _Match(_copy(meta))

    async def load_meta(self, match_id: str) -> MatchMeta | None:
        m = self._matches.get(match_id)
        return None if m is None else self._out(m.meta)

    async def match_versions(self, match_ids: list[str]) -> dict[str, int]:
        return {i: self._matches[i].meta.version for i in match_ids if i in self._matches}

    async def load_match(self, match_id: str) -> tuple[MatchMeta, list[StoredAction]] | None:
        return await self.load_match_after(match_id, 0)

    async def load_match_after(self, match_id: str, seq: int) -> tuple[MatchMeta, list[StoredAction]] | None:
        m = self._matches.get(match_id)
        if m is None:
            return None
        return self._out(m.meta), [copy.deepcopy(a) for a in m.actions if a.seq > seq]

    async def commit(self, change: Change) -> bool:
        meta = change.meta
        m = self._matches.get(meta.match_id)
        if m is None or m.meta.version != change.expected_version:
            return False
        a = change.action
        if a is not None and any(x.seq == a.seq for x in m.actions):
            return False
        taken = {h.number for h in m.hands}
        numbers = [h.number for h in change.hands]
        if taken & set(numbers) or len(set(numbers)) != len(numbers):
            return False
        if any(p is not None and p not in self._players for p in meta.seat_ids):
            return False  # (the SQL store's foreign key refuses it)
        # Columns written once, at creation, stay as they were.
        stored = _copy(meta)
        first = m.meta
        stored.rules, stored.opponent, stored.difficulty = first.rules, first.opponent, first.difficulty
        stored.seed, stored.first_starter, stored.deal = first.seed, first.first_starter, first.deal
        stored.seat_ids[0], stored.watch_token_hash = first.seat_ids[0], first.watch_token_hash
        stored.created_at, stored.time_control = first.created_at, first.time_control
        stored.rated, stored.public = first.rated, first.public
        m.meta = stored
        if a is not None:
            m.actions.append(copy.deepcopy(a))
        m.hands.extend(copy.deepcopy(h) for h in change.hands)
        return True

    async def list_matches(
        self,
        player_id: str,
        *,
        status: str | None,
        rules: str | None,
        opponent: str | None,
        limit: int,
        offset: int,
        result: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> tuple[list[MatchMeta], int]:
        def won(meta: MatchMeta) -> bool:
            return meta.winner is not None and meta.seat_ids[meta.winner] == player_id

        def lost(meta: MatchMeta) -> bool:
            return meta.winner is not None and meta.seat_ids[meta.winner] != player_id

        found = [
            m.meta
            for m in self._matches.values()
            if player_id in m.meta.seat_ids
            and (status is None or m.meta.status == status)
            and (rules is None or m.meta.rules == rules)
            and (opponent is None or m.meta.opponent == opponent)
            and (result is None or (won(m.meta) if result == "won" else lost(m.meta)))
            and (since is None or m.meta.created_at >= since)
            and (until is None or m.meta.created_at < until)
        ]
        found.sort(key=lambda meta: (meta.created_at, meta.match_id), reverse=True)
        return [self._out(meta) for meta in found[offset : offset + limit]], len(found)

    async def delete_waiting_match(self, match_id: str, version: int) -> bool:
        m = self._matches.get(match_id)
        if m is None or m.meta.status != "waiting" or m.meta.version != version:
            return False
        del self._matches[match_id]
        return True

    async def count_matches(self, player_id: str, status: str) -> int:
        return sum(
            1 for m in self._matches.values() if player_id in m.meta.seat_ids and m.meta.status == status
        )

    async def finished_hands(self, match_id: str) -> list[FinishedHand]:
        m = self._matches.get(match_id)
        if m is None:
            return []
        return [copy.deepcopy(h) for h in sorted(m.hands, key=lambda h: h.number)]

    async def due_matches(self, now: datetime, limit: int) -> list[str]:
        due = [
            m.meta
            for m in self._matches.values()
            if m.meta.status == "active" and m.meta.deadline_at is not None and m.meta.deadline_at <= now
        ]
        due.sort(key=lambda meta: (meta.deadline_at or now, meta.match_id))
        return [meta.match_id for meta in due[:limit]]

    async def stale_waiting(self, before: datetime, limit: int) -> list[tuple[str, int]]:
        found = [
            m.meta
            for m in self._matches.values()
            if m.meta.status == "waiting" and m.meta.created_at < before
        ]
        found.sort(key=lambda meta: (meta.created_at, meta.match_id))
        return [(meta.match_id, meta.version) for meta in found[:limit]]

    async def stats(self, player_id: str) -> dict[str, int]:
        matches = wins = hands = hands_won = gins = undercuts = points = 0
        for m in self._matches.values():
            if player_id not in m.meta.seat_ids:
                continue
            seat = 0 if m.meta.seat_ids[0] == player_id else 1
            if m.meta.status == "finished":
                matches += 1
                wins += m.meta.winner == seat
            for h in m.hands:
                hands += 1
                if h.winner == seat:
                    hands_won += 1
                    gins += h.kind == "gin"
                    undercuts += h.kind == "undercut"
                    points += h.points
        return {
            "matches": matches,
            "wins": wins,
            "losses": matches - wins,
            "hands": hands,
            "hands_won": hands_won,
            "gins": gins,
            "undercuts": undercuts,
            "points": points,
        }

    # --- internals ----------------------------------------------------------------------------

    def _check_players(self, meta: MatchMeta) -> None:
        # As the SQL store's foreign keys: a seat is taken by a player that exists.
        for player_id in meta.seat_ids:
            if player_id is not None and player_id not in self._players:
                raise ValueError(f"no player {player_id!r}")

    def _out(self, meta: MatchMeta) -> MatchMeta:
        """A copy of the row, with the seats' names as the players have them."""
        out = _copy(meta)
        out.seat_names = [None if p is None else self._players[p].name for p in meta.seat_ids]
        return out


def _copy(meta: MatchMeta) -> MatchMeta:
    out = meta.copy()
    out.outcome = copy.deepcopy(meta.outcome)
    out.time_control = copy.deepcopy(meta.time_control)
    out.clock = copy.deepcopy(meta.clock)
    out.rematch = copy.deepcopy(meta.rematch)
    return out
