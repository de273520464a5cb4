"""The WebSocket endpoint ``/ws`` (protocol v1, docs/protocol.md).

One :class:`Connection` per socket: it checks the Origin, waits for ``hello``, binds to a seat
(or as a watcher), forwards ``act`` to the service and queues what the service delivers. Each
message is answered; an error never changes anything. Limits: 4 KiB per message (``too_large``
error), 64 KiB per frame (close 1009), a per-connection token bucket (``rate_limited``), and
too many errors in a row close the socket with 4008. Sockets are capped per client address
(``429 rate_limited`` before the upgrade) and per match (a ``rate_limited`` error and close 4008
"too many sockets on this match" at ``hello``).

It never builds a view itself: every ``state`` comes from the service, for this connection's
seat only.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol
from urllib.parse import urlsplit

from aiohttp import WSMsgType, web

from server.service import LiveMatch, MatchService, SeatUpdate, hash_token
from server.service.account_ports import session_id_of
from server.service.errors import (
    NotFound,
    RateLimited,
    ServiceError,
    StaleVersion,
    TooLarge,
    Unauthorized,
    Unavailable,
)
from server.storage import error_code, store_unreachable
from server.wire.convert import to_rules_action
from server.wire.messages import Ack as AckMessage
from server.wire.messages import Pong, ServerMessage

from .errors import ws_error
from .gcwatch import YoungPace, release_socket
from .heartbeat import Beats, Heartbeat, heard
from .keys import HEARTBEAT, METRICS, SERVICE, SETTINGS, SOCKETS
from .present import encode, state_message
from .ratelimit import TokenBucket
from .wire import Act, Hello, Ping, decode_client_message, message_id
from .ws_out import (
    CLOSE_SLOW_CONSUMER,
    READ_PAUSE_AT,
    Outgoing,
)

log = logging.getLogger("server.transport.ws")

CLOSE_FORBIDDEN_ORIGIN = 1008
CLOSE_TRY_AGAIN = 1013
"""A hello the server could not answer now (``unavailable``): reconnect after a pause."""
CLOSE_UNAUTHORIZED = 4001
CLOSE_UNKNOWN_MATCH = 4004
CLOSE_ABUSE = 4008
CLOSE_TOO_MANY_SOCKETS = CLOSE_ABUSE
"""A ``hello`` to a match with its cap of sockets: closed as abuse, reason ``too many sockets``."""
_PONG = Pong()


class SessionSocket(Protocol):
    """A socket that acts for a player's session: revoking the session closes it."""

    session_id: str | None
    token_hash: str | None

    async def revoke(self) -> None: ...


@dataclass(slots=True)
class SocketCounts:
    """This process's open sockets per client address, the connections bound to each match
    (a watcher's too), and the lobby's sockets (each seeking for a session, or about to)."""

    by_address: Counter[str] = field(default_factory=Counter)
    by_match: dict[str, set[Connection]] = field(default_factory=dict)
    lobby: set[SessionSocket] = field(default_factory=set)

    @staticmethod
    def drop(counter: Counter[str], key: str) -> None:
        counter[key] -= 1
        if counter[key] <= 0:
            del counter[key]


SOCKET_COUNTS = web.AppKey("socket_counts", SocketCounts)
YOUNG_PACE = web.AppKey("young_pace", YoungPace)


def origin_allowed(request: web.Request, allowed: tuple[str, ...]) -> bool:
    """Browsers send an Origin; it must be this server's own (same scheme and host: an
    ``https://`` page is not a plain-http server's own) or one explicitly allowed. Non-browser
    clients send none and are let through (they authenticate with tokens)."""
    origin = request.headers.get("Origin")
    if origin is None:
        return True
    origin = origin.rstrip("/")
    if "*" in allowed or origin in allowed:
        return True
    parts = urlsplit(origin)
    return parts.scheme == request.scheme and parts.netloc == request.host


class Connection(Outgoing, Beats):
    """A socket's side of the protocol; implements the service's ``Subscriber``."""

    def __init__(self, ws: web.WebSocketResponse, service: MatchService, request: web.Request) -> None:
        self.ws = ws
        self.service = service
        self.settings = request.app[SETTINGS]
        self.metrics = request.app[METRICS]
        counts = request.app.get(SOCKET_COUNTS)
        self.counts = counts if counts is not None else SocketCounts()  # an app without ws.setup
        self.young = request.app.get(YOUNG_PACE) or YoungPace(0)
        self.seat: int | None = None
        self.live: LiveMatch | None = None
        self.errors_in_a_row = 0
        self.bucket = TokenBucket(self.settings.limits.ws_rate)
        self.outbox = []
        self._flush = None
        self._slow = None
        self._room = None
        self.closing = False
        self._closer: asyncio.Task[Any] | None = None
        self.session_id: str | None = None
        """The session of the player token its hello gave (None for a watch token)."""
        self.token_hash: str | None = None
        self.start_beating(request)  # aiohttp's writer writes to the same transport

    # --- outgoing -----------------------------------------------------------------------------

    def deliver(self, update: SeatUpdate) -> None:
        self._queue(state_message(update))

    def send(self, message: ServerMessage) -> None:
        self._queue(encode(message))

    def error(self, error: ServiceError, msg_id: str | None = None) -> None:
        self.errors_in_a_row += 1
        self.metrics.labelled(self.metrics.ws_errors, error.code).inc()
        self.send(ws_error(error, msg_id))

    async def close(self, code: int, reason: str) -> None:
        self.closing = True
        await self.flush_and_stop()
        await self.ws.close(code=code, message=reason.encode())

    # --- incoming -----------------------------------------------------------------------------

    async def handle(self, data: str) -> bool:
        """Answer one client message; False when the socket must close."""
        limits = self.settings.limits
        # Its size in UTF-8 bytes: the string's length when it is ASCII (known without a scan).
        if (len(data) if data.isascii() else len(data.encode())) > limits.ws_max_message:
            self.error(TooLarge(f"messages are limited to {limits.ws_max_message} bytes"))
            return self._tolerable()
        try:
            self.bucket.take()
        except RateLimited as e:
            self.error(e, message_id(data))
            return self._tolerable()
        try:
            message = decode_client_message(data)
        except ServiceError as e:
            self.metrics.ws_messages.labels("invalid").inc()
            self.error(e, message_id(data))
            return self._tolerable()
        try:
            match message:
                case Hello():
                    self.metrics.ws_messages.labels("hello").inc()
                    return await self._hello(message)
                case Act():
                    self.metrics.ws_messages.labels("act").inc()
                    await self._act(message)
                    return self._tolerable()
                case Ping():
                    self.metrics.ws_messages.labels("ping").inc()
                    self.send(_PONG)
                    self.errors_in_a_row = 0
                    return True
        except Exception as e:
            # A database failure, say. An act may be retried with the same id: if it did land,
            # the repeat is answered with its ack.
            match_id = self.live.match_id if self.live is not None else None
            if store_unreachable(e):  # the database is down or dropped this connection: no bug
                log.warning(
                    "message failed: the database is unreachable (%s)",
                    type(e).__name__,
                    extra={"match_id": match_id, "code": error_code(e)},
                )
            else:
                log.exception("message failed", extra={"match_id": match_id})
            msg_id = message.id if isinstance(message, Act) else None
            unavailable = Unavailable("the server could not handle this message now; try again")
            if isinstance(message, Hello):
                return await self._hello_failed(unavailable)
            self.error(unavailable, msg_id)
            return self._tolerable()
        return True  # pragma: no cover (the decoder admits nothing else)

    async def _hello_failed(self, e: Unavailable) -> bool:
        """A hello the server could not answer now (its database busy, say, with every player
        coming back at once after a restart). A socket bound to no match yet is closed with
        1013 (try again later), so the client reconnects with its backoff; left open, it would
        wait for a state that never comes until the hello deadline closed it as unauthorized."""
        self.error(e)
        if self.live is not None:
            return self._tolerable()  # still bound to the match it said hello to before
        await self.close(CLOSE_TRY_AGAIN, "try again later")
        return False

    def _tolerable(self) -> bool:
        return self.errors_in_a_row < self.settings.limits.ws_max_errors

    async def _hello(self, hello: Hello) -> bool:
        try:
            live, seat = await self.service.open(hello.match, hello.token, hello.pace or None)
        except NotFound as e:
            self.error(e)
            await self.close(CLOSE_UNKNOWN_MATCH, "unknown match")
            return False
        except Unauthorized as e:
            self.error(e)
            await self.close(CLOSE_UNAUTHORIZED, "unauthorized")
            return False
        except Unavailable as e:
            return await self._hello_failed(e)
        except ServiceError as e:
            self.error(e)
            return self._tolerable()
        # The cap counts this seat's sockets (or the watchers'): nobody else's sockets, the
        # other seat's or a crowd on a shared watch link, can keep a player out of their match.
        cap = self.settings.limits.ws_max_per_match
        rebinding = self.live is not None and self.live.match_id == live.match_id
        bound = self.counts.by_match.get(live.match_id, ())
        if not rebinding and sum(1 for c in bound if c.seat == seat) >= cap:
            whose = "the watchers" if seat is None else "this seat"
            self.error(
                RateLimited(
                    f"this match already has {cap} sockets open for {whose}; close one first",
                    limit="match_sockets",
                    reset_in=5.0,
                )
            )
            await self.close(CLOSE_TOO_MANY_SOCKETS, "too many sockets on this match")
            return False
        await self.unbind()
        self.counts.by_match.setdefault(live.match_id, set()).add(self)
        self.live, self.seat = live, seat
        self.token_hash = None if seat is None else hash_token(hello.token)
        self.session_id = None if self.token_hash is None else session_id_of(self.token_hash)
        self.errors_in_a_row = 0
        await self.service.subscribe(live, self)
        log.debug("hello", extra={"match_id": live.match_id, "seat": seat})
        return True

    async def _act(self, act: Act) -> None:
        if self.live is None:
            self.error(Unauthorized("send hello first"), act.id)
            return
        if self.seat is None:
            self.error(Unauthorized("watchers cannot act"), act.id)
            return
        live, msg_id = self.live, act.id
        # A partial of a bound method, not a closure (a function and three cells): two objects fewer
        # for each action in flight, which the collector walks while it waits for its commit.
        ack = partial(self._acked, msg_id, time.perf_counter())
        try:
            # In this handler's own task: aiohttp cancels no handler when its client goes.
            version, repeated = await self.service.act(
                live, self.seat, msg_id, act.version, to_rules_action(act.action), ack, shield=False
            )
        except StaleVersion as e:
            self.error(e, msg_id)
            # Help the client resync at once: its view is out of date.
            self.deliver(await self.service.current_state(live, self.seat))
            return
        except ServiceError as e:
            self.error(e, msg_id)
            return
        if repeated:
            ack(version)
        self.errors_in_a_row = 0

    def _acked(self, msg_id: str, received: float, version: int) -> None:
        """An action committed (``received``: when its message came, ``perf_counter``)."""
        self.send(AckMessage(msg_id, version))
        self.metrics.action_seconds.observe(time.perf_counter() - received)

    async def revoke(self) -> None:
        """Its session was revoked: leave the match and close (4001 ``session revoked``)."""
        await self.unbind()
        await self.close(CLOSE_UNAUTHORIZED, "session revoked")

    async def unbind(self) -> None:
        live, self.live = self.live, None
        if live is not None:
            bound = self.counts.by_match.get(live.match_id)
            if bound is not None:
                bound.discard(self)
                if not bound:
                    del self.counts.by_match[live.match_id]
            await self.service.unsubscribe(live, self)


def address_with_room(request: web.Request) -> str:
    """The client's address, if it may open another socket; refused before the upgrade (a 429
    answer, no socket) when it has its cap open already."""
    limits = request.app[SETTINGS].limits
    address = request.remote or "unknown"
    if request.app[SOCKET_COUNTS].by_address[address] >= limits.ws_max_per_address:
        raise RateLimited(
            f"{limits.ws_max_per_address} sockets are open from your address already; close one first",
            limit="address_sockets",
            reset_in=5.0,
        )
    return address


async def websocket(request: web.Request) -> web.WebSocketResponse:
    settings = request.app[SETTINGS]
    limits = settings.limits
    # The heartbeat is the process's own (one sweep for every socket): aiohttp's keeps two
    # timers per socket.
    ws = web.WebSocketResponse(
        autoping=False, max_msg_size=limits.ws_max_frame, compress=settings.ws_compress
    )
    allowed = origin_allowed(request, settings.allowed_origins)
    counts = request.app[SOCKET_COUNTS]
    address = address_with_room(request)
    counts.by_address[address] += 1
    try:
        return await _serve(request, ws, allowed)
    finally:
        SocketCounts.drop(counts.by_address, address)
        release_socket(request)


async def _serve(request: web.Request, ws: web.WebSocketResponse, allowed: bool) -> web.WebSocketResponse:
    limits = request.app[SETTINGS].limits
    await ws.prepare(request)
    # The upgrade's headers (the security headers among them) are sent: nothing reads them again,
    # and each socket would keep them (about 0.8 KB) for as long as it is open.
    ws.headers.clear()
    if not allowed:
        await ws.close(code=CLOSE_FORBIDDEN_ORIGIN, message=b"forbidden origin")
        return ws
    sockets = request.app[SOCKETS]
    metrics = request.app[METRICS]
    heartbeat = request.app[HEARTBEAT]
    conn = Connection(ws, request.app[SERVICE], request)
    sockets.add(ws)
    heartbeat.sockets.add(conn)
    metrics.ws_connections.inc()
    loop = asyncio.get_running_loop()
    # One deadline from when the socket opened: pings, pongs and garbage do not extend it.
    hello_deadline = loop.time() + limits.ws_hello_timeout
    try:
        while not ws.closed:
            timeout = None if conn.live is not None else max(0.0, hello_deadline - loop.time())
            try:
                if timeout == 0.0:
                    raise TimeoutError
                msg = await ws.receive(timeout=timeout)
            except TimeoutError:
                conn.error(Unauthorized("no hello received in time"))
                await conn.close(CLOSE_UNAUTHORIZED, "no hello")
                break
            if not heard(conn, msg, loop.time()):
                continue
            if msg.type == WSMsgType.TEXT:
                data = msg.data
            elif msg.type == WSMsgType.BINARY:
                try:
                    data = msg.data.decode()
                except UnicodeDecodeError:
                    data = "\x00"  # not JSON: answered with bad_request
            else:  # CLOSE, CLOSING, CLOSED, ERROR (1009 for frames over the limit)
                break
            if not await conn.handle(data):
                if not ws.closed:
                    await conn.close(CLOSE_ABUSE, "too many errors")
                break
            if len(conn.outbox) >= READ_PAUSE_AT and not await conn.room():
                conn.stop_writing()
                metrics.ws_dropped.labels("slow_consumer").inc()
                await ws.close(code=CLOSE_SLOW_CONSUMER, message=b"client too slow")
                break
    finally:
        conn.closing = True
        sockets.discard(ws)
        heartbeat.sockets.discard(conn)
        metrics.ws_connections.dec()
        try:
            with contextlib.suppress(Exception):
                await conn.unbind()
            await conn.flush_and_stop()
        finally:
            conn.stop_writing()
            with contextlib.suppress(Exception):
                if not ws.closed:
                    await ws.close()
    return ws


async def close_match_sockets(app: web.Application, match_id: str) -> None:
    """Close this process's sockets bound to ``match_id`` (it was cancelled): code 4004,
    reason ``match cancelled``."""
    for conn in list(app[SOCKET_COUNTS].by_match.get(match_id, ())):
        with contextlib.suppress(Exception):
            await conn.unbind()
            await conn.close(CLOSE_UNKNOWN_MATCH, "match cancelled")


async def close_session_sockets(app: web.Application, session_ids: list[str]) -> None:
    """Close this process's sockets of these sessions (they were revoked): code 4001, reason
    ``session revoked``."""
    gone = set(session_ids)
    for conn in session_sockets(app):
        if conn.session_id in gone:
            with contextlib.suppress(Exception):
                await conn.revoke()


def session_sockets(app: web.Application) -> list[SessionSocket]:
    """This process's sockets acting for a session: bound to a match with a player token, or
    seeking in the lobby (whose seek a revoked session must not keep: its pairing would start a
    match in the player's name)."""
    counts = app[SOCKET_COUNTS]
    bound: list[SessionSocket] = [c for conns in counts.by_match.values() for c in conns]
    return [c for c in [*bound, *counts.lobby] if c.token_hash is not None]


def setup(app: web.Application) -> None:
    app[SOCKET_COUNTS] = SocketCounts()
    app[YOUNG_PACE] = YoungPace(app[SETTINGS].gc_young_messages)
    app.on_startup.append(_start_young_pace)
    app.on_cleanup.append(_stop_young_pace)
    app[HEARTBEAT] = Heartbeat(
        app[SETTINGS].limits.ws_heartbeat, dropped=lambda: app[METRICS].ws_dropped.labels("heartbeat").inc()
    )
    app.on_startup.append(_start_heartbeat)
    app.on_cleanup.append(_stop_heartbeat)
    app.router.add_get("/ws", websocket)


async def _start_young_pace(app: web.Application) -> None:
    app[YOUNG_PACE].install()


async def _stop_young_pace(app: web.Application) -> None:
    app[YOUNG_PACE].remove()


async def _start_heartbeat(app: web.Application) -> None:
    app[HEARTBEAT].start(asyncio.get_running_loop())


async def _stop_heartbeat(app: web.Application) -> None:
    app[HEARTBEAT].stop()
