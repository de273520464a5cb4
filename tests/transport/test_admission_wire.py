"""A busy server on the wire: a new match is ``503 unavailable`` with ``Retry-After`` and a seek
is refused on the lobby socket; the seated players' hellos (their match held in memory or not)
and actions go on, and nothing refused changed anything."""

from __future__ import annotations

import asyncio

from server.service.admission import RETRY_IN
from server.service.clock import FakeClock
from server.transport.keys import SERVICE

from .helpers import Socket, auth, new_match, new_player


def _overload(client) -> None:
    """Commits of two seconds, seen on a clock that stands still: busy until the test ends."""
    admission = client.app[SERVICE].admission
    admission.clock = FakeClock()
    for _ in range(100):
        admission.observe(2.0)
    assert admission.busy


async def test_a_busy_server_refuses_new_players_and_serves_the_seated(make_client):
    client = await make_client(bot_delay=0)
    service = client.app[SERVICE]
    ada, bob = await new_player(client), await new_player(client, "Bob")
    seated = await new_match(client, ada)
    elsewhere = await new_match(client, bob)
    service.cache.forget(service.cache.find(elsewhere["match_id"]))
    sock = await Socket.connect(client)
    state = await sock.hello(seated["match_id"], ada["token"])
    assert state["type"] == "state"

    _overload(client)
    r = await client.post("/api/matches", json={}, headers=auth(ada))
    assert r.status == 503
    assert r.headers["Retry-After"] == str(int(RETRY_IN))
    body = await r.json()
    assert body["error"]["code"] == "unavailable" and "busy" in body["error"]["message"]
    listed = await client.get("/api/matches", headers=auth(ada))
    assert len((await listed.json())["matches"]) == 1  # nothing made

    lobby = await client.ws_connect("/ws/lobby")
    await lobby.send_json({"type": "seek", "token": ada["token"]})
    refused = await asyncio.wait_for(lobby.receive_json(), 5)
    assert refused["type"] == "error" and refused["code"] == "unavailable"
    await lobby.close()

    # Bob's match was dropped from memory: his hello loads it, busy or not.
    late = await Socket.connect(client)
    assert (await late.hello(elsewhere["match_id"], bob["token"]))["type"] == "state"

    # Ada, seated, comes back on a second socket and plays on.
    again = await Socket.connect(client)
    assert (await again.hello(seated["match_id"], ada["token"]))["type"] == "state"
    while not again.state["view"]["hand"]["legal_actions"]:  # the computer's turn first
        await again.recv_until("state")
    version = again.state["version"]
    await again.act(again.state["view"]["hand"]["legal_actions"][0])
    assert (await again.recv_until("ack"))["version"] == version + 1
    metrics = await (await client.get("/metrics")).text()
    assert 'ginrummy_refused_total{what="match"} 1.0' in metrics
    assert 'ginrummy_refused_total{what="seek"} 1.0' in metrics
    assert "ginrummy_busy 1.0" in metrics
