"""The lobby socket ``/ws/lobby``: quick pairing (docs/protocol.md, "Quick pairing").

A client sends ``seek`` (with its player token); the socket holds that one seek until it is
paired (``paired``, sent to both seekers at once, whichever process each is on), cancelled
(``cancel``) or the socket closes, which withdraws it. Errors are answered as on ``/ws`` and
change nothing; the Origin check, the per-address socket cap and the message rate limit are
``/ws``'s. No game logic here: the service pairs, the store decides.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import msgspec
from aiohttp import WSMsgType, web

from server.service import MatchService, hash_token
from server.service.account_ports import session_id_of
from server.service.errors import BadRequest, ServiceError, TooLarge, Unavailable
from server.service.seeks import LocalSeek, Pairing
from server.service.timecontrol import TimeControl, TimeControlError
from server.wire import messages as w

from .errors import ws_error
from .gcwatch import release_socket
from .heartbeat import Beats, heard
from .keys import HEARTBEAT, SERVICE, SETTINGS, SOCKETS
from .present import encode, iso
from .ratelimit import TokenBucket
from .ws import (
    CLOSE_ABUSE,
    CLOSE_FORBIDDEN_ORIGIN,
    CLOSE_UNAUTHORIZED,
    SOCKET_COUNTS,
    SocketCounts,
    address_with_room,
    origin_allowed,
)

log = logging.getLogger("server.transport.lobby")

_decoder = msgspec.json.Decoder(w.LobbyClientMessage)
_PONG = encode(w.Pong())


def _decode(text: str) -> w.Seek | w.CancelSeek | w.Ping:
    try:
        return _decoder.decode(text)
    except msgspec.ValidationError as e:
        raise BadRequest(f"invalid message: {e}") from e
    except (msgspec.DecodeError, RecursionError) as e:
        raise BadRequest(f"not a JSON message: {e}") from e


def paired_message(p: Pairing) -> bytes:
    return encode(w.Paired(p.seek_id, p.match_id, p.seat, p.opponent))  # type: ignore[arg-type]


class LobbyConnection(Beats):
    def __init__(self, ws: web.WebSocketResponse, service: MatchService, request: web.Request) -> None:
        self.ws = ws
        self.service = service
        self.request = request
        self.settings = request.app[SETTINGS]
        self.bucket = TokenBucket(self.settings.limits.ws_rate)
        self.seek: LocalSeek | None = None
        self.waiter: asyncio.Task[None] | None = None
        self.errors_in_a_row = 0
        self.token_hash: str | None = None
        """The player token's of its last seek: revoking that session withdraws the seek."""
        self.session_id: str | None = None
        self.start_beating(request)

    async def send(self, text: bytes) -> None:
        if not self.ws.closed:
            with contextlib.suppress(ConnectionError, RuntimeError):
                await self.ws.send_frame(text, WSMsgType.TEXT)

    async def error(self, e: ServiceError) -> bool:
        self.errors_in_a_row += 1
        await self.send(encode(ws_error(e, None)))
        return self.errors_in_a_row < self.settings.limits.ws_max_errors

    async def handle(self, data: str) -> bool:
        if len(data.encode()) > self.settings.limits.ws_max_message:
            return await self.error(
                TooLarge(f"messages are limited to {self.settings.limits.ws_max_message} bytes")
            )
        try:
            self.bucket.take()
            message = _decode(data)
            match message:
                case w.Seek():
                    await self._seek(message)
                case w.CancelSeek():
                    await self._cancel()
                case w.Ping():
                    await self.send(_PONG)
        except ServiceError as e:
            return await self.error(e)
        except Exception:
            log.exception("lobby message failed")
            return await self.error(Unavailable("the server could not handle this message now; try again"))
        self.errors_in_a_row = 0
        return True

    async def _seek(self, m: w.Seek) -> None:
        if self.seek is not None and not self.seek.paired.done():
            raise BadRequest("this socket is seeking already: cancel first")
        player = await self.service.authenticate(m.token)
        self.token_hash = hash_token(m.token)
        self.session_id = session_id_of(self.token_hash)
        try:
            tc = (
                TimeControl(**msgspec.structs.asdict(m.time_control))
                if m.time_control
                else TimeControl.none()
            )
        except TimeControlError as e:
            raise BadRequest(str(e)) from e
        from .rest import _caps

        seek = await self.service.seeks.seek(
            player,
            rules=m.rules,
            time_control=tc,
            rated=m.rated,
            computer_after=m.computer_after,
            difficulty=m.difficulty,
            caps=_caps(self.request),
        )
        self.seek = seek
        if seek.paired.done():
            await self.send(paired_message(seek.paired.result()))
            return
        r = seek.record
        shown = TimeControl.from_dict(r.time_control)
        await self.send(
            encode(
                w.Seeking(
                    r.seek_id,
                    r.rules,
                    w.TimeControl(shown.kind, shown.move_seconds, shown.bank_seconds),
                    r.rated,
                    iso(r.created_at),
                    None if seek.computer_at is None else iso(seek.computer_at),
                )
            )
        )
        self.waiter = asyncio.ensure_future(self._await(seek))

    async def _await(self, seek: LocalSeek) -> None:
        try:
            pairing = await seek.paired
        except asyncio.CancelledError:
            return
        except ServiceError as e:
            await self.error(e)
            return
        await self.send(paired_message(pairing))

    async def _cancel(self) -> None:
        seek = self.seek
        if seek is None or seek.paired.done():
            raise BadRequest("this socket has no open seek")
        pairing = await self.service.seeks.cancel(seek.player, seek.record.seek_id)
        if pairing is None:
            await self.send(encode(w.SeekCancelled(seek.record.seek_id)))
        # else the waiter sends paired

    async def revoke(self) -> None:
        """Its session was revoked: withdraw the seek and close (4001 ``session revoked``)."""
        await self.closed()
        await self.ws.close(code=CLOSE_UNAUTHORIZED, message=b"session revoked")

    async def closed(self) -> None:
        seek, self.seek = self.seek, None
        if seek is not None and not seek.paired.done():
            # Shielded: the handler may be cancelled as the socket goes, the withdrawal must not.
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.shield(self.service.seeks.drop(seek.record.seek_id))
        if self.waiter is not None:
            self.waiter.cancel()


async def lobby_websocket(request: web.Request) -> web.WebSocketResponse:
    settings = request.app[SETTINGS]
    limits = settings.limits
    counts = request.app[SOCKET_COUNTS]
    address = address_with_room(request)
    ws = web.WebSocketResponse(autoping=False, max_msg_size=limits.ws_max_frame)  # our heartbeat
    allowed = origin_allowed(request, settings.allowed_origins)
    counts.by_address[address] += 1
    try:
        await ws.prepare(request)
        if not allowed:
            await ws.close(code=CLOSE_FORBIDDEN_ORIGIN, message=b"forbidden origin")
            return ws
        sockets, heartbeat = request.app[SOCKETS], request.app[HEARTBEAT]
        sockets.add(ws)
        conn = LobbyConnection(ws, request.app[SERVICE], request)
        heartbeat.sockets.add(conn)
        counts.lobby.add(conn)
        loop = asyncio.get_running_loop()
        try:
            while not ws.closed:
                msg = await ws.receive()
                if not heard(conn, msg, loop.time()):
                    continue
                if msg.type == WSMsgType.TEXT:
                    data = msg.data
                elif msg.type == WSMsgType.BINARY:
                    data = msg.data.decode(errors="replace")
                else:
                    break
                if not await conn.handle(data):
                    await ws.close(code=CLOSE_ABUSE, message=b"too many errors")
                    break
        finally:
            sockets.discard(ws)
            heartbeat.sockets.discard(conn)
            counts.lobby.discard(conn)
            await conn.closed()
        return ws
    finally:
        SocketCounts.drop(counts.by_address, address)
        release_socket(request)


def setup(app: web.Application) -> None:
    app.router.add_get("/ws/lobby", lobby_websocket)
