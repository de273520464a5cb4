"""The lobby socket /ws/lobby as a client sees it: two seekers are both told ``paired`` with the
same match, which each then opens on /ws with its own token; a cancel and a closed socket
withdraw the seek (the lobby count says so); bad input is answered with a documented error and
changes nothing. Every message is decoded strictly against the wire Structs."""

from __future__ import annotations

import asyncio

import msgspec

from server.wire import messages as w

from .helpers import Socket, auth, new_player

_strict = msgspec.json.Decoder(w.LobbyServerMessage)


async def receive(ws) -> w.Seeking | w.Paired | w.SeekCancelled | w.Error | w.Pong:
    return _strict.decode((await asyncio.wait_for(ws.receive(), 5)).data)


async def lobby(client) -> w.Lobby:
    r = await client.get("/api/lobby")
    return msgspec.json.decode(await r.read(), type=w.Lobby)


async def test_two_seekers_are_paired_and_both_open_the_same_match(make_client):
    client = await make_client()
    ada, bob = await new_player(client, "Ada"), await new_player(client, "Bob")
    a, b = await client.ws_connect("/ws/lobby"), await client.ws_connect("/ws/lobby")
    tc = {"kind": "realtime", "move_seconds": 20, "bank_seconds": 120}
    await a.send_json({"type": "seek", "token": ada["token"], "time_control": tc, "rated": True})
    seeking = await receive(a)
    assert isinstance(seeking, w.Seeking) and seeking.rated and seeking.time_control.kind == "realtime"
    assert (await lobby(client)).seeking == 1
    await b.send_json({"type": "seek", "token": bob["token"], "time_control": tc, "rated": True})
    pb, pa = await receive(b), await receive(a)
    assert isinstance(pa, w.Paired) and isinstance(pb, w.Paired)
    assert pa.match_id == pb.match_id and (pa.seat, pb.seat) == (0, 1) and pa.opponent == "human"
    assert (await lobby(client)).seeking == 0
    for player, seat in ((ada, 0), (bob, 1)):
        sock = await Socket.connect(client)
        state = await sock.hello(pa.match_id, player["token"])
        assert state["type"] == "state" and state["view"]["seat"] == seat
        await sock.ws.close()
    r = await client.get(f"/api/matches/{pa.match_id}", headers=auth(ada))
    assert (await r.json())["rated"] is True
    await a.close(), await b.close()


async def test_cancel_and_closing_the_socket_withdraw_the_seek_and_errors_change_nothing(make_client):
    client = await make_client()
    ada, bob = await new_player(client, "Ada"), await new_player(client, "Bob")
    a = await client.ws_connect("/ws/lobby")
    await a.send_json({"type": "cancel"})
    assert (await receive(a)).code == "bad_request"
    await a.send_json({"type": "seek", "token": "nope"})
    assert (await receive(a)).code == "unauthorized"
    await a.send_json({"type": "seek", "token": ada["token"], "rules": "nope"})
    assert (await receive(a)).code == "bad_request"
    await a.send_json({"type": "seek", "token": ada["token"], "computer_after": 0})
    assert (await receive(a)).code == "bad_request"
    await a.send_json({"type": "seek", "token": ada["token"]})
    seek_id = (await receive(a)).seek_id
    other = await client.ws_connect("/ws/lobby")
    await other.send_json({"type": "seek", "token": ada["token"], "rules": "classic"})
    assert (await receive(other)).code == "conflict"  # one open seek per player
    await a.send_json({"type": "cancel"})
    assert await receive(a) == w.SeekCancelled(seek_id)
    assert (await lobby(client)).seeking == 0
    await a.send_json({"type": "seek", "token": ada["token"]})
    assert isinstance(await receive(a), w.Seeking)
    await a.close()  # the seek goes with its socket
    for _ in range(100):
        if (await lobby(client)).seeking == 0:
            break
        await asyncio.sleep(0.01)
    assert (await lobby(client)).seeking == 0
    b = await client.ws_connect("/ws/lobby")
    await b.send_json({"type": "seek", "token": bob["token"]})
    assert isinstance(await receive(b), w.Seeking)  # not paired with Ada's withdrawn seek
    await b.send_json({"type": "ping"})
    assert await receive(b) == w.Pong()
    await b.close(), await other.close()
