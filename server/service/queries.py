"""Reads over REST: a match's details, the record of a finished match, a player's matches and
statistics. They read the store, the truth, never a copy in memory (another process may have
changed the match and this one not heard yet), and change nothing.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from server.rules import RULES

from .errors import BadRequest, Forbidden, MatchNotOver, NotFound
from .live import plausible_id, replay, timeouts
from .ports import FinishedHand, MatchMeta, MatchRecord, PlayerRecord, Store

OPPONENTS = ("computer", "human")
STATUSES = ("waiting", "active", "finished")
RESULTS = ("won", "lost")
"""The ``result`` filter: the matches the player won, or lost (a match without a winner is neither)."""


def _day(name: str, text: str | None) -> datetime | None:
    """Midnight UTC of ``text`` (``YYYY-MM-DD``); ``bad_request`` for anything else."""
    if text is None:
        return None
    try:
        if len(text) != 10:
            raise ValueError(text)
        day = date.fromisoformat(text)
    except ValueError:
        raise BadRequest(f"{name} must be a date, YYYY-MM-DD (UTC)") from None
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def seat_of(meta: MatchMeta, player: PlayerRecord) -> int:
    if player.player_id not in meta.seat_ids:
        raise Forbidden("this is not your match")
    return meta.seat_ids.index(player.player_id)


class Queries:
    def __init__(self, store: Store) -> None:
        self.store = store

    async def read_meta(self, match_id: str) -> MatchMeta:
        """The match's row from the store: the truth, even if another process just changed it
        and our copy in memory has not heard yet."""
        meta = await self.store.load_meta(match_id) if plausible_id(match_id) else None
        if meta is None:
            raise NotFound(f"no match {match_id!r}")
        return meta

    async def details(self, player: PlayerRecord, match_id: str) -> tuple[MatchMeta, list[FinishedHand]]:
        meta = await self.read_meta(match_id)
        seat_of(meta, player)
        hands = await self.store.finished_hands(match_id)
        if meta.status != "finished":
            # Read after the row, so a later commit may have finished the hand in play: show
            # what the row knows, the hands before it.
            hands = [h for h in hands if h.number < meta.hand_number]
        return meta, hands

    async def record(self, player: PlayerRecord, match_id: str) -> MatchRecord:
        """The complete replay (every deal and action) of a finished match."""
        meta = await self.read_meta(match_id)
        seat = seat_of(meta, player)
        if meta.status != "finished":
            raise MatchNotOver("the record is available once the match is over")
        loaded = await self.store.load_match(match_id)
        if loaded is None:  # deleted meanwhile
            raise NotFound(f"no match {match_id!r}")
        meta, actions = loaded
        return MatchRecord(meta, seat, replay(meta, actions), frozenset(timeouts(actions)))

    async def list_matches(
        self,
        player: PlayerRecord,
        *,
        status: str | None = None,
        rules: str | None = None,
        opponent: str | None = None,
        limit: int = 20,
        offset: int = 0,
        result: str | None = None,
        since: str | None = None,
        until: str | None = None,
    ) -> tuple[list[MatchMeta], int]:
        """The player's matches, newest first; ``since`` and ``until`` (days, UTC, both included)
        bound the day each match was created."""
        if result is not None and result not in RESULTS:
            raise BadRequest(f"result must be one of {list(RESULTS)}")
        start, last = _day("since", since), _day("until", until)
        end = None if last is None else last + timedelta(days=1)
        if start is not None and end is not None and start >= end:
            raise BadRequest("since must not be later than until")
        if status is not None and status not in STATUSES:
            raise BadRequest(f"status must be one of {list(STATUSES)}")
        if rules is not None and rules not in RULES:
            raise BadRequest(f"rules must be one of {sorted(RULES)}")
        if opponent is not None and opponent not in OPPONENTS:
            raise BadRequest(f"opponent must be one of {list(OPPONENTS)}")
        if not 1 <= limit <= 100:
            raise BadRequest("limit must be between 1 and 100")
        if offset < 0:
            raise BadRequest("offset must not be negative")
        return await self.store.list_matches(
            player.player_id,
            status=status,
            rules=rules,
            opponent=opponent,
            limit=limit,
            offset=offset,
            result=result,
            since=start,
            until=end,
        )

    async def stats(self, player: PlayerRecord) -> dict[str, int]:
        return await self.store.stats(player.player_id)
