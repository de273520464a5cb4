"""WebSocket heartbeats: one sweep over every socket of the process, not two timers per socket.

A socket that has sent nothing for ``every`` seconds (``ws_heartbeat``, 20 by default) is sent a
ping; one that then sends nothing, not even the pong, for ``every / 2`` seconds more is dropped,
its connection aborted (the client sees 1006), as aiohttp's own heartbeat did. aiohttp kept a
ping timer and a pong timer per socket and, for every message received, scheduled a callback to
move the first: about 1.9 KB per socket (tracemalloc, scale benchmark) and a callback per
message. Here a socket carries two numbers, the loop stamps one on each message, and a sweep
every ``every / 4`` seconds looks at them all (a few milliseconds at 10,000 sockets).

A ping is written straight to the socket's transport as one whole frame (control frames are
never compressed), so it cannot split another frame, whichever writer sent that one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Protocol

from aiohttp import WSMessage, WSMsgType, web

PING_FRAME = b"\x89\x00"
"""An unmasked ping frame with no payload (RFC 6455, 5.5.2), as a server sends it."""


def pong_frame(payload: bytes) -> bytes:
    """The unmasked pong frame answering a client's ping (a control frame's payload is at most
    125 bytes: aiohttp's reader refuses a longer one)."""
    return bytes((0x8A, len(payload))) + payload


class Beating(Protocol):
    transport: asyncio.Transport | None
    heard: float
    """When its client last sent anything (a message, a ping or a pong), on the loop's clock."""
    pinged: float | None
    """When the heartbeat last pinged it (None: never)."""


def heard(s: Beating, msg: WSMessage, now: float) -> bool:
    """Note that ``s``'s client spoke (at ``now``) and answer its ping; True when ``msg`` is for
    the endpoint, False for a ping or a pong (the heartbeat's own business). Sockets served with
    this are made with ``autoping=False``, so both reach here."""
    s.heard = now
    if msg.type is WSMsgType.PING:
        transport = s.transport
        if transport is not None and not transport.is_closing():
            transport.write(pong_frame(msg.data))
        return False
    return msg.type is not WSMsgType.PONG


class Beats:
    """A connection's part in the heartbeat (:class:`Beating`), set up from its request."""

    transport: asyncio.Transport | None
    loop: asyncio.AbstractEventLoop
    heard: float
    pinged: float | None

    def start_beating(self, request: web.Request) -> None:
        """Its socket's transport (None: none known), its client heard now and never pinged."""
        self.transport = getattr(request, "transport", None)
        self.loop = asyncio.get_running_loop()  # kept: each call costs a system call (getpid)
        self.heard = self.loop.time()
        self.pinged = None


class Heartbeat:
    """The process's sockets and the sweep that pings the quiet ones and drops the silent."""

    def __init__(self, every: float, dropped: Callable[[], None] = lambda: None) -> None:
        self.every = every
        self.dropped = dropped
        """Called for each socket dropped (a metric's count)."""
        self.sockets: set[Beating] = set()
        self._next: asyncio.TimerHandle | None = None

    def sweep(self, now: float) -> None:
        every, patience = self.every, self.every / 2
        for s in list(self.sockets):
            if now - s.heard < every:
                continue
            transport = s.transport
            if transport is None or transport.is_closing():
                continue
            if s.pinged is None or s.pinged < s.heard:
                s.pinged = now  # quiet since it last spoke: ask
                transport.write(PING_FRAME)
            elif now - s.pinged >= patience:
                transport.abort()  # asked, and no answer: gone (its reader sees the socket closed)
                self.dropped()

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        def tick() -> None:
            self.sweep(loop.time())
            self._next = loop.call_later(self.every / 4, tick)

        self._next = loop.call_later(self.every / 4, tick)

    def stop(self) -> None:
        if self._next is not None:
            self._next.cancel()
            self._next = None
