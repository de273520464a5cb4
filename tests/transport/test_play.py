"""Whole matches through the WebSocket, choosing only from ``legal_actions``."""

from __future__ import annotations

import pytest

from .helpers import Socket, auth, check_no_leaks, new_match, new_player, play_match


@pytest.mark.parametrize("difficulty", ["easy", "normal", "hard"])
async def test_a_match_against_each_computer_level_plays_to_the_end(make_client, difficulty):
    client = await make_client()
    ada = await new_player(client)
    match = await new_match(client, ada, difficulty=difficulty)
    assert match["status"] == "active" and match["seat"] == 0
    sock = await Socket.connect(client)
    first = await sock.hello(match["match_id"], ada["token"])
    assert first["type"] == "state" and first["view"]["seat"] == 0
    (final,) = await play_match(client, [sock], seed=hash(difficulty) % 1000)
    view = final["view"]
    assert view["outcome"]["reason"] == "target"
    assert max(view["scores"]) >= 100
    r = await client.get(f"/api/matches/{match['match_id']}/record", headers=auth(ada))
    assert r.status == 200
    record = await r.json()
    assert check_no_leaks(record, sock.messages, 0) > 10
