"""Bot accounts and the bot ladder (docs/protocol.md, "Bot accounts and the ladder"): create a
player that is a bot, enroll it, and play every ladder match the server gives it.

The whole loop a bot author needs is :func:`play_ladder`::

    client = GinRummyClient("http://127.0.0.1:8080")
    await client.create_bot("My bot", owner="me@example.org", description="greedy")
    await client.enroll()
    await play_ladder(client, my_strategy)        # until stopped

It asks ``GET /api/ladder/matches`` every few seconds (asking is also how the server knows the
bot is there to be paired), plays each new match over the WebSocket with the strategy, and
keeps going. A mixin of :class:`~ginrummy_client.rest.GinRummyClient` for the REST calls.
"""

from __future__ import annotations

import asyncio
import contextlib
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .connection import Strategy
from .models import MatchView, PlayerIdentity

if TYPE_CHECKING:
    from .rest import GinRummyClient

__all__ = ["LadderMatch", "LadderMixin", "LadderStanding", "play_ladder"]


@dataclass(frozen=True, slots=True)
class LadderStanding:
    rank: int
    player_id: str
    name: str
    kind: str
    """``bot`` (enrolled) or ``reference`` (one of the server's own players)."""
    rating: float
    deviation: float
    games: int
    """Pairs counted (two matches each)."""

    @staticmethod
    def from_wire(d: Mapping[str, Any]) -> LadderStanding:
        return LadderStanding(
            int(d["rank"]),
            str(d["player_id"]),
            str(d.get("name", "")),
            str(d.get("kind", "bot")),
            float(d["rating"]),
            float(d["deviation"]),
            int(d.get("games", 0)),
        )

    def __str__(self) -> str:
        return (
            f"{self.rank:>3}. {self.name:<24} {self.kind:<9} {self.rating:7.1f} ± {2 * self.deviation:5.1f}"
            f"  ({self.games} pairs)"
        )


@dataclass(frozen=True, slots=True)
class LadderMatch:
    match_id: str
    pair_id: str
    seat: int
    ws_url: str

    @staticmethod
    def from_wire(d: Mapping[str, Any]) -> LadderMatch:
        return LadderMatch(
            str(d["match_id"]), str(d["pair_id"]), int(d["seat"]), str(d.get("ws_url") or "/ws")
        )


class LadderMixin:
    token: str | None

    async def request(self, method: str, path: str, body: Any = None) -> Any:  # (GinRummyClient's)
        raise NotImplementedError

    async def create_bot(self, name: str, *, owner: str, description: str = "") -> PlayerIdentity:
        """A new player declared a bot (``owner``: who runs it); its token is kept on this client."""
        body = {"name": name, "bot": {"owner": owner, "description": description}}
        player = PlayerIdentity.from_wire(await self.request("POST", "/api/players", body))
        self.token = player.token
        return player

    async def enroll(self) -> LadderStanding:
        """Enroll this client's bot in the ladder (again: nothing changes)."""
        return LadderStanding.from_wire((await self.request("POST", "/api/ladder/entries"))["entrant"])

    async def ladder_matches(self) -> list[LadderMatch]:
        """This bot's ladder matches in play (asking says it is there to be paired)."""
        return [
            LadderMatch.from_wire(m) for m in (await self.request("GET", "/api/ladder/matches"))["matches"]
        ]

    async def ladder(self) -> list[LadderStanding]:
        """The ladder's standings, best first."""
        return [LadderStanding.from_wire(e) for e in (await self.request("GET", "/api/ladder"))["entrants"]]

    async def ladder_pairs(self, player_id: str, *, limit: int = 20) -> dict[str, Any]:
        """``{player_id, pairs, pairings}``: an entrant's recent pairs and paired results."""
        query = urllib.parse.urlencode({"player": player_id, "limit": limit})
        return dict(await self.request("GET", f"/api/ladder/pairs?{query}"))


@dataclass(slots=True)
class LadderRun:
    """What :func:`play_ladder` did: the matches it finished, and each one's final view."""

    finished: dict[str, MatchView] = field(default_factory=dict)


async def play_ladder(
    client: GinRummyClient,
    strategy: Strategy,
    *,
    matches: int | None = None,
    poll_seconds: float = 2.0,
    stop: asyncio.Event | None = None,
    on_finished: Any = None,
) -> LadderRun:
    """Play every ladder match the server gives this bot, each in a task of its own, until
    ``stop`` is set or ``matches`` matches are finished (None: for ever)."""
    run = LadderRun()
    playing: dict[str, asyncio.Task[None]] = {}
    stop = stop or asyncio.Event()

    async def play(m: LadderMatch) -> None:
        async with client.connect(m.match_id, ws_url=m.ws_url) as conn:
            final = await conn.play(strategy)
        run.finished[m.match_id] = final
        if on_finished is not None:
            on_finished(m, final)

    try:
        while not stop.is_set() and (matches is None or len(run.finished) < matches):
            for m in await client.ladder_matches():
                if m.match_id not in playing:
                    playing[m.match_id] = asyncio.ensure_future(play(m))
            for match_id, task in list(playing.items()):
                if task.done() and match_id not in run.finished and task.exception() is not None:
                    del playing[match_id]  # (it failed: the next poll tries again while it is in play)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), poll_seconds)
    finally:
        for task in playing.values():
            task.cancel()
        await asyncio.gather(*playing.values(), return_exceptions=True)
    return run
