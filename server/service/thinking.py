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
service plays on as for any bot failure) and the next one starts a new pool. A worker whose
server died (even by ``kill -9``) notices within a second and exits.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from server.bots import make_bot
from server.rules import Action, SeatView


def _watch_server(server_pid: int) -> None:
    """In a worker, at start: exit as soon as the server process is gone. (A killed server
    cannot tell its workers, and they would wait for work forever.)"""

    def watch() -> None:
        while os.getppid() == server_pid:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="watch-server", daemon=True).start()


def _choose(level: str, seed: str, view: SeatView) -> dict[str, Any]:
    """In a worker: the bot's action for ``view``, as its wire form. (A bot is made afresh:
    about 10 µs against milliseconds of thinking, and it keeps nothing between decisions.)"""
    return make_bot(level, seed).choose(view).to_wire()


class ThinkingPool:
    """``workers`` processes that choose the computer's moves (see the module docstring)."""

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise ValueError("a thinking pool needs at least one worker")
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None

    async def choose(self, level: str, seed: str, view: SeatView) -> Action:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_watch_server,
                initargs=(os.getpid(),),
            )
        pool = self._pool
        try:
            wire = await asyncio.get_running_loop().run_in_executor(pool, _choose, level, seed, view)
        except BrokenProcessPool:
            if self._pool is pool:
                self._pool = None
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        return Action.from_wire(wire)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
