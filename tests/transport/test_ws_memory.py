"""What an open socket keeps: not the headers of its upgrade once they are sent (the security
headers among them), which the client still receives, nor room for outgoing messages between
them. What a closed one, or a whole match,
leaves: nothing in a reference cycle, so nothing the collector's freeze could keep for good."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import sys
import weakref
from collections.abc import AsyncIterator

import pytest

from server.transport.keys import SOCKETS
from server.transport.ws import SOCKET_COUNTS

from .helpers import play_match
from .test_ws import human_match


async def test_the_upgrade_headers_are_sent_then_not_kept(make_client):
    client = await make_client()
    m, _, _, _, _ = await human_match(client)
    sock = await client.ws_connect("/ws")
    upgrade = sock._response.headers
    assert upgrade["Upgrade"].lower() == "websocket"
    assert "Content-Security-Policy" in upgrade and "X-Content-Type-Options" in upgrade
    await sock.send_json({"type": "hello", "match": m["match_id"], "token": m["watch_token"]})
    assert (await sock.receive_json(timeout=10))["type"] == "state"
    watcher = next(c for c in client.server.app[SOCKET_COUNTS].by_match[m["match_id"]] if c.seat is None)
    assert len(watcher.ws.headers) == 0
    await sock.close()


async def test_an_idle_socket_keeps_no_room_for_outgoing_messages(make_client):
    """Between messages a socket's queue is empty, and costs next to nothing (a deque kept a
    block of 64 slots, over 600 bytes, for every open socket)."""
    client = await make_client()
    m, _, _, _, _ = await human_match(client)
    sock = await client.ws_connect("/ws")
    await sock.send_json({"type": "hello", "match": m["match_id"], "token": m["watch_token"]})
    assert (await sock.receive_json(timeout=10))["type"] == "state"
    await sock.send_json({"type": "ping"})
    assert (await sock.receive_json(timeout=10))["type"] == "pong"
    watcher = next(c for c in client.server.app[SOCKET_COUNTS].by_match[m["match_id"]] if c.seat is None)
    assert len(watcher.outbox) == 0
    assert sys.getsizeof(watcher.outbox) <= 64
    await sock.close()


@pytest.mark.parametrize("path", ["/ws", "/ws/lobby"])
async def test_a_closed_socket_is_freed_without_the_collector(make_client, path):
    """aiohttp leaves a finished WebSocket in a reference cycle (its request handler keeps the
    response's data callback); the handlers break it, so reference counting frees the socket
    (with its request, handler, reader and writer) as soon as the connection is gone: it neither
    waits for a full collection nor is kept for good when the collector froze it while open."""
    client = await make_client()
    sockets = client.server.app[SOCKETS]
    if path == "/ws":
        m, _, _, _, _ = await human_match(client)
    before = set(sockets)
    sock = await client.ws_connect(path)
    if path == "/ws":
        await sock.send_json({"type": "hello", "match": m["match_id"], "token": m["watch_token"]})
        assert (await sock.receive_json(timeout=10))["type"] == "state"
    for _ in range(200):
        if sockets - before:
            break
        await asyncio.sleep(0.01)
    (server_side,) = sockets - before
    gone = weakref.ref(server_side)
    del server_side
    gc.collect()
    gc.disable()
    try:
        await sock.close()
        for _ in range(200):  # the server's handler finishes, then the connection is lost
            if gone() is None:
                break
            await asyncio.sleep(0.01)
        assert gone() is None
    finally:
        gc.enable()


async def test_a_hello_leaves_no_reference_cycle_on_the_server(make_client):
    """What a socket's hello and close make on the server (the response, its request, the SQL
    statements of the hello) is freed by reference counting: nothing waits for the collector,
    so a freeze of the collector's generations cannot keep it."""
    client = await make_client()
    m, _, _, _, _ = await human_match(client)

    async def hello_and_close() -> None:
        sock = await client.ws_connect("/ws")
        await sock.send_json({"type": "hello", "match": m["match_id"], "token": m["watch_token"]})
        assert (await sock.receive_json(timeout=10))["type"] == "state"
        await sock.close()

    await hello_and_close()  # the first builds what is kept for good (compiled statements)
    async with no_server_cycles():
        for _ in range(5):
            await hello_and_close()


async def test_a_whole_match_leaves_no_reference_cycle_on_the_server(make_client):
    """From the players' creation to the match's end and their sockets' close: nothing the
    server made waits for the collector (so the freeze keeps nothing for good)."""
    client = await make_client()
    await human_match(client)  # the first builds what is kept for good (compiled statements)
    async with no_server_cycles():
        _, _, _, a, b = await human_match(client)
        await play_match(client, [a, b], seed=3)
        await a.ws.close()
        await b.ws.close()


@contextlib.asynccontextmanager
async def no_server_cycles() -> AsyncIterator[None]:
    """Fails unless what runs inside leaves no object of the server's side in a reference cycle
    (found with the collector off, then a collection that keeps what it finds)."""
    await asyncio.sleep(0.1)
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        yield
        await asyncio.sleep(0.3)  # the handlers finish, the connections are lost
        gc.collect()
        kept = {f"{type(o).__module__}.{type(o).__qualname__}" for o in gc.garbage if _server_side(o)}
        assert sorted(kept) == []
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


def _server_side(o: object) -> bool:
    """An object of the server's own code, its web framework's server side or its database
    layer (the test's client has cycles of its own)."""
    module = type(o).__module__
    return module.startswith(
        ("server.", "sqlalchemy.", "aiohttp.web", "aiohttp._websocket", "aiohttp.http_writer")
    )
