"""A thread of its own with a SQLite connection that is opened, used and closed only there: the
group commit's writer thread and its checkpointer each keep one."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


class ConnectionThread:
    """Runs ``work(connection)`` on the thread named ``name``, one call at a time; the connection
    is made by ``connect`` there, at the first call."""

    def __init__(self, name: str, connect: Callable[[], sqlite3.Connection]) -> None:
        self.name = name
        self._connect = connect
        self._executor: ThreadPoolExecutor | None = None
        self.connection: sqlite3.Connection | None = None
        """The connection, once the first call has opened it (for tests to look at)."""

    def run(self, work: Callable[[sqlite3.Connection], T]) -> asyncio.Future[T]:
        """The call's future (a plain future, not a task: nothing pends at the loop's end)."""
        if self._executor is None:
            self._executor = ThreadPoolExecutor(1, thread_name_prefix=self.name)
        return asyncio.get_running_loop().run_in_executor(self._executor, self._call, work)

    def _call(self, work: Callable[[sqlite3.Connection], T]) -> T:
        if self.connection is None:
            self.connection = self._connect()
        return work(self.connection)

    async def close(self) -> None:
        """Close the connection on its thread, then the thread."""
        if self._executor is not None:
            await asyncio.get_running_loop().run_in_executor(self._executor, self._close)
            self._executor.shutdown()
            self._executor = None

    def _close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None
