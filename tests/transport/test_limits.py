"""One client cannot exhaust the server: random tokens do not dodge the rate limit, matches per
player and sockets per address and per match are capped, huge query numbers are a 400, and the
WebSocket Origin check compares the scheme too."""

from __future__ import annotations

import asyncio
import secrets

import pytest
from aiohttp import WSMsgType, WSServerHandshakeError
from aiohttp.test_utils import make_mocked_request

from server.config import Limits
from server.transport.ws import origin_allowed

from .helpers import Socket, auth, new_match, new_player
from .test_rest import error_of

# --- 1. rate limits cannot be dodged with random tokens ------------------------------------------


async def test_random_tokens_from_one_client_are_rate_limited(make_client):
    client = await make_client(limits=Limits(requests_rate="5/minute"))
    for _ in range(5):
        r = await client.get("/api/matches", headers={"Authorization": f"Bearer {secrets.token_hex(16)}"})
        await error_of(r, 401, "unauthorized")
    r = await client.get("/api/matches", headers={"Authorization": f"Bearer {secrets.token_hex(16)}"})
    error = await error_of(r, 429, "rate_limited")
    assert error["limit"] == "requests"


async def test_missing_and_random_tokens_share_the_address_limit(make_client):
    client = await make_client(limits=Limits(requests_rate="4/minute"))
    for i in range(4):
        headers = {} if i % 2 else {"Authorization": f"Bearer {secrets.token_hex(16)}"}
        await error_of(await client.get("/api/matches", headers=headers), 401, "unauthorized")
    await error_of(await client.get("/api/matches"), 429, "rate_limited")


async def test_a_player_is_not_limited_by_random_tokens_from_elsewhere(make_client):
    client = await make_client(limits=Limits(requests_rate="3/minute"))
    ada = await new_player(client)
    for _ in range(3):
        r = await client.get("/api/matches", headers={"Authorization": f"Bearer {secrets.token_hex(16)}"})
        await error_of(r, 401, "unauthorized")
    # The address is spent, but Ada's token is a player's: it counts against itself.
    assert (await client.get("/api/matches", headers=auth(ada))).status == 200


# --- 5. query numbers are bounded ----------------------------------------------------------------


@pytest.mark.parametrize(
    "query",
    ["offset=99999999999999999999", "offset=-1", "limit=99999999999999999999", "offset=1e9", "limit=abc"],
)
async def test_out_of_range_query_numbers_are_bad_request(make_client, query):
    client = await make_client()
    ada = await new_player(client)
    await error_of(await client.get(f"/api/matches?{query}", headers=auth(ada)), 400, "bad_request")


async def test_a_large_but_bounded_offset_is_an_empty_page(make_client):
    client = await make_client()
    ada = await new_player(client)
    r = await client.get("/api/matches?offset=2147483647", headers=auth(ada))
    assert r.status == 200 and (await r.json())["matches"] == []


# --- 6. the Origin check compares the scheme ------------------------------------------------------


async def test_an_https_origin_is_refused_by_a_plain_http_server(make_client):
    client = await make_client()
    sock = await Socket.connect(client, headers={"Origin": f"https://{client.host}:{client.port}"})
    assert await sock.closed() == 1008


@pytest.mark.parametrize(
    ("origin", "secure", "allowed"),
    [
        ("http://game.example", False, True),
        ("https://game.example", False, False),
        ("https://game.example", True, True),
        ("http://game.example", True, False),
        ("ftp://game.example", False, False),
    ],
)
def test_the_origin_must_match_the_servers_scheme(origin, secure, allowed):
    request = make_mocked_request("GET", "/ws", headers={"Host": "game.example", "Origin": origin})
    if secure:
        request = request.clone(scheme="https")
    assert origin_allowed(request, ()) is allowed


# --- 2. caps on matches per player ----------------------------------------------------------------


async def test_a_player_may_have_only_so_many_waiting_matches(make_client):
    client = await make_client(limits=Limits(max_waiting_matches=3))
    ada = await new_player(client)
    for _ in range(3):
        await new_match(client, ada, opponent="human")
    r = await client.post("/api/matches", json={"opponent": "human"}, headers=auth(ada))
    error = await error_of(r, 409, "too_many_matches")
    assert "3" in error["message"]
    # Waiting matches do not count against matches in play, nor another player's cap.
    await new_match(client, ada)
    await new_match(client, await new_player(client, "Bob"), opponent="human")


async def test_a_player_may_have_only_so_many_active_matches(make_client):
    client = await make_client(limits=Limits(max_active_matches=2))
    ada, bob = await new_player(client, "Ada"), await new_player(client, "Bob")
    await new_match(client, ada)
    await new_match(client, ada)
    await error_of(await client.post("/api/matches", json={}, headers=auth(ada)), 409, "too_many_matches")
    # Joining would be a third match in play, too.
    m = await new_match(client, bob, opponent="human")
    r = await client.post(
        f"/api/matches/{m['match_id']}/join", json={"invite": m["invite"]["code"]}, headers=auth(ada)
    )
    await error_of(r, 409, "too_many_matches")
    # Resigning one frees a place.
    listed = await (await client.get("/api/matches?status=active", headers=auth(ada))).json()
    first = listed["matches"][0]["match_id"]
    assert (await client.post(f"/api/matches/{first}/resign", headers=auth(ada))).status == 200
    await new_match(client, ada)


async def test_a_burst_of_creates_does_not_pass_the_cap(make_client):
    client = await make_client(limits=Limits(max_waiting_matches=3))
    ada = await new_player(client)
    answers = await asyncio.gather(
        *(client.post("/api/matches", json={"opponent": "human"}, headers=auth(ada)) for _ in range(10))
    )
    assert sorted(r.status for r in answers) == [201] * 3 + [409] * 7


# --- 4. caps on sockets ---------------------------------------------------------------------------


async def test_sockets_from_one_address_are_capped_before_the_upgrade(make_client):
    client = await make_client(limits=Limits(ws_max_per_address=3))
    socks = [await Socket.connect(client) for _ in range(3)]
    with pytest.raises(WSServerHandshakeError) as refused:
        await client.ws_connect("/ws")
    assert refused.value.status == 429
    r = await client.get("/ws", headers={"Upgrade": "websocket", "Connection": "Upgrade"})
    error = await error_of(r, 429, "rate_limited")
    assert error["limit"] == "address_sockets" and "Retry-After" in r.headers
    # Closing one frees a place.
    await socks[0].ws.close()
    await asyncio.sleep(0.1)
    again = await Socket.connect(client)
    await again.send({"type": "ping"})
    assert await again.recv() == {"type": "pong"}


async def refused_as_too_many(sock: Socket, match_id: str, token: str) -> str:
    """Says hello with ``token``; the refusal's message (a ``match_sockets`` error, then 4008)."""
    await sock.send({"type": "hello", "match": match_id, "token": token})
    error = await sock.recv()
    assert error["type"] == "error" and error["code"] == "rate_limited" and error["limit"] == "match_sockets"
    closing = await sock.ws.receive(timeout=10)
    assert closing.type == WSMsgType.CLOSE
    assert (closing.data, closing.extra) == (4008, "too many sockets on this match")
    return str(error["message"])


async def test_sockets_on_one_match_are_capped_at_hello_for_each_seat_and_the_watchers(make_client):
    client = await make_client(limits=Limits(ws_max_per_match=2))
    ada, bob = await new_player(client, "Ada"), await new_player(client, "Bob")
    m = await new_match(client, ada, opponent="human")
    r = await client.post(
        f"/api/matches/{m['match_id']}/join", headers=auth(bob), json={"invite": m["invite"]["code"]}
    )
    assert r.status == 200, await r.text()
    match_id, watch = m["match_id"], m["watch_token"]
    # Watchers fill their share: the next watcher is refused...
    watchers = [await Socket.connect(client) for _ in range(2)]
    for w in watchers:
        assert (await w.hello(match_id, watch))["type"] == "state"
    assert "for the watchers" in await refused_as_too_many(await Socket.connect(client), match_id, watch)
    # ...but never a player: a crowd on a shared watch link (or the other seat's sockets) used
    # to keep a player whose socket dropped out of their match, until it could be claimed.
    ada_socks = [await Socket.connect(client) for _ in range(2)]
    for sock in ada_socks:
        assert (await sock.hello(match_id, ada["token"]))["type"] == "state"
    assert "for this seat" in await refused_as_too_many(await Socket.connect(client), match_id, ada["token"])
    bob_sock = await Socket.connect(client)
    assert (await bob_sock.hello(match_id, bob["token"]))["type"] == "state"
    # Another match is not affected, and a socket that leaves frees its place.
    other = await new_match(client, ada)
    fourth = await Socket.connect(client)
    assert (await fourth.hello(other["match_id"], ada["token"]))["type"] == "state"
    await watchers[1].ws.close()
    await asyncio.sleep(0.1)
    fifth = await Socket.connect(client)
    assert (await fifth.hello(match_id, watch))["type"] == "state"
    # A hello again on the match a socket is bound to does not count twice.
    assert (await ada_socks[0].hello(match_id, ada["token"]))["type"] == "state"


# --- 3. a creator can cancel a waiting match ---------------------------------------------------------


async def test_the_creator_cancels_a_waiting_match_and_its_invite_stops_working(make_client):
    client = await make_client()
    ada, bob = await new_player(client, "Ada"), await new_player(client, "Bob")
    m = await new_match(client, ada, opponent="human")
    watcher = await Socket.connect(client)
    assert (await watcher.hello(m["match_id"], m["watch_token"]))["type"] == "state"
    # Only the creator may cancel.
    r = await client.post(f"/api/matches/{m['match_id']}/cancel", headers=auth(bob))
    await error_of(r, 403, "forbidden")
    r = await client.post(f"/api/matches/{m['match_id']}/cancel", headers=auth(ada))
    assert r.status == 204 and await r.read() == b""
    assert await watcher.closed() == 4004
    r = await client.post(
        f"/api/matches/{m['match_id']}/join", json={"invite": m["invite"]["code"]}, headers=auth(bob)
    )
    await error_of(r, 404, "not_found")
    await error_of(await client.get(f"/api/matches/{m['match_id']}", headers=auth(ada)), 404, "not_found")
    listed = await (await client.get("/api/matches", headers=auth(ada))).json()
    assert listed["total"] == 0
    stats = await (await client.get("/api/players/me/stats", headers=auth(ada))).json()
    assert (stats["matches"], stats["wins"], stats["losses"]) == (0, 0, 0)
    await error_of(
        await client.post(f"/api/matches/{m['match_id']}/cancel", headers=auth(ada)), 404, "not_found"
    )


async def test_a_match_someone_joined_or_against_the_computer_cannot_be_cancelled(make_client):
    client = await make_client()
    ada, bob = await new_player(client, "Ada"), await new_player(client, "Bob")
    m = await new_match(client, ada, opponent="human")
    r = await client.post(
        f"/api/matches/{m['match_id']}/join", json={"invite": m["invite"]["code"]}, headers=auth(bob)
    )
    assert r.status == 200
    for who in (ada, bob):
        r = await client.post(f"/api/matches/{m['match_id']}/cancel", headers=auth(who))
        assert r.status in (403, 409), await r.text()
    joined = await error_of(
        await client.post(f"/api/matches/{m['match_id']}/cancel", headers=auth(ada)), 409, "conflict"
    )
    assert joined["message"] == "someone has joined this match: resign instead"
    c = await new_match(client, ada)
    computer = await error_of(
        await client.post(f"/api/matches/{c['match_id']}/cancel", headers=auth(ada)), 409, "conflict"
    )
    assert computer["message"] == "a match against the computer cannot be cancelled: resign instead"
    assert (await client.post(f"/api/matches/{c['match_id']}/resign", headers=auth(ada))).status == 200
    await error_of(
        await client.post(f"/api/matches/{c['match_id']}/cancel", headers=auth(ada)), 409, "match_over"
    )


async def test_cancelling_frees_a_place_under_the_waiting_cap(make_client):
    client = await make_client(limits=Limits(max_waiting_matches=1))
    ada = await new_player(client)
    m = await new_match(client, ada, opponent="human")
    await error_of(
        await client.post("/api/matches", json={"opponent": "human"}, headers=auth(ada)),
        409,
        "too_many_matches",
    )
    assert (await client.post(f"/api/matches/{m['match_id']}/cancel", headers=auth(ada))).status == 204
    await new_match(client, ada, opponent="human")
