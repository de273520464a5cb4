"""The computer's slow thinking, in worker processes.

Hard simulates for tens of milliseconds per move. Run on the server's event loop it would stall
every other match; in a thread it still holds the process's GIL for most of that time, so acks
and other matches' moves wait behind it (measured: act-to-ack p99 over 600 ms with 300 Hard
matches). :class:`ThinkingPool` sends each such decision to a pool of worker processes instead:
the event loop only pickles the seat's view out (about 0.1 ms) and the action back.

A worker sees exactly what the bot in the server would: ``make_bot(level, seed)`` and one
:class:`~server.rules.SeatView`. Bots are deterministic in (seed, view), so a worker's answer
is the one the server's own bot would give, whichever worker gives it. Workers are started with
``spawn`` (a clean interpreter, not a fork of a process running an event loop and threads),
lazily, on the first decision. A worker that dies breaks the pool: the decision fails (the
service then makes the same choice with its own bot, in a thread) and the next one starts a new
pool. A worker whose server died (even by ``kill -9``) notices within a second and exits.

**Overload.** Workers are a fixed number of cores; more Hard matches than they keep up with
would make every player wait longer and longer for the computer. Instead, a decision that finds
more than ``queue_limit`` decisions per worker ahead of it is made lighter: Hard samples fewer
worlds, in proportion, down to ``MIN_WORLDS`` (16 of 80 since issue 17's eighth round; 16 of
40 was about 40% of the work, since part of a decision's cost does not depend on the worlds).
The computer then plays somewhat weaker while the server is overloaded rather than slower
(measured with the Hard of 40 worlds, against OpenSpiel's simple bot, 400 matches on the same
deals: 66% won at 16 worlds, 57% at 8; 73% at 40 on other deals). A lighter decision is
still deterministic: the same level, seed, view and budget give the same action.

**Work people ask for** (an analysis's hands, a hint) goes through :meth:`ThinkingPool.
background`: at most one such job per worker is in the workers at once, so the computer's moves
never queue behind more than that, and past ``background_limit`` asked and unanswered a request
is refused (``unavailable``) rather than queued. Before, every request went straight into the
workers' one queue: 40 throwaway players asking for hints held a Hard computer's reply in
another match up for 21 s (and made its moves lighter).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from server.bots import HardBot, make_bot
from server.rules import Action, SeatView

from .errors import Unavailable

T = TypeVar("T")
log = logging.getLogger("server.service")


def _watch_server(server_pid: int) -> None:
    """In a worker, at start: exit as soon as the server process is gone. (A killed server
    cannot tell its workers, and they would wait for work forever.)"""

    def watch() -> None:
        while os.getppid() == server_pid:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="watch-server", daemon=True).start()


def _choose(level: str, seed: str, view: SeatView, options: dict[str, int]) -> dict[str, Any]:
    """In a worker: the bot's action for ``view``, as its wire form. (A bot is made afresh:
    about 10 µs against milliseconds of thinking, and it keeps nothing between decisions.)"""
    return make_bot(level, seed, **options).choose(view).to_wire()


def metered_choice(level: str, seed: str, view: SeatView) -> tuple[Action, float]:
    """A full-strength choice and the CPU seconds of the thread that made it (the bot ladder's
    budget counts them)."""
    started = time.thread_time()
    action = make_bot(level, seed).choose(view)
    return action, time.thread_time() - started


def _choose_metered(level: str, seed: str, view: SeatView) -> tuple[dict[str, Any], float]:
    """In a worker: :func:`metered_choice`, the action as its wire form."""
    action, cpu = metered_choice(level, seed, view)
    return action.to_wire(), cpu


def thinker_from(
    pool: ThinkingPool | None,
) -> Callable[[str, str, SeatView], Awaitable[tuple[Action, float]]]:
    """The bot ladder's standard thinker (:data:`server.service.ladder.Thinker`): the thinking
    workers when there are any (each reports its own CPU time), else a thread of this process
    (measured there)."""

    async def think(level: str, seed: str, view: SeatView) -> tuple[Action, float]:
        if pool is not None:
            try:
                return await pool.choose_metered(level, seed, view)
            except Exception:
                log.exception("thinking worker failed; thinking here")
        return await asyncio.to_thread(metered_choice, level, seed, view)

    return think


FULL_WORLDS = HardBot.WORLDS
MIN_WORLDS = 16
QUEUE_LIMIT = 4
"""Decisions per worker that may wait before the next one is made lighter: at 15-40 ms of
CPU for a Hard discard (compiled), a wait of about 100-160 ms at most before lightening starts."""
BACKGROUND_LIMIT = 16
"""Analysis and hint jobs per worker that may be asked for and unanswered at once; past it the
next is refused (``unavailable``: ask again in a moment)."""


class ThinkingPool:
    """``workers`` processes that choose the computer's moves (see the module docstring).
    ``on_lighter`` is called for every decision made lighter (the service counts them)."""

    def __init__(
        self,
        workers: int,
        *,
        queue_limit: int = QUEUE_LIMIT,
        background_limit: int = BACKGROUND_LIMIT,
        on_lighter: Callable[[], None] | None = None,
    ) -> None:
        if workers < 1:
            raise ValueError("a thinking pool needs at least one worker")
        self.workers = workers
        self.queue_limit = queue_limit
        self.on_lighter = on_lighter
        self.pending = 0
        """Decisions sent to the workers and not answered yet (running or queued)."""
        self.background_limit = workers * background_limit
        self.background_asked = 0
        """Background jobs asked for and not answered (in the workers, or waiting their turn)."""
        self._background = asyncio.Semaphore(workers)
        self._pool: ProcessPoolExecutor | None = None

    def worlds(self, ahead: int) -> int:
        """Hard's worlds for a decision with ``ahead`` decisions pending before it: all of them
        while the queue is within its limit, then fewer in proportion (so the queue's total work
        stays about that of a full queue), never fewer than ``MIN_WORLDS``.

        >>> pool = ThinkingPool(2, queue_limit=4)
        >>> [pool.worlds(n) for n in (0, 7, 8, 15, 100)]
        [80, 80, 71, 40, 16]
        """
        room = self.workers * self.queue_limit
        if ahead < room:
            return FULL_WORLDS
        return max(MIN_WORLDS, FULL_WORLDS * room // (ahead + 1))

    async def choose(self, level: str, seed: str, view: SeatView) -> Action:
        options: dict[str, int] = {}
        if level == HardBot.difficulty:
            worlds = self.worlds(self.pending)
            if worlds < FULL_WORLDS:
                options["worlds"] = worlds
                if self.on_lighter is not None:
                    self.on_lighter()
        return Action.from_wire(await self.run(_choose, level, seed, view, options))

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """Any slow, pure work (a decision; the analysis of a match, a hint, a ladder move) in the
        workers: ``fn`` a module-level function, its arguments and answer picklable. It counts
        as a pending decision, so the computer's moves behind it are made lighter, not later."""
        pool = self._executor()
        self.pending += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(pool, fn, *args)
        except BrokenProcessPool:
            if self._pool is pool:
                self._pool = None
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        finally:
            self.pending -= 1

    async def background(self, fn: Callable[..., T], *args: Any) -> T:
        """Work a person asked for (a hand's analysis, a hint): as :meth:`run`, but at most one
        such job per worker in the workers at once (the computer's moves queue behind no more
        than that), and refused with :class:`~.errors.Unavailable` when ``background_limit``
        are already asked for and unanswered."""
        if self.background_asked >= self.background_limit:
            raise Unavailable("the computer is busy thinking for others: ask again in a moment")
        self.background_asked += 1
        try:
            async with self._background:
                return await self.run(fn, *args)
        finally:
            self.background_asked -= 1

    async def choose_metered(self, level: str, seed: str, view: SeatView) -> tuple[Action, float]:
        """A full-strength choice (never lighter: the ladder measures strength) and its CPU
        seconds in the worker."""
        wire, cpu = await self.run(_choose_metered, level, seed, view)
        return Action.from_wire(wire), cpu

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_watch_server,
                initargs=(os.getpid(),),
            )
        return self._pool

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
