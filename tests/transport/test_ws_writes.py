"""Writing to the socket: the messages queued together for a client (an ack and the state its
action brought) leave in one write, framed exactly as aiohttp frames them; a socket whose
transport still holds unsent bytes, or that compresses, gets them one by one from aiohttp's
writer instead."""

from __future__ import annotations

from typing import Any

import pytest
from aiohttp import WSMsgType

from server.transport.ws import SOCKET_COUNTS, YOUNG_PACE
from server.transport.ws_out import text_frame

from .test_ws import human_match, to_act


class CountingTransport:
    """The connection's transport, its writes counted (aiohttp's writer keeps the real one)."""

    def __init__(self, real: Any, unsent: int = 0) -> None:
        self.real = real
        self.writes: list[bytes] = []
        self.unsent = unsent

    def write(self, data: bytes) -> None:
        self.writes.append(data)
        self.real.write(data)

    def is_closing(self) -> bool:
        return bool(self.real.is_closing())

    def get_write_buffer_size(self) -> int:
        return self.unsent or int(self.real.get_write_buffer_size())


def connections(client: Any, match_id: str) -> dict[int, Any]:
    return {c.seat: c for c in client.server.app[SOCKET_COUNTS].by_match[match_id]}


async def test_an_ack_and_the_state_its_action_brought_leave_in_one_write(make_client):
    client = await make_client()
    m, _, _, a, b = await human_match(client)
    mover, other = to_act(a, a, b)
    seat = mover.state["view"]["seat"]
    conn = connections(client, m["match_id"])[seat]
    counting = conn.transport = CountingTransport(conn.transport)
    action = mover.state["view"]["hand"]["legal_actions"][0]
    await mover.send({"type": "act", "id": "one", "version": mover.state["version"], "action": action})
    ack = await mover.recv_until("ack")
    state = await mover.recv()
    assert ack["id"] == "one" and state["type"] == "state" and state["version"] == ack["version"]
    # One write held both frames, each as aiohttp would frame it.
    assert len(counting.writes) == 1
    (written,) = counting.writes
    ack_text = b'{"type":"ack","id":"one","version":%d}' % ack["version"]
    assert written.startswith(text_frame(ack_text) + b"\x81~")  # then the state's frame
    await other.recv_until("state")


async def test_with_bytes_unsent_the_messages_go_one_by_one_through_aiohttp(make_client):
    client = await make_client()
    m, _, _, a, b = await human_match(client)
    mover, _ = to_act(a, a, b)
    conn = connections(client, m["match_id"])[mover.state["view"]["seat"]]
    counting = conn.transport = CountingTransport(conn.transport, unsent=1)
    action = mover.state["view"]["hand"]["legal_actions"][0]
    await mover.send({"type": "act", "id": "two", "version": mover.state["version"], "action": action})
    assert (await mover.recv_until("ack"))["id"] == "two"
    assert (await mover.recv())["type"] == "state"
    assert counting.writes == []  # aiohttp's writer sent both, waiting for the client as it does


async def test_a_compressing_socket_gets_its_messages_from_aiohttp(make_client):
    client = await make_client(ws_compress=True)
    m, _, _, _, _ = await human_match(client)
    # The players of human_match offered no compression: a third socket (a watcher) does.
    sock = await client.ws_connect("/ws", compress=15)
    await sock.send_json({"type": "hello", "match": m["match_id"], "token": m["watch_token"]})
    first = await sock.receive(timeout=10)
    assert first.type == WSMsgType.TEXT and first.json()["type"] == "state"
    watcher = next(c for c in client.server.app[SOCKET_COUNTS].by_match[m["match_id"]] if c.seat is None)
    assert watcher.ws.compress
    watcher.transport = CountingTransport(watcher.transport)
    watcher.outbox.append('{"type":"pong"}')
    assert not watcher._write_together()
    watcher.outbox.clear()
    await sock.close()


async def test_a_lone_message_is_written_on_the_loop_with_no_task(make_client):
    """A client that reads gets even a single message (a pong) in one direct write, from a
    callback on the loop: no writer task is woken (or made) for it."""
    client = await make_client()
    m, _, _, a, b = await human_match(client)
    mover, _ = to_act(a, a, b)
    conn = connections(client, m["match_id"])[mover.state["view"]["seat"]]
    counting = conn.transport = CountingTransport(conn.transport)
    await mover.send({"type": "ping"})
    assert (await mover.recv_until("pong"))["type"] == "pong"
    assert counting.writes == [text_frame(b'{"type":"pong"}')]
    assert conn._slow is None


@pytest.mark.parametrize(("size", "header"), [(0, 2), (125, 2), (126, 4), (65535, 4), (65536, 10)])
def test_a_frame_is_one_final_unmasked_text_frame_with_its_length(size, header):
    frame = text_frame(b"x" * size)
    assert frame[0] == 0x81 and not frame[1] & 0x80  # FIN and text; no mask from a server
    assert len(frame) == header + size
    length = frame[1] & 0x7F
    if header == 4:
        length = int.from_bytes(frame[2:4], "big")
    elif header == 10:
        length = int.from_bytes(frame[2:10], "big")
    assert length == size


async def test_every_third_message_queued_calls_a_young_collection(make_client):
    client = await make_client(gc_young_messages=3)
    pace = client.server.app[YOUNG_PACE]
    calls: list[int] = []
    pace.collect = calls.append  # the process's collector, counted instead of run
    pace.remove()  # and its own collections, which restart the count, out of the way
    _, _, _, a, b = await human_match(client)
    before = len(calls)
    assert before > 0 and set(calls) == {0}
    for n in range(3):
        mover, other = to_act(a, a, b)
        action = mover.state["view"]["hand"]["legal_actions"][0]
        await mover.send({"type": "act", "id": f"m{n}", "version": mover.state["version"], "action": action})
        await mover.recv_until("ack")
        assert (await mover.recv())["type"] == "state"
        await other.recv_until("state")
    # Each action queued three messages (its ack, and a state to each seat): one collection.
    assert len(calls) - before == 3
