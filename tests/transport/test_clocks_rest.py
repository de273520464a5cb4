"""Clocks, claims and rematches over REST: a time control given at creation comes back in the
summary and the view; a bad one, or one against the computer, is a 400 that creates nothing;
claim and rematch refuse clearly (and change nothing) when they do not apply."""

from __future__ import annotations

import pytest

from .helpers import auth, check_server_message, new_match, new_player

REALTIME = {"kind": "realtime", "move_seconds": 20, "bank_seconds": 120}


async def test_a_time_control_is_chosen_at_creation_and_shown_in_summary_and_view(make_client):
    client = await make_client()
    ada, bob = await new_player(client, "Ada"), await new_player(client, "Bob")
    created = await new_match(client, ada, opponent="human", time_control=REALTIME)
    assert created["time_control"] == REALTIME and created["rematch"] is None
    r = await client.post(
        f"/api/matches/{created['match_id']}/join",
        json={"invite": created["invite"]["code"]},
        headers=auth(bob),
    )
    assert r.status == 200
    ws = await client.ws_connect("/ws")
    await ws.send_json({"type": "hello", "match": created["match_id"], "token": ada["token"]})
    state = check_server_message(await ws.receive_str())
    clock = state.view.clock
    assert clock is not None and clock.time_control.kind == "realtime"
    assert clock.remaining_ms is not None and 0 < clock.remaining_ms <= 140_000
    await ws.close()
    details = await (await client.get(f"/api/matches/{created['match_id']}", headers=auth(ada))).json()
    assert details["time_control"] == REALTIME


@pytest.mark.parametrize(
    "body",
    [
        {"opponent": "computer", "time_control": REALTIME},
        {"opponent": "human", "time_control": {"kind": "blitz"}},
        {"opponent": "human", "time_control": {"kind": "none", "move_seconds": 5}},
        {"opponent": "human", "time_control": {"kind": "realtime", "move_seconds": 0, "bank_seconds": 5}},
        {"opponent": "human", "time_control": {"kind": "realtime", "move_seconds": 10, "bank_seconds": -1}},
        {"opponent": "human", "time_control": {"kind": "realtime", "move_seconds": 10, "tick": 1}},
    ],
)
async def test_a_bad_time_control_is_a_clear_400_and_creates_nothing(make_client, body):
    client = await make_client()
    ada = await new_player(client)
    r = await client.post("/api/matches", json=body, headers=auth(ada))
    assert r.status == 400
    assert (await r.json())["error"]["code"] == "bad_request"
    listed = await (await client.get("/api/matches", headers=auth(ada))).json()
    assert listed["total"] == 0


async def test_claims_and_rematches_that_do_not_apply_are_refused(make_client):
    client = await make_client()
    ada, bob = await new_player(client, "Ada"), await new_player(client, "Bob")
    solo = await new_match(client, ada)
    path = f"/api/matches/{solo['match_id']}"
    for url, code in ((f"{path}/claim", "conflict"), (f"{path}/rematch", "match_not_over")):
        r = await client.post(url, headers=auth(ada))
        assert r.status == 409 and (await r.json())["error"]["code"] == code
    r = await client.post(f"{path}/rematch", headers=auth(bob))
    assert r.status == 403
    r = await client.post("/api/matches/m_nope/claim", headers=auth(ada))
    assert r.status == 404
    await client.post(f"{path}/resign", headers=auth(ada))
    r = await client.post(f"{path}/rematch/decline", headers=auth(ada))
    assert r.status == 409 and (await r.json())["error"]["code"] == "conflict"
    r = await client.post(f"{path}/rematch", headers=auth(ada))
    assert r.status == 200
    body = await r.json()
    assert body["rematch"]["match_id"] and body["outcome"]["reason"] == "resign"
