"""The process's WebSocket heartbeat (:mod:`server.transport.heartbeat`): quiet sockets are
pinged, silent ones dropped, a client's ping is answered. The sweep is driven with explicit
times; the sockets' tests only wait for what the server sends."""

from __future__ import annotations

import asyncio

import pytest
from aiohttp import WSMessage, WSMsgType

from server.config import Limits
from server.transport.heartbeat import PING_FRAME, Heartbeat, heard, pong_frame
from server.transport.keys import HEARTBEAT

from .helpers import Socket, new_match, new_player


class Transport:
    def __init__(self) -> None:
        self.written: list[bytes] = []
        self.aborted = False
        self.closing = False

    def write(self, data: bytes) -> None:
        self.written.append(data)

    def abort(self) -> None:
        self.aborted = True

    def is_closing(self) -> bool:
        return self.closing or self.aborted


class Sock:
    def __init__(self, heard: float) -> None:
        self.transport = Transport()
        self.heard = heard
        self.pinged: float | None = None


def test_a_quiet_socket_is_pinged_once_then_dropped_if_it_stays_silent():
    drops: list[None] = []
    beat = Heartbeat(every=20, dropped=lambda: drops.append(None))
    quiet, chatty = Sock(heard=0.0), Sock(heard=0.0)
    beat.sockets |= {quiet, chatty}
    beat.sweep(19.9)
    assert quiet.transport.written == [] and quiet.pinged is None  # not quiet long enough
    chatty.heard = 15.0
    beat.sweep(20.0)
    assert quiet.transport.written == [PING_FRAME] and quiet.pinged == 20.0
    assert chatty.transport.written == []
    beat.sweep(29.9)  # asked; half the period to answer
    assert quiet.transport.written == [PING_FRAME] and not quiet.transport.aborted
    assert chatty.transport.written == []  # quiet since 15 only: its turn comes at 35
    beat.sweep(30.0)
    assert quiet.transport.aborted and len(drops) == 1
    beat.sweep(35.0)  # (its socket's handler forgets it; meanwhile it is not dropped twice)
    assert len(drops) == 1


def test_a_socket_that_answers_is_kept_and_asked_again_only_after_another_quiet_period():
    beat = Heartbeat(every=20)
    s = Sock(heard=0.0)
    beat.sockets.add(s)
    beat.sweep(20.0)
    s.heard = 20.01  # the pong
    beat.sweep(35.0)
    assert s.transport.written == [PING_FRAME] and not s.transport.aborted
    beat.sweep(40.02)
    assert s.transport.written == [PING_FRAME, PING_FRAME] and s.pinged == 40.02
    closing = Sock(heard=0.0)
    closing.transport.closing = True
    beat.sockets.add(closing)
    beat.sweep(100.0)
    assert closing.transport.written == [] and not closing.transport.aborted


def test_heard_stamps_the_socket_answers_pings_and_keeps_pings_and_pongs_from_the_endpoint():
    s = Sock(heard=0.0)
    assert heard(s, WSMessage(WSMsgType.TEXT, '{"type": "ping"}', None), 5.0) is True
    assert s.heard == 5.0
    assert heard(s, WSMessage(WSMsgType.PING, b"abc", None), 6.0) is False
    assert s.transport.written == [b"\x8a\x03abc"] == [pong_frame(b"abc")]
    assert heard(s, WSMessage(WSMsgType.PONG, b"", None), 7.0) is False
    assert s.heard == 7.0 and len(s.transport.written) == 1


@pytest.mark.parametrize("path", ["/ws", "/ws/lobby"])
async def test_the_server_pings_a_quiet_socket_and_drops_one_that_never_answers(make_client, path):
    client = await make_client(limits=Limits(ws_heartbeat=0.4))
    ws = await client.ws_connect(path, autoping=False)  # answers nothing by itself
    async with asyncio.timeout(10):
        msg = await ws.receive()
        assert msg.type is WSMsgType.PING
        while (msg := await ws.receive()).type not in (WSMsgType.CLOSE, WSMsgType.CLOSED, WSMsgType.ERROR):
            pass
    assert ws.closed
    assert not client.server.app[HEARTBEAT].sockets  # forgotten when it closed
    await ws.close()
    # The operator sees why: /metrics counts the socket dropped by the heartbeat.
    metrics = await (await client.get("/metrics")).text()
    assert 'ginrummy_ws_dropped_total{reason="heartbeat"} 1.0' in metrics


async def test_a_socket_that_answers_pings_stays_open_and_its_own_ping_is_answered(make_client):
    client = await make_client(limits=Limits(ws_heartbeat=0.4))
    ada = await new_player(client)
    m = await new_match(client, ada)
    sock = Socket(await client.ws_connect("/ws", autoping=False))
    await sock.ws.send_json({"type": "hello", "match": m["match_id"], "token": ada["token"]})
    pings = 0
    async with asyncio.timeout(10):
        while pings < 3:  # three heartbeats answered: over one period past the patience
            msg = await sock.ws.receive()
            assert msg.type in (WSMsgType.TEXT, WSMsgType.PING), msg
            if msg.type is WSMsgType.PING:
                pings += 1
                await sock.ws.pong(msg.data)
        await sock.ws.ping(b"hi")
        while (msg := await sock.ws.receive()).type is not WSMsgType.PONG:
            assert msg.type in (WSMsgType.TEXT, WSMsgType.PING), msg
    assert msg.data == b"hi" and not sock.ws.closed
    await sock.send({"type": "ping"})  # still served
    async with asyncio.timeout(10):
        while (msg := await sock.ws.receive()).type is not WSMsgType.TEXT or msg.json()["type"] != "pong":
            assert msg.type in (WSMsgType.TEXT, WSMsgType.PING), msg
    await sock.ws.close()
