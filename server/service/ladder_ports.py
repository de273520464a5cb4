"""The store's part for bot accounts and the ladder: the records it hands out and the methods
the :class:`~server.service.ports.Store` port adds for them (every store implements them).

A bot account marks a player as a program (declared when the player is created: never turned
on or off later). A ladder entry is one entrant's ladder rating (Glicko-2, apart from the human
rating); a ladder pair is one pairing: two matches with the seats swapped (on the same seed
between two references), and, once both are over, its paired result. Nothing here does I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol


@dataclass(frozen=True, slots=True)
class BotRecord:
    """A player that is a program: who runs it and what it is."""

    player_id: str
    owner: str
    description: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class LadderEntry:
    """An entrant of the ladder and its ladder rating. ``reference``: one of the server's own
    difficulties (or the simple baseline), a fixed yardstick that never enrolls or leaves.
    ``games`` counts the pairs in the rating (the compare-and-set counter of the row)."""

    player_id: str
    name: str
    reference: bool
    rating: float
    deviation: float
    volatility: float
    games: int
    enrolled_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class LadderPair:
    """One pairing of ``a`` and ``b``: ``match_ids[0]`` seats ``a`` in seat 0, ``match_ids[1]``
    ``b`` (the same seed between two references, a seed of its own with an enrolled bot). ``wins``/``points`` are ``a``'s over
    both matches (set when the pair is finished); ``score`` is ``a``'s paired result: 1 both
    won, 0.5 one each, 0 none."""

    pair_id: str
    a: str
    b: str
    rules: str
    match_ids: tuple[str, str]
    status: str  # playing | finished
    created_at: datetime
    finished_at: datetime | None = None
    wins: int | None = None
    points: int | None = None
    score: float | None = None


class LadderStore(Protocol):
    async def create_bot(self, bot: BotRecord) -> bool:
        """Mark an existing player as a bot; False (nothing changed) if it is one already."""
        ...

    async def bot(self, player_id: str) -> BotRecord | None: ...
    async def bots(self, player_ids: list[str]) -> dict[str, BotRecord]:
        """The bots among ``player_ids``."""
        ...

    async def ladder_entry(self, player_id: str) -> LadderEntry | None: ...
    async def add_ladder_entry(self, entry: LadderEntry) -> bool:
        """Enroll; False (nothing changed) if already enrolled."""
        ...

    async def ladder_entries(self) -> list[LadderEntry]:
        """Every entrant, best rating first (ties: smaller deviation, then player id)."""
        ...

    async def create_ladder_pair(self, pair: LadderPair) -> None: ...
    async def ladder_pairs(
        self, *, player_id: str | None, status: str | None, limit: int
    ) -> list[LadderPair]:
        """Pairs (of ``player_id`` if given, with ``status`` if given), newest first."""
        ...

    async def finish_ladder_pair(self, pair: LadderPair, entries: list[LadderEntry]) -> bool:
        """Record a finished pair and both entrants' new ratings in one transaction, only if
        the pair is still ``playing`` and each stored entry still counts ``entry.games - 1``
        games; False (nothing written) otherwise."""
        ...
