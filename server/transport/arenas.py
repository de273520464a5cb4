"""How many malloc arenas the process may use (glibc only).

glibc gives each new thread that allocates an arena of its own, up to eight per core, and keeps
each arena's freed memory for reuse by that arena. The server's threads (the SQLite writer, a
thread per aiosqlite connection, asyncio's executor) each hold one, so freed memory sat in
arenas the event loop's thread never allocates from. Capped at 2 (the loop's own and one the
others share), the process keeps a few megabytes less, a fixed saving rather than one per match
(the scale benchmark: 40.7 against 42.9 KB per live match at 3,000, 41.6 against 41.7 at
10,000; one arena, 39.5 KB at 3,000, had the writer thread and the loop contending for its
lock); see the README's Scale section. ``MALLOC_ARENA_MAX`` in the environment, glibc's own knob, wins.
"""

from __future__ import annotations

import ctypes
import logging
import os
import platform

log = logging.getLogger("server.transport.arenas")

M_ARENA_MAX = -8
"""``mallopt``'s parameter number for the arena cap (glibc's ``malloc.h``)."""


def limit_arenas(most: int) -> bool:
    """Cap the process's malloc arenas at ``most`` (0: leave glibc's default) before any thread
    starts. True when the cap was set; False off glibc, when ``most`` is 0, or when the
    environment already says (``MALLOC_ARENA_MAX``)."""
    if most <= 0 or "MALLOC_ARENA_MAX" in os.environ or platform.libc_ver()[0] != "glibc":
        return False
    mallopt = getattr(ctypes.CDLL(None), "mallopt", None)
    if mallopt is None:
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    if mallopt(M_ARENA_MAX, most) != 1:  # mallopt answers 1 on success
        log.warning("could not cap the malloc arenas", extra={"arenas": most})
        return False
    return True
