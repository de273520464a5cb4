"""The one writer per match: every change runs under the match's ``asyncio.Lock``, is written
with a compare-and-set on the match version (the store refuses a second writer, even from
another process), and only then is anyone told: the writer's own caller first (``on_commit``,
where the transport sends its ack), then every subscriber of this process, then the other
processes through the broadcaster.

Readers take the match's lock too: a writer applies an action to ``live.state`` before its
commit, and nobody may see that state until the commit has landed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime
from functools import partial
from typing import Any, TypeVar

import msgspec

from server.rules import Action, HandResult, MatchOutcome, RulesError
from server.wire import convert

from .clock import Clock
from .errors import StaleVersion, Unavailable, from_rules_error
from .live import LiveMatch, MatchCache, Subscriber
from .logs import log_failure
from .metrics import Metrics
from .ports import (
    COMPUTER_SEAT,
    Broadcaster,
    FinishedHand,
    MatchMeta,
    SeatUpdate,
    Store,
    StoredAction,
    new_change,
    new_finished_hand,
    new_stored_action,
)
from .timecontrol import timed_out

log = logging.getLogger("server.service")

T = TypeVar("T")


def stored_result(result: HandResult) -> dict[str, Any]:
    """A finished hand's result as the store keeps it (JSON): its wire form, from the one
    definition in :mod:`server.wire` (databases already hold this shape)."""
    out: dict[str, Any] = msgspec.to_builtins(convert.hand_result(result))
    return out


def stored_outcome(outcome: MatchOutcome) -> dict[str, Any]:
    """A match's outcome as its row keeps it (JSON): its wire form."""
    out: dict[str, Any] = msgspec.to_builtins(convert.outcome(outcome))
    return out


class Moved(StaleVersion):
    """A write found the stored version moved on (another process wrote first); the live
    match has been rebuilt from the store."""


class Writer:
    """``connected(live)`` says which seats are connected (here or elsewhere: see
    :mod:`.presence`); ``after_write(live)`` runs after every committed change (the service
    schedules the computer's turn there)."""

    def __init__(
        self,
        store: Store,
        cache: MatchCache,
        broadcaster: Broadcaster,
        metrics: Metrics,
        clock: Clock,
        *,
        connected: Callable[[LiveMatch], tuple[bool, bool]],
        after_write: Callable[[LiveMatch], None],
        committed_in: Callable[[float], None] = lambda _: None,
    ) -> None:
        self.store = store
        self.cache = cache
        self.broadcaster = broadcaster
        self.metrics = metrics
        self.clock = clock
        self.connected = connected
        self.after_write = after_write
        self.committed_in = committed_in
        """Told how many seconds each commit took (the admission's measure: :mod:`.admission`)."""
        self.closing = False
        self._writes: set[asyncio.Task[Any]] = set()
        self._unshielded = 0
        """Writes running in their callers' tasks (``exclusive(shield=False)``)."""
        self._unshielded_done: asyncio.Event | None = None
        """Set when the last of those ends, while :meth:`drain` waits for them."""
        # Set by the clocks (:mod:`.clocks`): a change's clock and deadline, before its commit;
        # each update's server time and claim.
        self.restamp: Callable[[LiveMatch, MatchMeta, StoredAction | None], None] = lambda *_: None
        self.annotate: Callable[[LiveMatch, SeatUpdate], None] = lambda *_: None

    # --- running a change ---------------------------------------------------------------------

    def check_open(self) -> None:
        if self.closing:
            raise Unavailable("the server is shutting down; try again in a moment")

    async def exclusive(
        self, live: LiveMatch, body: Callable[[LiveMatch], Awaitable[T]], *, shield: bool = True
    ) -> T:
        """Run ``body`` under the match's lock. ``shield`` (the default): in a task of its own,
        so that if the caller is cancelled (shutdown, a computer's turn called off) the write
        still finishes, commits and tells everyone.

        ``shield=False``: in the caller's own task, for a caller nothing cancels while it waits:
        a socket's handler (aiohttp cancels no handler when its client goes; at shutdown the
        sockets are closed first and a handler is cancelled only past ``shutdown_timeout``).
        No task, future or partial of its own, and two turns of the loop fewer: 3% of a move's
        instructions (``python -m server.bench moves --instructions``). Cancelled all the same,
        the change lands or not as the store decides (its batch goes on), the match is rebuilt
        from the store as after any failed commit, and the fan-out and the computer's turn are
        skipped (a seat catches up at its next hello). :meth:`drain` waits for these too."""
        self.check_open()
        if not shield:
            self._unshielded += 1
            try:
                return await self._run(live, body)
            finally:
                self._unshielded -= 1
                if not self._unshielded and self._unshielded_done is not None:
                    self._unshielded_done.set()
        loop = asyncio.get_running_loop()
        task = loop.create_task(self._run(live, body))
        self._writes.add(task)
        # The caller waits on a future of its own that the task's end settles: cancelling the
        # caller cancels that future, never the task. (``asyncio.shield`` does the same with
        # two more callbacks and two more turns of the loop per write.)
        done: asyncio.Future[T] = loop.create_future()
        task.add_done_callback(partial(self._write_done, done))
        return await done

    async def _run(self, live: LiveMatch, body: Callable[[LiveMatch], Awaitable[T]]) -> T:
        async with live.lock:
            self.cache.touch(live)
            await self.cache.fresh(live)
            try:
                return await body(live)
            except Moved:
                # Another process wrote first and ``live`` now holds its change: decide again on
                # the fresh state (a repeated id is now recognised, a resignation goes through, a
                # stale client version is refused).
                return await body(live)

    def _write_done(self, done: asyncio.Future[Any], task: asyncio.Task[Any]) -> None:
        self._writes.discard(task)
        if task.cancelled():
            done.cancel()
            return
        error = task.exception()  # retrieved here so an abandoned caller does not warn
        if done.cancelled():
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(task.result())

    async def drain(self) -> None:
        """Wait for every write in flight to finish."""
        await asyncio.gather(*self._writes, return_exceptions=True)
        while self._unshielded:
            if self._unshielded_done is None or self._unshielded_done.is_set():
                self._unshielded_done = asyncio.Event()  # one for every drain waiting
            await self._unshielded_done.wait()

    async def catch_up(self, live: LiveMatch) -> None:
        """Under the lock: reload ``live`` if another process wrote a later version, and tell
        our clients."""
        if await self.cache.behind(live):
            self.fan_out(live)

    # --- changes ------------------------------------------------------------------------------

    async def apply(
        self,
        live: LiveMatch,
        seat: int,
        action: Action,
        client_id: str | None,
        on_commit: Callable[[int], None] | None,
    ) -> None:
        """Under the lock: play ``action`` for ``seat`` and commit it."""
        state = live.state
        finished_before = len(state.results)
        try:
            state.apply(action, seat)
        except RulesError as e:
            raise from_rules_error(e) from e  # the engine left the state unchanged
        now = self.clock.now()
        meta = self.meta_from_state(live, now)
        hands: tuple[FinishedHand, ...] = ()
        if len(state.results) > finished_before:  # this action finished a hand
            hands = tuple(
                new_finished_hand(
                    number=state.log[i].number,
                    starter=state.log[i].starter,
                    kind=r.kind.value,
                    winner=r.winner,
                    knocker=r.knocker,
                    points=r.points,
                    result=stored_result(r),
                    finished_at=now,
                )
                for i, r in enumerate(state.results[finished_before:], finished_before)
            )
        stored = new_stored_action(live.seq + 1, seat, action.to_wire(), client_id, meta.version, now)
        by = "computer" if meta.opponent == "computer" and seat == COMPUTER_SEAT else "human"
        await self.write(live, meta, stored, hands, on_commit)
        if client_id is not None:  # committed: a repeat of the id is answered with this version
            live.answers[seat].add(client_id, meta.version, action)
        self.metrics.actions.labels(action.kind, by).inc()
        # Per action: debug (at info these lines cost 5-8% of the CPU per move), and their
        # fields not even gathered unless it is on.
        if not log.isEnabledFor(logging.DEBUG):
            return
        log.debug(
            "action",
            extra={"match_id": live.match_id, "seat": seat, "kind": action.kind, "version": meta.version},
        )
        for h in hands:
            log.debug(
                "hand over",
                extra={
                    "match_id": live.match_id,
                    "hand_number": h.number,
                    "result": h.kind,
                    "winner": h.winner,
                },
            )

    def meta_from_state(self, live: LiveMatch, now: datetime | None = None) -> MatchMeta:
        """The match row after a change to ``live.state`` (one version later)."""
        state = live.state
        new = live.meta.copy()
        new.version += 1
        new.updated_at = now or self.clock.now()
        new.hand_number = state.hand_number
        new.scores = list(state.scores)
        new.hands_won = list(state.hands_won)
        new.resigned = state.resigned
        if state.outcome is not None:
            new.status = "finished"
            new.winner = state.outcome.winner
            new.outcome = stored_outcome(state.outcome)
        return new

    async def write(
        self,
        live: LiveMatch,
        meta: MatchMeta,
        action: StoredAction | None = None,
        hands: tuple[FinishedHand, ...] = (),
        on_commit: Callable[[int], None] | None = None,
    ) -> None:
        """Commit the change (under the lock), then tell the writer (``on_commit``), then
        everyone. On any failure the live match is rebuilt from the store, since
        ``live.state`` may already hold the change."""
        self.restamp(live, meta, action)
        started = self.clock.monotonic()
        try:
            ok = await self.store.commit(new_change(live.meta.version, meta, action, hands, live.meta))
        except BaseException as failure:
            # The state holds a change that may or may not have landed: rebuild it from the
            # store now, or before anyone next uses it if the store is unreachable.
            live.stale = True
            try:
                await self.cache.reload(live)
            except Exception as e:
                log_failure(
                    log, "rebuilding a match failed", self.store.unreachable(e), match_id=live.match_id
                )
            # Named, not a bare ``raise``: compiled (mypyc), a bare one re-raised the rebuild's
            # failure caught above, already freed (a segmentation fault; setup.py).
            raise failure
        took = self.clock.monotonic() - started
        self.metrics.commit_seconds.observe(took)
        self.committed_in(took)
        if not ok:
            await self.cache.reload(live)
            raise Moved("the match changed meanwhile; here is its current state")
        finished = meta.status == "finished" and live.meta.status != "finished"
        live.meta = meta
        if action is not None:
            live.seq = action.seq
            if timed_out(action.client_id):  # before the fan-out: the seats' views mark it
                live.timeouts.add(action.seq)
        if finished:
            reason = (meta.outcome or {}).get("reason", "target")
            self.metrics.matches_finished.labels(reason).inc()
            log.info("match over", extra={"match_id": meta.match_id, "winner": meta.winner, "reason": reason})
        if on_commit is not None:
            on_commit(meta.version)
        # Our own clients hear it now; other processes through the broadcaster.
        self.fan_out(live)
        try:
            await self.broadcaster.publish(meta.match_id, meta.version)
        except Exception:
            log.exception("broadcast failed", extra={"match_id": meta.match_id})
        self.after_write(live)

    # --- telling the subscribers --------------------------------------------------------------

    def update(
        self,
        live: LiveMatch,
        seat: int | None,
        connected: tuple[bool, bool] | None = None,
        now: datetime | None = None,
    ) -> SeatUpdate:
        """What ``seat`` sees now; only call it holding the match's lock. ``connected`` and
        ``now``: who is connected and the time, when the caller knows them already (a fan-out
        asks once for every seat)."""
        if connected is None:
            connected = self.connected(live)
        update = SeatUpdate(live.meta, live.state.view(seat), connected)
        update.now = now
        if live.timeouts:
            # The hand's events are its last actions, one each.
            first = live.seq - len(update.view.hand.history) + 1
            update.timed_out = frozenset(seq - first for seq in live.timeouts if seq >= first)
        update.bots = live.bots
        self.annotate(live, update)
        return update

    def fan_out(self, live: LiveMatch, skip: Subscriber | None = None) -> None:
        """Every subscriber of ``live`` (but ``skip``) its seat's view, built once per seat."""
        cache: dict[int | None, SeatUpdate] = {}
        moment: tuple[tuple[bool, bool], datetime] | None = None  # who is connected, and when
        for sub in list(live.subscribers):
            if sub is skip:
                continue
            update = cache.get(sub.seat)
            if update is None:
                if moment is None:  # asked once, and only when someone is to be told
                    moment = self.connected(live), self.clock.now()
                update = cache[sub.seat] = self.update(live, sub.seat, *moment)
            sub.deliver(update)
