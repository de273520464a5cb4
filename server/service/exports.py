"""Exports: a match for one of its players, whatever its status, and all of a player's finished
matches, page by page from the store (never all in memory at once).

This part decides who may export what, not what is shown: the transport turns each
:class:`MatchRecord` into the export shape, which shows only what the seat may see (see
``server/wire/export.py``). Reads only; changes nothing.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from .errors import Forbidden, NotFound
from .live import replay
from .ports import MatchRecord, PlayerRecord, Store
from .queries import Queries, seat_of

EXPORT_PAGE = 50
"""How many matches one read of the store lists while a player's matches are exported."""


class Exports:
    def __init__(self, store: Store, queries: Queries) -> None:
        self.store = store
        self.queries = queries

    async def export(self, player: PlayerRecord, match_id: str) -> MatchRecord:
        """The match rebuilt for ``player``'s seat: finished or not (the shape hides what the seat
        may not see yet); a match nobody joined has no hands."""
        meta = await self.queries.read_meta(match_id)
        seat = seat_of(meta, player)
        loaded = await self.store.load_match(match_id)
        if loaded is None:  # deleted meanwhile
            raise NotFound(f"no match {match_id!r}")
        meta, actions = loaded
        return MatchRecord(meta, seat, replay(meta, actions))

    async def export_all(self, player: PlayerRecord, player_id: str) -> AsyncIterator[MatchRecord]:
        """Every finished match of ``player_id`` (who must be the caller), newest first."""
        page = EXPORT_PAGE
        if player_id != player.player_id:
            raise Forbidden("a player may export only their own matches")
        offset = 0
        # A match newer than those read that finishes meanwhile joins the list ahead of them and
        # shifts the rest by one: the last one read would come again. (None is skipped: finished
        # matches are never deleted. The newcomer is not sent: the export is of the matches
        # finished when it started, give or take.)
        sent: set[str] = set()
        while True:
            metas, _total = await self.store.list_matches(
                player_id, status="finished", rules=None, opponent=None, limit=page, offset=offset
            )
            for meta in metas:
                if meta.match_id in sent:
                    continue
                sent.add(meta.match_id)
                loaded = await self.store.load_match(meta.match_id)
                if loaded is None:  # deleted meanwhile (finished matches never are)
                    continue
                full, actions = loaded
                yield MatchRecord(full, seat_of(full, player), replay(full, actions))
            if len(metas) < page:
                return
            offset += page
