"""``hello.pace`` on the wire: a known pace binds like any hello and reaches the match; an
unknown one is a bad request naming the field, and the socket stays usable."""

from __future__ import annotations

from server.transport.app import SERVICE

from .helpers import Socket, new_match, new_player


async def test_hello_carries_the_computers_pace_and_refuses_an_unknown_one(make_client):
    client = await make_client()
    ada = await new_player(client)
    m = await new_match(client, ada, difficulty="easy")
    sock = await Socket.connect(client)
    await sock.send({"type": "hello", "match": m["match_id"], "token": ada["token"], "pace": "warp"})
    error = await sock.recv_until("error")
    assert error["code"] == "bad_request" and "pace" in error["message"], error
    state = await sock.hello(m["match_id"], ada["token"], pace="slow")
    assert state["type"] == "state"
    live = await client.app[SERVICE].cache.get(m["match_id"])
    assert live.pace == "slow"
    watcher = await Socket.connect(client)
    await watcher.hello(m["match_id"], m["watch_token"], pace="fast")  # a watcher's pace is ignored
    assert live.pace == "slow"
