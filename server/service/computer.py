"""The computer's turns: when it is the computer's turn, a task pauses (``bot_delay``, scaled
by the pace the human chose, :func:`pause_for`, on the service clock), lets the bot choose from the computer's own seat view, never the full state,
and plays the choice through the writer like any other action.

A broken bot never stalls a match: an exception or an illegal choice plays the first legal
action instead. The slow levels think in worker processes (:mod:`.thinking`), or in a thread
when there are none, so the event loop keeps serving every other match.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from server.bots import DIFFICULTIES, make_bot
from server.bots.pace import DEFAULT_PACE, PACES
from server.rules import Action, SeatView

from .clock import Clock
from .errors import Unavailable
from .live import LiveMatch
from .metrics import Metrics
from .ports import COMPUTER_SEAT, MatchMeta
from .thinking import ThinkingPool
from .writer import Moved, Writer

log = logging.getLogger("server.service")

BOT_RETRIES = 5
"""Version races lost in a row before the computer's turn is given up (and logged): the next
human action or hello schedules it again."""

RETRY_FIRST = 0.5
RETRY_MOST = 10.0
"""The pause before trying again a computer move whose write failed: ``RETRY_FIRST`` seconds,
doubling after each failure up to ``RETRY_MOST``."""


RESUME_GRACE = 2.0
"""Seconds beyond the computer's pause that a process which loaded a match moments after another
wrote it lets pass before playing the computer's turn itself (:meth:`Computer.resume`)."""

PACE_FLOOR = 0.3
"""The shortest pause a player's pace may ask for, in seconds: "fast" halves the server's pause
but never below this (nor below the configured pause itself, when that is shorter: tests run
with 0)."""


def pause_for(bot_delay: float, pace: str) -> float:
    """The computer's pause before a move at ``pace``, from the server's ``bot_delay``.

    >>> pause_for(0.6, "slow"), pause_for(0.6, "normal"), pause_for(0.6, "fast")
    (1.2, 0.6, 0.3)
    >>> pause_for(0.4, "fast"), pause_for(0.2, "fast"), pause_for(0.0, "slow")
    (0.3, 0.2, 0.0)
    """
    factor = PACES.get(pace, PACES[DEFAULT_PACE])
    return max(bot_delay * factor, min(bot_delay, PACE_FLOOR))


class Computer:
    def __init__(
        self,
        writer: Writer,
        metrics: Metrics,
        clock: Clock,
        *,
        bot_delay: float,
        bot_factory: Callable[[str, str], Any] = make_bot,
        thinking: ThinkingPool | None = None,
    ) -> None:
        self.writer = writer
        self.metrics = metrics
        self.clock = clock
        self.bot_delay = bot_delay
        self.bot_factory = bot_factory
        self.thinking = thinking
        """Worker processes for the slow levels' moves (None: a thread of this process). Used
        with the standard bots only: a custom ``bot_factory`` thinks here."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._watched: set[LiveMatch] = set()
        """Matches whose turn :meth:`resume` left to another process for now."""

    def make_bot(self, meta: MatchMeta) -> Any:
        if meta.opponent != "computer":
            return None
        return self.bot_factory(meta.difficulty or "normal", bot_seed(meta))

    def to_move(self, live: LiveMatch) -> bool:
        return (
            live.bot is not None
            and live.meta.status == "active"
            and live.state.to_act == COMPUTER_SEAT
            and not self.writer.closing
        )

    def schedule(self, live: LiveMatch, *, caught_up: bool = False) -> None:
        """Start the computer's turns on ``live`` if it is to move and none are under way.
        ``caught_up``: the first move at once, once ``live`` is up to the store."""
        if live.bot_task is not None or not self.to_move(live):
            return
        live.bot_task = self._start(self._loop(live, caught_up))

    def resume(self, live: LiveMatch) -> None:
        """After ``live`` was loaded from the store: the computer's turn, if it is to move. A
        turn that a restart interrupted (the match last written a while ago) starts as after
        any write. A match written moments ago was written by another process (a replica it was
        created or played on), which plays that turn itself: it schedules one after every
        write. So this process waits until ``RESUME_GRACE`` seconds past that process's pause,
        and then, if nothing was written meanwhile, catches up with the store and plays only a
        turn the other did not (it died, or thought longer than the grace): two replicas seldom
        both think. A turn of this process's own (after a write here) starts as ever.

        The write's time is the other process's clock: one running ahead of this one's makes the
        write look as if it came later than now, and the wait is never longer than the pause and
        the grace (else a writer's clock an hour ahead, its process then gone, would hold the
        computer's turn for that hour). One running behind makes the write look older and this
        process plays sooner: at worst both think, and the store keeps only one move."""
        if live.bot_task is not None or live in self._watched or not self.to_move(live):
            return
        pause = pause_for(self.bot_delay, live.pace)
        since = max(0.0, (self.clock.now() - live.meta.updated_at).total_seconds())
        due = pause + RESUME_GRACE - since
        if due > 0:
            self._start(self._watch(live, due))
        else:
            self.schedule(live)

    def watching(self, live: LiveMatch) -> bool:
        """Whether this process is waiting to see if another plays the computer's turn."""
        return live in self._watched

    async def _watch(self, live: LiveMatch, due: float) -> None:
        version = live.meta.version
        self._watched.add(live)
        try:
            await self.clock.sleep(due)
        finally:
            self._watched.discard(live)
        if self.writer.cache.find(live.match_id) is not live:
            return  # forgotten here meanwhile (a later load resumes its own turn)
        if live.meta.version != version:
            self.resume(live)  # written again meanwhile: that write's process plays its turn
        else:
            self.schedule(live, caught_up=True)

    def _start(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def close(self) -> None:
        """Cancel the pending turns (a turn's write already under way still commits)."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _loop(self, live: LiveMatch, caught_up: bool) -> None:
        """The computer's moves, one pause before each, until it is the human's turn. Another
        process writing the match meanwhile (its copy here is then rebuilt) is no failure: the
        loop looks again at whose turn it is, a few times in a row at most. A move that could
        not be written (the store down, locked, unreachable) is tried again after a pause that
        doubles each time (``RETRY_FIRST`` up to ``RETRY_MOST`` seconds, on the service clock)
        for as long as the service is open and it is still the computer's turn, so the human
        is never left waiting on a computer that gave up."""
        moved = 0
        pause = 0.0 if caught_up else pause_for(self.bot_delay, live.pace)
        move = self._move_caught_up if caught_up else self._move
        backoff = RETRY_FIRST
        failures = 0
        try:
            while True:
                await self.clock.sleep(pause)
                pause = pause_for(self.bot_delay, live.pace)
                try:
                    going_on = await self.writer.exclusive(live, move)
                    move = self._move
                    if not going_on:
                        return
                    moved = 0
                except Moved:
                    moved += 1
                    if moved >= BOT_RETRIES:
                        raise
                    continue
                except (asyncio.CancelledError, Unavailable):
                    raise
                except Exception:
                    if not self._may_retry(live):
                        raise
                    failures += 1
                    log.warning(
                        "computer move failed; trying again in %.1f s",
                        backoff,
                        exc_info=failures == 1,
                        extra={"match_id": live.match_id, "failures": failures},
                    )
                    pause, backoff = backoff, min(backoff * 2, RETRY_MOST)
                    continue
                if failures:
                    log.info(
                        "computer move written after failures",
                        extra={"match_id": live.match_id, "failures": failures},
                    )
                failures, backoff = 0, RETRY_FIRST
        except asyncio.CancelledError:
            raise
        except Unavailable:
            return
        except Exception:
            log.exception("computer move failed", extra={"match_id": live.match_id})
        finally:
            if live.bot_task is asyncio.current_task():
                live.bot_task = None

    def _may_retry(self, live: LiveMatch) -> bool:
        """After a failed write: whether the computer should try again. A copy left stale (its
        state may hold the unwritten move, so whose turn it shows is not to be trusted) is
        tried again too: the next attempt rebuilds it first and looks at the turn then."""
        if self.writer.closing or self.writer.cache.find(live.match_id) is not live:
            return False
        return live.stale or self.to_move(live)

    def _turn_goes_on(self, live: LiveMatch) -> bool:
        """Under the lock: whether the computer is (still) to move; if not, its loop ends here,
        so the next human move schedules a new one."""
        if self.to_move(live):
            return True
        live.bot_task = None
        return False

    async def _move_caught_up(self, live: LiveMatch) -> bool:
        """:meth:`_move` once ``live`` is up to the store (another process's move told here)."""
        await self.writer.catch_up(live)
        return await self._move(live)

    async def _move(self, live: LiveMatch) -> bool:
        if not self._turn_goes_on(live):
            return False
        view = live.state.hand.view(COMPUTER_SEAT, arranged=False)  # bots never read the layout
        started = self.clock.monotonic()
        try:
            if not DIFFICULTIES[live.meta.difficulty or "normal"].slow:
                # Easy and Normal choose in well under a millisecond: a thread hop would cost
                # more than the thinking (and, under load, tens of ms of GIL hand-offs).
                action = live.bot.choose(view)
            else:
                action = await self._think(live, view)
        except Exception:
            log.exception("computer failed to choose; playing a fallback", extra={"match_id": live.match_id})
            action = None
        self.metrics.bot_seconds.observe(self.clock.monotonic() - started)
        try:
            # The plain action, whatever class the bot used.
            plain = Action.from_wire(action.to_wire()) if isinstance(action, Action) else None
        except Exception:
            plain = None
        if plain is not None and plain in view.legal_actions:
            action = plain
        else:
            # A broken bot must not stall the match: play the first legal action instead.
            if action is not None:
                log.error("computer chose an illegal action", extra={"match_id": live.match_id})
            action = view.legal_actions[0]
        await self.writer.apply(live, COMPUTER_SEAT, action, None, None)
        # When this move ends its turn, the loop ends with it, not after another pause.
        return self._turn_goes_on(live)

    async def _think(self, live: LiveMatch, view: SeatView) -> Any:
        """A slow level's choice. Hard simulates for tens of milliseconds: in a worker process,
        so the event loop (and its GIL) keeps serving every other match meanwhile. Without
        workers, or when they fail (a worker died, or could not start), this process's own bot
        makes the same choice in a thread, so the event loop at least runs between its slices."""
        if self.thinking is not None and self.bot_factory is make_bot:
            try:
                return await self.thinking.choose(live.meta.difficulty or "normal", bot_seed(live.meta), view)
            except Exception:
                log.exception("thinking worker failed; thinking here", extra={"match_id": live.match_id})
        return await asyncio.to_thread(live.bot.choose, view)


def bot_seed(meta: MatchMeta) -> str:
    """The computer's seed: bots are deterministic in it, so derive it from the match's (secret)
    seed; the same in every process and after every restart."""
    return f"{meta.seed}:bot"
