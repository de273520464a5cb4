"""Matches held in memory: a match's row, its rebuilt state and who listens to it, loaded from
the store when first needed and dropped again when idle.

A match is determined by its row (rules, seed, first starter) and its actions, so a match not in
memory (after a restart, even ``kill -9``, or after eviction) is rebuilt by replaying them. The
cache never writes; the writer (:mod:`.writer`) does, under each match's lock.
"""

from __future__ import annotations

import asyncio
import heapq
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from server.bots.pace import DEFAULT_PACE
from server.rules import Action, MatchState, RulesError

from .answers import Answers, no_answers
from .clock import Clock
from .errors import NotFound
from .ports import MatchMeta, SeatUpdate, Store, StoredAction
from .timecontrol import timed_out

log = logging.getLogger("server.service")


class Subscriber(Protocol):
    """A connection listening to a match (the transport's WebSocket). ``deliver`` must not block:
    it frames the update at once and queues it for sending."""

    seat: int | None

    def deliver(self, update: SeatUpdate) -> None: ...


class MatchLock(asyncio.Lock):
    """asyncio's lock, minus what it keeps once anyone has waited for it: a deque of waiters
    (a 64-slot block, over 600 bytes) for as long as the lock lives. A live match's lock is
    waited for whenever the computer's reply queues behind the human's action, and lives as
    long as the match; here the empty deque goes at the release that leaves nobody waiting
    (the next waiter makes a new one, as asyncio's own does the first time: its ``_waiters``
    is None until then, in every Python this runs on; ``tests/service/test_match_lock.py``)."""

    def release(self) -> None:
        super().release()
        waiters = self._waiters
        if waiters is not None and not waiters:
            self._waiters = None


@dataclass(eq=False, slots=True)
class LiveMatch:
    """A match held in memory: its row, its rebuilt state and who is listening."""

    meta: MatchMeta
    state: MatchState
    seq: int
    answers: Answers = field(default_factory=no_answers)
    """Per seat, each client id of an applied action: the version it was answered with and the
    action (a repeated id is a retry only with the same action)."""
    bot: Any = None
    lock: asyncio.Lock = field(default_factory=MatchLock)
    subscribers: set[Subscriber] = field(default_factory=set)
    bot_task: asyncio.Task[None] | None = None
    pace: str = DEFAULT_PACE
    """The computer's pace (``server.bots.pace``) the human's latest ``hello`` chose; kept in
    this process only (a reconnecting client says it again)."""
    bots: tuple[bool, bool] = (False, False)
    """Which seats' players are bot accounts (as of ``bots_of``: refreshed when a seat changes)."""
    bots_of: tuple[str | None, ...] = (None, None)
    last_used: float = 0.0
    """When it was last used, on the service clock's ``monotonic`` (set by the cache)."""
    stale: bool = False
    """A write failed and the state could not be rebuilt yet: rebuild before any use."""
    timeouts: set[int] = field(default_factory=set)
    """The numbers (``seq``) of the actions the server played for a seat out of time."""

    @property
    def match_id(self) -> str:
        return self.meta.match_id

    def connected(self) -> tuple[bool, bool]:
        """Which seats have a socket on this process."""
        seats = {s.seat for s in self.subscribers}
        return (0 in seats, 1 in seats)


EVICT_PAUSE = 1.0
"""Seconds before looking for idle matches again when the busy ones alone exceed the bound."""
EVICT_ROOM = 0.1
"""The share of ``max_live`` an eviction frees beyond the bound, so the next few hundred loads
walk nothing: a search walks every live match, and with one after every load past the bound,
the herd of hellos after a restart (5,000 players) spent a quarter of the loop's time in it."""


class MatchCache:
    """The live matches of this process, at most ``max_live`` (idle ones beyond that are
    dropped, least recently used first). ``make_bot(meta)`` gives a loaded match its computer
    player; ``on_loaded(live)`` runs after a match is loaded from the store (the service resumes
    an interrupted computer turn there); ``on_moved(live)`` after a rebuild found it at a later
    version than it held (the service tells its clients there)."""

    def __init__(
        self,
        store: Store,
        clock: Clock,
        *,
        max_live: int,
        make_bot: Callable[[MatchMeta], Any],
        on_loaded: Callable[[LiveMatch], None],
        on_moved: Callable[[LiveMatch], None],
    ) -> None:
        self.store = store
        self.clock = clock
        self.max_live = max_live
        self.make_bot = make_bot
        self.on_loaded = on_loaded
        self.on_moved = on_moved
        self.held: dict[str, LiveMatch] = {}
        self._loading: dict[str, asyncio.Future[LiveMatch]] = {}
        self._next_evict = float("-inf")

    def __contains__(self, match_id: object) -> bool:
        return match_id in self.held

    def __len__(self) -> int:
        return len(self.held)

    def __iter__(self) -> Iterator[LiveMatch]:
        return iter(list(self.held.values()))

    def loading(self, match_id: str) -> asyncio.Future[LiveMatch] | None:
        """The load of ``match_id`` under way, if one is."""
        return self._loading.get(match_id)

    def find(self, match_id: str) -> LiveMatch | None:
        """The match if it is in memory (never loads)."""
        return self.held.get(match_id)

    def new(self, meta: MatchMeta, state: MatchState) -> LiveMatch:
        """Hold a match just created (no actions yet)."""
        return self.remember(LiveMatch(meta, state, 0, bot=self.make_bot(meta)))

    async def get(self, match_id: str) -> LiveMatch:
        """The live match, loaded and rebuilt from the store if it is not in memory (one load
        however many ask at once)."""
        live = self.held.get(match_id)
        if live is not None:
            live.last_used = self.clock.monotonic()
            return live
        pending = self._loading.get(match_id)
        if pending is not None:
            return await asyncio.shield(pending)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[LiveMatch] = loop.create_future()
        self._loading[match_id] = future
        try:
            loaded = await self.store.load_match(match_id) if plausible_id(match_id) else None
            if loaded is None:
                raise NotFound(f"no match {match_id!r}")
            meta, actions = loaded
            live = LiveMatch(meta, replay(meta, actions), len(actions), answers(actions))
            live.timeouts = timeouts(actions)
            live.bot = self.make_bot(meta)
            self.remember(live)
            future.set_result(live)
            log.info("match loaded", extra={"match_id": match_id, "version": meta.version})
        except BaseException as e:
            future.set_exception(e)
            future.exception()
            raise
        finally:
            del self._loading[match_id]
        self.on_loaded(live)
        return live

    async def reload(self, live: LiveMatch) -> None:
        """Rebuild ``live`` from the store (forgotten if it is no longer there), after a write
        that failed or lost the race to another process. When that finds a later version (the
        other process's change, or this one's that landed though its commit did not answer),
        ``on_moved`` tells this process's clients: no notice will, since the one for that
        version, when it comes, finds the copy already there."""
        version = live.meta.version
        await self._rebuild(live)
        if live.meta.version != version:
            self.on_moved(live)

    async def _rebuild(self, live: LiveMatch) -> None:
        loaded = await self.store.load_match(live.match_id)
        if loaded is None:  # deleted under us: forget it
            self.held.pop(live.match_id, None)
            return
        meta, actions = loaded
        live.meta = meta
        live.state = replay(meta, actions)
        live.seq = len(actions)
        live.answers = answers(actions)
        live.timeouts = timeouts(actions)
        live.stale = False

    async def advance(self, live: LiveMatch) -> None:
        """Under the lock: bring ``live`` up to the store after another process's changes,
        reading and applying only the actions it has not seen (a whole reload replayed every
        action of the match for each move a replica heard of). When those changes were not
        just actions (a join, a resignation, a flag), or the result disagrees with the row in
        anything the state decides, the match is rebuilt from the store instead."""
        if live.stale:
            await self._rebuild(live)
            return
        loaded = await self.store.load_match_after(live.match_id, live.seq)
        if loaded is None:  # deleted under us: forget it
            self.held.pop(live.match_id, None)
            return
        meta, actions = loaded
        if not _extend(live, meta, actions):
            live.stale = True  # half-changed until the rebuild below succeeds
            await self._rebuild(live)

    async def behind(self, live: LiveMatch) -> bool:
        """Under the lock: catch ``live`` up if the store has a later version (written by
        another process whose notice has not reached us); True if it did."""
        version = (await self.store.match_versions([live.match_id])).get(live.match_id)
        if version is not None and version > live.meta.version:
            await self.advance(live)
            return True
        return False

    async def fresh(self, live: LiveMatch) -> None:
        """Under the lock: make sure ``live`` reflects the store (after a failed write)."""
        if live.stale:
            await self.reload(live)

    def touch(self, live: LiveMatch) -> None:
        live.last_used = self.clock.monotonic()

    def remember(self, live: LiveMatch) -> LiveMatch:
        live.last_used = self.clock.monotonic()
        self.held[live.match_id] = live
        self.evict(keep=live)
        return live

    def forget(self, live: LiveMatch) -> None:
        self.held.pop(live.match_id, None)

    def evict(self, keep: LiveMatch | None = None) -> None:
        """Keep at most ``max_live`` matches in memory, dropping the least recently used idle
        ones (they reload from the store when needed), never ``keep`` (the match just created
        or loaded, about to be used). Past the bound, a search drops down to a tenth of the
        bound below it (``EVICT_ROOM``), so it walks the live matches once per that many loads,
        not once per load.

        When matches in use (a socket, the lock, the computer's turn) alone outnumber the bound,
        no eviction can reach it: the idle ones go, and the next look waits a second, else every
        new match would walk all the live ones (10,000 of them at scale)."""
        if len(self.held) <= self.max_live:
            return
        now = self.clock.monotonic()
        if now < self._next_evict:
            return
        idle = [lv for lv in self.held.values() if idle_here(lv) and lv is not keep]
        excess = len(self.held) - (self.max_live - int(self.max_live * EVICT_ROOM))
        for lv in heapq.nsmallest(excess, idle, key=lambda lv: lv.last_used):
            del self.held[lv.match_id]
        self._next_evict = now + EVICT_PAUSE if len(self.held) > self.max_live else float("-inf")


def idle_here(live: LiveMatch) -> bool:
    """Whether nothing of this process uses ``live`` now: no socket, no write, no computer's turn."""
    return not live.subscribers and not live.lock.locked() and live.bot_task is None


def replay(meta: MatchMeta, actions: list[StoredAction]) -> MatchState:
    """The match rebuilt from its row and its actions."""
    try:
        return MatchState.replay(
            {
                "rules": meta.rules,
                "seed": meta.seed,
                "first_starter": meta.first_starter,
                "deal": meta.deal,
                "actions": [[a.seat, a.action] for a in actions],
                "resigned": meta.resigned,
                "reason": (meta.outcome or {}).get("reason"),
            }
        )
    except RulesError:
        log.exception("stored match does not replay", extra={"match_id": meta.match_id})
        raise


def _extend(live: LiveMatch, meta: MatchMeta, actions: list[StoredAction]) -> bool:
    """Apply ``actions`` (the ones after ``live.seq``) to ``live`` and take ``meta`` as its row,
    if every version between was one of them and the state then agrees with the row; False
    (``live`` then half-changed: rebuild it) otherwise."""
    old = live.meta
    if meta.version != old.version + len(actions) or (meta.status not in (old.status, "finished")):
        return False
    for i, a in enumerate(actions, 1):
        if a.seq != live.seq + i or a.version != old.version + i:
            return False
    state = live.state
    try:
        for a in actions:
            state.apply(Action.from_wire(a.action), a.seat)
    except RulesError:
        return False
    outcome = state.outcome
    if (
        state.hand_number != meta.hand_number
        or list(state.scores) != meta.scores
        or list(state.hands_won) != meta.hands_won
        or state.resigned != meta.resigned
        or (outcome is None) != (meta.status != "finished")
        or (outcome is not None and outcome.winner != meta.winner)
    ):
        return False
    live.meta = meta
    live.seq += len(actions)
    for held, more in zip(live.answers, answers(actions), strict=True):
        held.update(more)
    live.timeouts |= timeouts(actions)
    return True


def answers(actions: list[StoredAction]) -> Answers:
    """Per seat, each client id's version and action."""
    out = no_answers()
    for a in actions:
        if a.client_id is not None:
            out[a.seat].add(a.client_id, a.version, Action.from_wire(a.action))
    return out


def timeouts(actions: list[StoredAction]) -> set[int]:
    """The numbers of the actions the server played for a seat whose time ran out."""
    return {a.seq for a in actions if timed_out(a.client_id)}


def plausible_id(match_id: str) -> bool:
    return isinstance(match_id, str) and 0 < len(match_id) <= 32
