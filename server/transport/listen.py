"""The listening socket, and what happens at the process's file limit.

When every file descriptor is in use, ``accept()`` fails with ``EMFILE``. asyncio's accept loop
then logs a traceback and schedules a retry for each of up to ``backlog`` attempts in one pass,
and each retry does the same: one client holding sockets open made 224,000 error lines in ten
seconds while nobody could connect. This socket answers that case itself, the way nginx and
libuv do: it keeps one spare descriptor, and at the limit it closes the spare, accepts the
waiting connection, closes it at once (the client sees the connection closed, not a hang) and
opens the spare again. asyncio sees "nothing to accept" and carries on; the server stays alive,
and one warning a minute says how many connections were shed.

``raise_file_limit`` lifts the soft limit to the hard one at start-up, so the limit is reached
later (many systems start processes at a soft 1,024).
"""

from __future__ import annotations

import errno
import logging
import os
import resource
import socket
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger("server.transport.listen")

AT_LIMIT = (errno.EMFILE, errno.ENFILE)
WARN_EVERY = 60.0
"""Seconds between two warnings about shed connections."""


class SheddingSocket(socket.socket):
    """A listening TCP socket that sheds connections, quietly, at the file limit."""

    def __init__(self, *args: Any, clock: Callable[[], float] = time.monotonic, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clock = clock
        self._spare: int | None = _open_spare()
        self.shed = 0
        """Connections closed at the file limit since the last warning."""
        self._warned_at: float | None = None

    def accept(self) -> tuple[socket.socket, Any]:
        try:
            return super().accept()
        except OSError as e:
            if e.errno not in AT_LIMIT or self._spare is None:
                raise
        self._shed_one()
        # asyncio's accept loop stops quietly on this and waits for the socket to be readable.
        raise BlockingIOError(errno.EAGAIN, "a connection was shed at the file limit")

    def _shed_one(self) -> None:
        assert self._spare is not None
        os.close(self._spare)
        self._spare = None
        try:
            conn, _ = super().accept()
        except OSError:
            pass
        else:
            conn.close()
            self.shed += 1
        finally:
            self._spare = _open_spare()
        now = self._clock()
        if self.shed and (self._warned_at is None or now - self._warned_at >= WARN_EVERY):
            log.warning(
                "at the file limit: connections shed",
                extra={"shed": self.shed, "file_limit": resource.getrlimit(resource.RLIMIT_NOFILE)[0]},
            )
            self._warned_at = now
            self.shed = 0

    def close(self) -> None:
        if self._spare is not None:
            os.close(self._spare)
            self._spare = None
        super().close()


def _open_spare() -> int | None:
    try:
        return os.open(os.devnull, os.O_RDONLY)
    except OSError:
        return None


def listening_socket(host: str, port: int) -> SheddingSocket:
    """A bound :class:`SheddingSocket` for ``host:port`` (the first address ``host`` names);
    aiohttp's site calls ``listen``."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = SheddingSocket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError:
        sock.close()
        raise
    sock.setblocking(False)
    return sock


def raise_file_limit() -> int:
    """Lift the soft limit on open files to the hard limit; returns the limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return soft
