"""Hardening the WebSocket edge (and the REST bodies and paths that share its wire structs):
text the databases cannot store, deeply nested JSON, a reused action id, and the hello
deadline."""

from __future__ import annotations

import asyncio
import contextlib
import logging

import pytest
from aiohttp import WSMsgType

from server.config import Limits
from server.transport.keys import SERVICE
from server.transport.ratelimit import TokenBucket

from .helpers import Socket, auth, new_match, new_player
from .test_ws import expect_error, human_match, to_act

# Text no database column may hold: a NUL (Postgres refuses it) and lone surrogates (not UTF-8).
# Written as JSON escapes, the only way a client can send them in valid UTF-8 text.
BAD_TEXT = ["a\\u0000b", "\\u0000", "a\\ud800", "\\udc00b", "\\ud800\\u0000"]


def _hello_json(match: str, token: str) -> str:
    return f'{{"type": "hello", "match": "{match}", "token": "{token}"}}'


def _store_refuses_nul(client) -> list[str]:
    """Make the service's store behave like Postgres on a NUL: every match id it is asked for is
    remembered, and one with a NUL raises (as asyncpg does)."""
    store = client.server.app[SERVICE].store
    asked: list[str] = []
    for name in ("load_meta", "load_match"):
        real = getattr(store, name)

        async def wrapped(match_id, *args, _real=real, **kwargs):
            asked.append(match_id)
            if "\x00" in match_id:
                raise ValueError("invalid byte sequence for encoding UTF8: 0x00")
            return await _real(match_id, *args, **kwargs)

        setattr(store, name, wrapped)
    return asked


@pytest.mark.parametrize("bad", BAD_TEXT)
async def test_hello_with_unstorable_text_is_bad_request_and_the_socket_stays_open(make_client, bad):
    client = await make_client()
    asked = _store_refuses_nul(client)
    ada = await new_player(client)
    m = await new_match(client, ada)
    sock = await Socket.connect(client)
    await sock.ws.send_str(_hello_json(m["match_id"] + bad, ada["token"]))
    await expect_error(sock, "bad_request")
    await sock.ws.send_str(_hello_json(m["match_id"], ada["token"] + bad))
    await expect_error(sock, "bad_request")
    assert asked == []  # never reached the store
    await sock.send({"type": "ping"})
    assert (await sock.recv()) == {"type": "pong"}
    state = await sock.hello(m["match_id"], ada["token"])  # the socket still binds
    assert state["type"] == "state"


@pytest.mark.parametrize("bad", BAD_TEXT)
async def test_an_act_id_with_unstorable_text_is_bad_request_and_changes_nothing(make_client, bad):
    client = await make_client()
    _m, _ada, _bob, a, b = await human_match(client)
    mover, _other = to_act(a, a, b)
    version = mover.state["version"]
    await mover.ws.send_str(
        '{"type": "act", "id": "c' + bad + '", "version": ' + str(version) + ', "action": {"kind": "pass"}}'
    )
    await expect_error(mover, "bad_request")
    await mover.send({"type": "ping"})
    assert (await mover.recv()) == {"type": "pong"}  # no ack, no new state came before it
    await mover.act({"kind": "pass"})
    ack = await mover.recv()
    assert ack["type"] == "ack" and ack["version"] == version + 1


@pytest.mark.parametrize("bad", BAD_TEXT)
async def test_rest_bodies_with_unstorable_text_are_bad_request(make_client, bad):
    client = await make_client()
    r = await client.post(
        "/api/players",
        data=(f'{{"name": "Ada{bad}"}}').encode(),
        headers={"Content-Type": "application/json"},
    )
    assert r.status == 400, await r.text()
    assert (await r.json())["error"]["code"] == "bad_request"
    ada, bob = await new_player(client, "Ada"), await new_player(client, "Bob")
    m = await new_match(client, ada, opponent="human")
    r = await client.post(
        f"/api/matches/{m['match_id']}/join",
        data=('{{"invite": "{}{}"}}'.format(m["invite"]["code"], bad)).encode(),
        headers={**auth(bob), "Content-Type": "application/json"},
    )
    assert r.status == 400, await r.text()
    assert (await r.json())["error"]["code"] == "bad_request"
    r = await client.get(f"/api/matches/{m['match_id']}", headers=auth(ada))
    assert (await r.json())["status"] == "waiting"  # nobody joined


@pytest.mark.parametrize("suffix", ["%00", "m_x%00y", "%ED%A0%80", "m%ED%B0%80x"])
@pytest.mark.parametrize("tail", ["", "/record", "/join", "/resign"])
async def test_a_match_id_path_with_unstorable_text_is_404_and_never_reaches_the_store(
    make_client, suffix, tail
):
    client = await make_client()
    asked = _store_refuses_nul(client)
    ada = await new_player(client)
    method = client.get if tail in ("", "/record") else client.post
    kwargs = {"json": {"invite": "x"}} if tail == "/join" else {}
    r = await method(f"/api/matches/{suffix}{tail}", headers=auth(ada), **kwargs)
    assert r.status == 404, await r.text()
    assert (await r.json())["error"]["code"] == "not_found"
    assert asked == []


# --- deeply nested JSON ----------------------------------------------------------------------

NESTED = [
    "[" * 2000,
    "[" * 2000 + "]" * 2000,
    '{"type": "ping", "x": ' + "[" * 2000,
    '{"id": "c1", "x": ' + '{"a":' * 500,
]


@pytest.mark.parametrize("nested", NESTED)
@pytest.mark.parametrize("after_hello", [False, True])
async def test_deeply_nested_json_is_bad_request_and_the_socket_stays_usable(
    make_client, caplog, nested, after_hello
):
    assert len(nested.encode()) <= 4096
    client = await make_client()
    sock = await Socket.connect(client)
    if after_hello:
        ada = await new_player(client)
        m = await new_match(client, ada)
        await sock.hello(m["match_id"], ada["token"])
    with caplog.at_level(logging.DEBUG):
        for _ in range(3):
            await sock.ws.send_str(nested)
            msg = await sock.recv_until("error")
            assert msg["code"] == "bad_request" and msg["id"] is None, msg
        await sock.send({"type": "ping"})
        assert (await sock.recv_until("pong")) == {"type": "pong"}
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


@pytest.mark.parametrize("nested", NESTED)
async def test_a_deeply_nested_rest_body_is_bad_request(make_client, caplog, nested):
    client = await make_client()
    with caplog.at_level(logging.DEBUG):
        r = await client.post(
            "/api/players", data=nested.encode(), headers={"Content-Type": "application/json"}
        )
        assert r.status == 400, await r.text()
        assert (await r.json())["error"]["code"] == "bad_request"
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


# --- the hello deadline ----------------------------------------------------------------------


async def test_the_hello_deadline_holds_while_the_client_keeps_sending(make_client):
    client = await make_client(limits=Limits(ws_hello_timeout=0.5))
    sock = Socket(await client.ws_connect("/ws", autoping=True))
    loop = asyncio.get_running_loop()
    opened = loop.time()

    async def chatter() -> None:
        while not sock.ws.closed:
            await sock.ws.send_str('{"type": "ping"}')
            await sock.ws.send_str("not json")
            await sock.ws.ping()
            await asyncio.sleep(0.05)

    task = asyncio.create_task(chatter())
    try:
        code = None
        async with asyncio.timeout(3):  # without a deadline, the chatter keeps it open for ever
            while True:
                msg = await sock.ws.receive()
                if msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSED, WSMsgType.CLOSING):
                    code = sock.ws.close_code
                    break
        elapsed = loop.time() - opened
    finally:
        task.cancel()
        with contextlib.suppress(BaseException):
            await task
    assert code == 4001
    assert elapsed < 2.0


# --- a reused action id ------------------------------------------------------------------------


async def test_a_repeated_id_with_a_different_action_is_id_reused_not_the_old_ack(make_client):
    client = await make_client()
    _m, _ada, _bob, a, b = await human_match(client)
    mover, other = to_act(a, a, b)
    version = mover.state["version"]
    await mover.act({"kind": "pass"}, id="same")
    assert (await mover.recv()) == {"type": "ack", "id": "same", "version": version + 1}
    await mover.recv_until("state")
    await other.recv_until("state")
    await other.act({"kind": "pass"}, version=version + 1)
    await other.recv_until("ack")
    await mover.recv_until("state")
    assert mover.state["view"]["hand"]["to_act"] == mover.state["view"]["seat"]
    await mover.act({"kind": "draw", "source": "stock"}, id="same")
    await expect_error(mover, "id_reused", "same")
    await mover.act({"kind": "pass"}, version=version, id="same")  # a real retry: the old ack
    assert (await mover.recv()) == {"type": "ack", "id": "same", "version": version + 1}
    await mover.send({"type": "ping"})
    assert (await mover.recv()) == {"type": "pong"}  # nothing changed: no state came
    assert mover.state["version"] == version + 2


# --- a burst the client reads ----------------------------------------------------------------


async def test_a_burst_of_pings_within_the_rate_is_answered_in_full_while_the_client_reads(make_client):
    """The protocol allows a burst of 1000 messages; the answers queue faster than one read burst
    drains, and that must not count as a client that stopped reading (close 1011)."""
    client = await make_client()
    sock = Socket(await client.ws_connect("/ws"))
    burst = TokenBucket(Limits().ws_rate).capacity  # 1000
    burst = int(burst)
    for _ in range(burst):
        await sock.ws.send_str('{"type": "ping"}')
    pongs = 0
    async with asyncio.timeout(20):
        while pongs < burst:
            msg = await sock.ws.receive()
            assert msg.type == WSMsgType.TEXT, (msg.type, sock.ws.close_code, pongs)
            assert '"pong"' in msg.data, msg.data
            pongs += 1
    assert not sock.ws.closed
