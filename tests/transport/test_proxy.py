"""Behind a reverse proxy: ``X-Forwarded-For``/``-Proto``/``-Host`` are believed only from the
addresses in ``GINRUMMY_TRUSTED_PROXIES``, and then the rate limits, the WebSocket Origin check
and the links the server builds all use the client's address, scheme and host. From any other
peer the headers change nothing. (The test client connects from 127.0.0.1; the real proxy is in
tests/scale/test_nginx.py.)"""

from __future__ import annotations

import pytest

from server.config import Limits, Settings

from .helpers import Socket, auth, new_player

ALICE = {"X-Forwarded-For": "203.0.113.7"}
BOB = {"X-Forwarded-For": "198.51.100.9"}
OUTSIDE = {
    "X-Forwarded-For": "192.0.2.1",
    "X-Forwarded-Proto": "https",
    "X-Forwarded-Host": "gin.example:8443",
}


def test_the_trusted_proxies_come_from_the_environment_and_must_be_addresses():
    env = {"GINRUMMY_TRUSTED_PROXIES": " 172.30.0.10, 10.0.0.0/8 ,::1"}
    assert Settings.from_env(env).trusted_proxies == ("172.30.0.10", "10.0.0.0/8", "::1")
    assert Settings.from_env({}).trusted_proxies == ()
    with pytest.raises(ValueError, match="not an address"):
        Settings.from_env({"GINRUMMY_TRUSTED_PROXIES": "balancer"})


async def new_player_status(client, headers: dict[str, str]) -> int:
    r = await client.post("/api/players", json={"name": "Ada"}, headers=headers)
    return r.status


async def test_from_a_trusted_proxy_each_forwarded_client_has_its_own_rate_limit(make_client):
    client = await make_client(trusted_proxies=("127.0.0.1",), limits=Limits(players_rate="2/minute"))
    assert [await new_player_status(client, ALICE) for _ in range(3)] == [201, 201, 429]
    assert await new_player_status(client, BOB) == 201
    # The proxy's own requests (no header) are a third client.
    assert await new_player_status(client, {}) == 201


@pytest.mark.parametrize("trusted", [(), ("10.0.0.0/8", "::1")])
async def test_from_an_untrusted_peer_the_forwarded_headers_are_ignored(make_client, trusted):
    client = await make_client(trusted_proxies=trusted, limits=Limits(players_rate="2/minute"))
    assert [await new_player_status(client, ALICE) for _ in range(2)] == [201, 201]
    # Another X-Forwarded-For does not make another client: the peer's own address is limited.
    assert await new_player_status(client, BOB) == 429
    ada = await new_player(await make_client(trusted_proxies=trusted))
    client = await make_client(trusted_proxies=trusted)
    r = await client.post("/api/matches", json={"opponent": "human"}, headers={**auth(ada), **OUTSIDE})
    match = await r.json()
    assert match["ws_url"] == f"ws://{client.host}:{client.port}/ws"


async def test_from_a_trusted_proxy_links_use_the_forwarded_scheme_and_host(make_client):
    client = await make_client(trusted_proxies=("127.0.0.0/8",))
    ada = await new_player(client)
    r = await client.post("/api/matches", json={"opponent": "human"}, headers={**auth(ada), **OUTSIDE})
    assert r.status == 201, await r.text()
    match = await r.json()
    assert match["ws_url"] == "wss://gin.example:8443/ws"
    assert match["invite"]["url"].startswith(f"https://gin.example:8443/#/join/{match['match_id']}/")


@pytest.mark.parametrize(("trusted", "accepted"), [(("127.0.0.1",), True), ((), False)])
async def test_the_websocket_origin_is_checked_against_the_forwarded_host(make_client, trusted, accepted):
    client = await make_client(trusted_proxies=trusted)
    sock = await Socket.connect(client, headers={**OUTSIDE, "Origin": "https://gin.example:8443"})
    if accepted:
        await sock.send({"type": "ping"})
        assert await sock.recv() == {"type": "pong"}
    else:
        assert await sock.closed() == 1008


async def test_a_malformed_forwarded_header_from_a_trusted_proxy_is_a_bad_request(make_client):
    client = await make_client(trusted_proxies=("127.0.0.1",))
    r = await client.post("/api/players", json={"name": "Ada"}, headers={"X-Forwarded-For": "not-an-ip"})
    assert r.status == 400
    assert (await r.json())["error"]["code"] == "bad_request"
