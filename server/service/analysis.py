"""Explained play, orchestrated: a player's analysis of a match and hints while playing the
computer (the evaluation itself is :mod:`server.bots.analysis`, pure).

- **Who may ask.** Only a player seated in the match, for its own seat (anyone else:
  ``forbidden``; no such match: ``not_found``). Only hands the rules have finished are analysed;
  a match in play shows the hands before the current one. The opponent's decisions in those
  hands are analysed too, from its own view (a finished hand's record shows its cards), for
  what they lost alone: that comes back to the player. A hint only in a match against the
  computer that is not rated, for the seat to act, from that seat's view.
- **CPU.** Computed in the thinking workers (:class:`~.thinking.ThinkingPool`; without workers,
  in a thread), with a fixed budget: ``worlds`` sampled worlds per decision (at most that many
  playouts per legal action). The transport rate-limits the requests per player.
- **Cache.** A hand's analysis is a function of (match, seat, hand, budget): the last
  ``cache_size`` hands are kept in memory, least recently used dropped first, so a match in
  play computes only the hand just finished; so are the last ``cache_size`` hints used, by (match,
  version, seat). Nothing is stored.
- **A crowd asking** cannot hold the computer up: the jobs go through
  :meth:`.thinking.ThinkingPool.background` (one per worker at once; past a limit, refused as
  ``unavailable``).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from server.bots import analysis as explain
from server.rules import RULES, HandLog, SeatView

from .errors import Forbidden, MatchOver, NotFound, NotYourTurn
from .live import MatchCache, replay
from .ports import MatchMeta, PlayerRecord, Store
from .queries import Queries, seat_of
from .thinking import ThinkingPool

T = TypeVar("T")
K = TypeVar("K")

CACHE_SIZE = 4096
"""Analysed hands kept in memory (a few kilobytes each)."""


@dataclass(frozen=True, slots=True)
class AnalysisResult:
    meta: MatchMeta
    analysis: explain.MatchAnalysis
    worlds: int


@dataclass(frozen=True, slots=True)
class HintResult:
    meta: MatchMeta
    decision: explain.Decision


def compute_hand(
    rules: str, log: HandLog, seat: int, scores: tuple[int, int], worlds: int
) -> explain.HandAnalysis:
    """In a worker: one finished hand of ``seat``'s analysed."""
    return explain.analyse_hand(RULES[rules], log, seat, scores, worlds=worlds)


def compute_hint(view: SeatView, worlds: int) -> explain.Decision:
    """In a worker: Hard's choice for ``view``."""
    return explain.hint(view, worlds=worlds)


class Analyses:
    def __init__(
        self,
        store: Store,
        cache: MatchCache,
        thinking: Callable[[], ThinkingPool | None],
        *,
        worlds: int = explain.WORLDS,
        hint_worlds: int = explain.WORLDS,
        cache_size: int = CACHE_SIZE,
    ) -> None:
        self.queries = Queries(store)
        self.store = store
        self.cache = cache
        self.thinking = thinking
        self.worlds = worlds
        self.hint_worlds = hint_worlds
        self.cache_size = cache_size
        self._done: OrderedDict[tuple[str, int, int, int], explain.HandAnalysis] = OrderedDict()
        self._hints: OrderedDict[tuple[str, int, int], explain.Decision] = OrderedDict()
        """The last hints by (match, version, seat): asked again for the same position (a reload,
        a client asking twice), one is not thought out again."""

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        pool = self.thinking()
        if pool is not None:
            return await pool.background(fn, *args)
        return await asyncio.to_thread(fn, *args)

    async def _kept(self, kept: OrderedDict[K, T], key: K, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` from ``kept`` (an answer for ``key`` is kept there), else worked out and
        kept; the last ``cache_size`` used are kept, the least recently used dropped first."""
        found = kept.get(key)
        if found is None:
            found = await self._run(fn, *args)
            kept[key] = found
            while len(kept) > self.cache_size:
                kept.popitem(last=False)
        kept.move_to_end(key)
        return found

    async def analysis(self, player: PlayerRecord, match_id: str) -> AnalysisResult:
        meta = await self.queries.read_meta(match_id)
        seat = seat_of(meta, player)
        loaded = await self.store.load_match(match_id)
        if loaded is None:  # deleted meanwhile
            raise NotFound(f"no match {match_id!r}")
        meta, actions = loaded
        state = replay(meta, actions)
        scores = explain.match_scores(state)
        hands: tuple[list[explain.HandAnalysis], list[explain.HandAnalysis]] = ([], [])
        points: list[int] = []
        # Hand by hand, both seats at once (the opponent's losses come back to the player), each
        # its own job: a long match does not hold a worker for seconds, a match in play computes
        # only the hand that has just finished, and the other player asking finds both done.
        for i, (log, result) in enumerate(zip(state.log, state.results, strict=False)):
            both = await asyncio.gather(
                *(
                    self._kept(
                        self._done,
                        (match_id, s, log.number, self.worlds),
                        compute_hand,
                        meta.rules,
                        log,
                        s,
                        scores[i],
                        self.worlds,
                    )
                    for s in (0, 1)
                )
            )
            for s, found in enumerate(both):
                hands[s].append(found)
            points.append(result.points_for(seat))
        analysis = explain.MatchAnalysis(seat, tuple(hands[seat]), tuple(points), tuple(hands[1 - seat]))
        return AnalysisResult(meta, analysis, self.worlds)

    async def hint(self, player: PlayerRecord, match_id: str) -> HintResult:
        meta = await self.queries.read_meta(match_id)
        seat = seat_of(meta, player)
        if meta.opponent != "computer":
            raise Forbidden("hints are only for matches against the computer")
        if meta.rated:
            raise Forbidden("no hints in a rated match")
        if meta.status != "active":
            raise MatchOver("the match is not in play")
        live = await self.cache.get(match_id)
        async with live.lock:
            await self.cache.fresh(live)
            meta = live.meta
            state = live.state
            if state.is_over:
                raise MatchOver("the match is over")
            if state.hand.to_act != seat:
                raise NotYourTurn("a hint is for your turn")
            view = state.hand.view(seat)
        decision = await self._kept(
            self._hints, (match_id, meta.version, seat), compute_hint, view, self.hint_worlds
        )
        return HintResult(meta, decision)

    def __len__(self) -> int:
        return len(self._done)
