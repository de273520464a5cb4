"""The whole server on PostgreSQL (when reachable): a match against the computer through the
socket, then a restart on the same database carries on. Runs in a database of its own,
dropped afterwards."""

from __future__ import annotations

import secrets

import pytest

from tests.storage.conftest import POSTGRES_URL

from .helpers import Socket, auth, new_match, new_player, play_match

pytestmark = pytest.mark.postgres


@pytest.fixture
async def postgres_url():
    import asyncpg

    admin_url = POSTGRES_URL.replace("+asyncpg", "")
    try:
        admin = await asyncpg.connect(admin_url, timeout=3)
    except (OSError, asyncpg.PostgresError) as e:
        pytest.skip(f"PostgreSQL is not reachable at {POSTGRES_URL}: {e}")
    name = f"ginrummy_test_{secrets.token_hex(6)}"
    await admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield POSTGRES_URL.rsplit("/", 1)[0] + "/" + name
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


async def test_a_match_on_postgres_plays_and_survives_a_restart(make_client, postgres_url):
    client = await make_client(database_url=postgres_url)
    ada = await new_player(client)
    m = await new_match(client, ada, difficulty="easy")
    sock = await Socket.connect(client)
    state = await sock.hello(m["match_id"], ada["token"])
    while not state["view"]["hand"]["legal_actions"]:
        state = await sock.recv_until("state")
    await sock.act(state["view"]["hand"]["legal_actions"][0])
    ack = await sock.recv_until("ack")
    await client.close()

    client2 = await make_client(database_url=postgres_url)
    sock2 = await Socket.connect(client2)
    state = await sock2.hello(m["match_id"], ada["token"])
    assert state["version"] >= ack["version"]
    (final,) = await play_match(client2, [sock2], seed=8)
    assert final["view"]["status"] == "finished"
    stats = await (await client2.get("/api/players/me/stats", headers=auth(ada))).json()
    assert stats["matches"] == 1 and stats["hands"] >= 1


async def test_two_servers_on_one_postgres_tell_each_others_clients(make_client, postgres_url):
    one = await make_client(database_url=postgres_url, broadcast="postgres")
    two = await make_client(database_url=postgres_url, broadcast="postgres")
    ada, bob = await new_player(one, "Ada"), await new_player(two, "Bob")
    m = await new_match(one, ada, opponent="human")
    r = await two.post(
        f"/api/matches/{m['match_id']}/join", json={"invite": m["invite"]["code"]}, headers=auth(bob)
    )
    assert r.status == 200
    a, b = await Socket.connect(one), await Socket.connect(two)
    await a.hello(m["match_id"], ada["token"])
    await b.hello(m["match_id"], bob["token"])
    mover, other = (a, b) if a.state["view"]["hand"]["to_act"] == 0 else (b, a)
    version = mover.state["version"]
    await mover.act({"kind": "pass"})
    seen = await other.recv_until("state")
    while seen["version"] <= version:
        seen = await other.recv_until("state")
    assert seen["version"] == version + 1 and seen["view"]["hand"]["history"][-1]["kind"] == "pass"
