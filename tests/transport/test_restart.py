"""Never lose a move: a match continues after a restart of the server, graceful or ``kill -9``,
with the same token, and a computer turn that was pending resumes."""

from __future__ import annotations

import asyncio
import random
import signal
from pathlib import Path

import aiohttp

from server.bench import load

from .helpers import Socket, auth, choose, new_match, new_player, play_match


async def play_some(sock: Socket, moves: int, rng: random.Random) -> int:
    """Make ``moves`` of our own moves; the version after the last one's ack."""
    version = -1
    for _ in range(moves):
        while not (sock.state["view"]["hand"]["legal_actions"] and sock.state["view"]["status"] == "active"):
            await sock.recv_until("state")
        await sock.act(choose(sock.state["view"], rng))
        version = (await sock.recv_until("ack"))["version"]
        await sock.recv_until("state")
    # Let the computer finish its turn, so that sock.state is the latest state.
    while not sock.state["view"]["hand"]["legal_actions"] and sock.state["view"]["status"] == "active":
        await sock.recv_until("state")
    return version


async def test_a_match_continues_after_a_restart_with_the_same_token(make_client):
    client = await make_client()
    ada = await new_player(client)
    m = await new_match(client, ada)
    sock = await Socket.connect(client)
    await sock.hello(m["match_id"], ada["token"])
    await play_some(sock, 12, random.Random(1))
    before = sock.state
    await client.close()

    client2 = await make_client()  # a new app on the same database file
    sock2 = await Socket.connect(client2)
    state = await sock2.hello(m["match_id"], ada["token"], version=before["version"])
    assert state["version"] == before["version"]
    assert state["view"]["hand"] == before["view"]["hand"]
    assert state["view"]["scores"] == before["view"]["scores"]
    (final,) = await play_match(client2, [sock2], seed=2)
    assert final["view"]["status"] == "finished"


async def test_a_pending_computer_turn_resumes_after_a_restart(make_client):
    client = await make_client(bot_delay=60.0)
    ada = await new_player(client)
    m = await new_match(client, ada)
    sock = await Socket.connect(client)
    await sock.hello(m["match_id"], ada["token"])
    while sock.state["view"]["hand"]["to_act"] == 0:  # play our turn through (it may take two moves)
        await sock.act(choose(sock.state["view"], random.Random(0)))
        await sock.recv_until("ack")
        await sock.recv_until("state")
    assert sock.state["view"]["hand"]["to_act"] == 1  # the computer is "thinking" for a minute
    version = sock.state["version"]
    await client.close()

    client2 = await make_client(bot_delay=0.0)
    sock2 = await Socket.connect(client2)
    state = await sock2.hello(m["match_id"], ada["token"])
    while state["view"]["hand"]["to_act"] != 0:
        state = await sock2.recv_until("state")
    assert state["version"] > version


async def test_a_repeated_id_after_a_restart_is_still_answered_as_before(make_client):
    client = await make_client()
    ada = await new_player(client)
    m = await new_match(client, ada)
    sock = await Socket.connect(client)
    state = await sock.hello(m["match_id"], ada["token"])
    while state["view"]["hand"]["to_act"] != 0:
        state = await sock.recv_until("state")
    action = choose(state["view"], random.Random(0))
    await sock.act(action, id="once")
    ack = await sock.recv_until("ack")
    await client.close()

    client2 = await make_client()
    sock2 = await Socket.connect(client2)
    await sock2.hello(m["match_id"], ada["token"])
    await sock2.act(action, version=state["version"], id="once")  # a retry: the same action
    assert await sock2.recv_until("ack") == ack


def _start(db: Path, port: int, log_dir: Path) -> load.Server:
    return load.start_server(f"sqlite+aiosqlite:///{db}", log_dir, {"GINRUMMY_BOT_DELAY": "0"}, port)


async def test_a_match_survives_kill_9_of_the_server_process(tmp_path):
    db = tmp_path / "server.db"
    port = load.free_port()
    base = f"http://127.0.0.1:{port}"
    server = _start(db, port, tmp_path)
    try:
        async with aiohttp.ClientSession() as session:
            await load.wait_healthy(base, server.process)
            async with session.post(base + "/api/players", json={"name": "Ada"}) as r:
                ada = await r.json()
            async with session.post(base + "/api/matches", json={}, headers=auth(ada)) as r:
                m = await r.json()
            sock = Socket(await session.ws_connect(base + "/ws"))
            await sock.hello(m["match_id"], ada["token"])
            acked = await play_some(sock, 15, random.Random(5))
            seen = sock.state

            server.process.send_signal(signal.SIGKILL)
            server.process.wait(10)
            server = _start(db, port, tmp_path)
            await load.wait_healthy(base, server.process)

            sock2 = Socket(await session.ws_connect(base + "/ws"))
            state = await sock2.hello(m["match_id"], ada["token"])
            # Every acknowledged move survived, and the view is the one we last saw.
            assert state["version"] >= acked
            while state["version"] < seen["version"]:
                state = await sock2.recv_until("state")
            assert state["view"]["hand"]["hand"] == seen["view"]["hand"]["hand"]
            (final,) = await asyncio.gather(_play(sock2))
            assert final["view"]["status"] == "finished"
            await sock2.ws.close()
    finally:
        load.stop_server(server)


async def _play(sock: Socket) -> dict:
    from .helpers import play_seat

    return await play_seat(sock, random.Random(9))


async def test_new_players_and_matches_work_on_a_restarted_server(make_client):
    client = await make_client()
    ada = await new_player(client)
    await client.close()
    client2 = await make_client()
    m = await new_match(client2, ada)  # the token still works
    r = await client2.get(f"/api/matches/{m['match_id']}", headers=auth(ada))
    assert r.status == 200
