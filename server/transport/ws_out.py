"""A WebSocket connection's outgoing side: the messages queued for its client, written from a
callback on the loop, straight to the transport while the client reads (no task, no wake-up),
through aiohttp's writer in a task that waits for it when it does not; the read pause and the
1011 close for a client that has stopped reading."""

from __future__ import annotations

import asyncio
import struct
from typing import Any

from aiohttp import WSMsgType, web

from server.service.metrics import Metrics

from .gcwatch import YoungPace

CLOSE_SLOW_CONSUMER = 1011
OUTBOX_LIMIT = 512
"""Messages queued for a client past which it has stopped reading (close 1011)."""
READ_PAUSE_AT = 64
"""Answers queued for a client past which its own messages wait to be read until the queue has
drained: a burst the client reads is answered in full, and the client, not the queue, waits."""
SLOW_CONSUMER_SECONDS = 10.0
"""How long a paused reader waits for the client to read before the socket closes with 1011."""
WRITE_TOGETHER = 64
"""The most queued messages framed together into one write."""


def text_frame(payload: bytes) -> bytes:
    """One unfragmented, unmasked text frame (RFC 6455, 5.2), as a server sends it."""
    n = len(payload)
    if n < 126:
        return bytes((0x81, n)) + payload
    if n < 65536:
        return struct.pack("!BBH", 0x81, 126, n) + payload
    return struct.pack("!BBQ", 0x81, 127, n) + payload


class Outgoing:
    """The outgoing half of :class:`server.transport.ws.Connection`."""

    ws: web.WebSocketResponse
    transport: asyncio.Transport | None
    """The socket's transport (aiohttp's writer writes to the same one); None: none known
    (every message through aiohttp's writer)."""
    closing: bool
    _closer: asyncio.Task[Any] | None
    outbox: list[bytes]
    """Messages queued for the client, oldest first (each the UTF-8 payload of a text frame).
    A list, not a deque: it is empty nearly all the time, and an empty list is 56 bytes where a
    deque keeps a block of 64 slots (over 600 bytes) for as long as its socket is open."""
    _flush: asyncio.Handle | None
    """A write of the outbox scheduled on the loop (the messages one step queues together go
    in one write)."""
    _slow: asyncio.Task[None] | None
    """aiohttp's writer sending, message by message, waiting for the client to read."""
    _room: asyncio.Future[None] | None
    young: YoungPace
    """Counts the messages queued, for the young collections they call (the process's one)."""
    metrics: Metrics
    loop: asyncio.AbstractEventLoop
    """The loop the socket was opened on (set with its heartbeat), kept: on Python 3.11 each
    ``asyncio.get_running_loop()`` makes a system call (``getpid``), and a move queues a message
    on every socket of its match."""

    def _queue(self, text: bytes) -> None:
        if self.closing:
            return
        if len(self.outbox) >= OUTBOX_LIMIT:
            # The client stopped reading: drop it rather than buffer without bound.
            self.closing = True
            self.metrics.ws_dropped.labels("slow_consumer").inc()
            self._closer = self.loop.create_task(
                self.ws.close(code=CLOSE_SLOW_CONSUMER, message=b"client too slow")
            )
            return
        self.outbox.append(text)
        self.young.message()
        if self._flush is None and self._slow is None:
            self._flush = self.loop.call_soon(self._write)

    async def room(self) -> bool:
        """Wait, before reading the client's next message, until the answers already queued for
        it (``READ_PAUSE_AT`` or more: the reader checks, so most messages enter no coroutine)
        are being read; False when it has not read them for ``SLOW_CONSUMER_SECONDS``."""
        self._room = self.loop.create_future()
        try:
            await asyncio.wait_for(self._room, SLOW_CONSUMER_SECONDS)
        except TimeoutError:
            return False
        finally:
            self._room = None
        return True

    def _roomy(self) -> None:
        room = self._room
        if room is not None and not room.done() and len(self.outbox) < READ_PAUSE_AT // 2:
            room.set_result(None)

    def _write(self) -> None:
        """Write what is queued: at once, on the loop, when the client is reading (no task, no
        wake-up); else through aiohttp's writer in a task that waits for the client."""
        self._flush = None
        if self._slow is not None:
            return
        outbox = self.outbox
        if self.ws.closed:
            outbox.clear()
        while outbox and self._write_together():
            pass
        if outbox:
            self._slow = self.loop.create_task(self._write_slowly())
        self._roomy()

    async def _write_slowly(self) -> None:
        outbox = self.outbox
        try:
            while outbox:
                self._roomy()
                if self.ws.closed:
                    outbox.clear()
                    break
                if self._write_together():
                    continue
                try:
                    await self.ws.send_frame(outbox.pop(0), WSMsgType.TEXT)
                except (ConnectionError, RuntimeError):
                    self.closing = True
        finally:
            self._slow = None
            self._roomy()

    def _write_together(self) -> bool:
        """The queued messages (an ack and the state its action brought, say; at most
        ``WRITE_TOGETHER``) framed here and written at once: one system call, where aiohttp's
        writer makes one per message, and on loopback each costs about as much as building a
        state message. Only when the socket compresses nothing and its transport holds nothing
        unsent (the client is reading); else False, and aiohttp's writer sends them one by one,
        waiting for the client as it does. Every frame is written whole in one call, so frames
        never interleave with aiohttp's own (its pings, a close)."""
        transport = self.transport
        if self.ws.compress or transport is None or transport.is_closing():
            return False
        if transport.get_write_buffer_size():
            return False
        outbox = self.outbox
        if len(outbox) == 1:
            data = text_frame(outbox.pop())
        else:
            data = b"".join([text_frame(text) for text in outbox[:WRITE_TOGETHER]])
            del outbox[:WRITE_TOGETHER]
        try:
            transport.write(data)
        except (ConnectionError, RuntimeError):
            self.closing = True
        return True

    def stop_writing(self) -> None:
        """Drop the scheduled write and aiohttp's writer's task, if any."""
        if self._flush is not None:
            self._flush.cancel()
            self._flush = None
        if self._slow is not None:
            self._slow.cancel()

    async def flush_and_stop(self) -> None:
        """Write what is queued (waiting up to 5 s for a client that is not reading)."""
        if self._flush is not None:
            self._flush.cancel()
            self._write()
        slow = self._slow
        if slow is None:
            return
        try:
            await asyncio.wait_for(slow, timeout=5)
        except TimeoutError:
            slow.cancel()
