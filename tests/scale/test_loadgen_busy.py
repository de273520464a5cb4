"""The load generators against a busy server. The Node one: a player refused at setup leaves its
setup slot and comes back after ``Retry-After`` (let in, counted ``came_back``), or gives up
after ``busyForMs`` (counted ``refused_setups``), never as a setup error (skipped, saying why,
when Node, npm or the npm registry, for the first install into the cache, is not there). The
Python one: a player comes back after ``Retry-After`` and opens its socket only once its match
is made, or is turned away (``Refused``) after ``BUSY_FOR``."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
import pytest

from server.bench.load import players as python_load
from server.bench.load.players import Control, Player, Refused
from server.bench.peer.node import DEFAULT_CACHE, NodeUnavailable, install
from server.service.admission import Busy
from server.transport.keys import SERVICE

pytestmark = pytest.mark.slow


def _refuse_first(client, count: int) -> list[str]:
    """The server refuses its first ``count`` new matches as busy, asking for a second's wait;
    the refusals, in order."""
    admission = client.app[SERVICE].admission
    refused: list[str] = []

    def check(what: str) -> None:
        if len(refused) < count:
            refused.append(what)
            raise Busy("the server is busy: try again in 1 second", retry_in=1.0)

    admission.check = check
    return refused


async def _ready(client, **config: Any) -> dict[str, Any]:
    """Run the load generator's setup against ``client``'s server: its ``ready`` event."""
    try:
        folder = await asyncio.to_thread(install, DEFAULT_CACHE, 120)
    except NodeUnavailable as e:
        pytest.skip(f"the Node load generator cannot be installed: {e}")
    url = str(client.server.make_url("")).rstrip("/")
    config = {"target": "ours", "url": url, "mode": "hvc", "difficulty": "easy", "think": 0.05, **config}
    node = await asyncio.create_subprocess_exec(
        "node", "loadgen.js", json.dumps(config), cwd=folder,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        assert node.stdout is not None
        line = await asyncio.wait_for(node.stdout.readline(), 60)
    finally:
        node.kill()
        _, stderr = await node.communicate()
    assert line, stderr.decode()
    return dict(json.loads(line))


async def test_a_player_refused_at_setup_comes_back_after_retry_after_and_is_let_in(make_client):
    client = await make_client(bot_delay=0)
    refused = _refuse_first(client, 2)
    ready = await _ready(client, matches=3)
    assert refused == ["match", "match"], ready
    assert ready["event"] == "ready" and ready["busy"] == 2
    assert (ready["came_back"], ready["refused_setups"], ready["setup_errors"]) == (2, 0, 0)
    assert client.app[SERVICE].metrics.registry.get_sample_value("ginrummy_live_matches") == 3  # all seated


async def test_a_player_the_server_keeps_refusing_gives_up_after_busy_for_ms(make_client):
    client = await make_client(bot_delay=0)
    _refuse_first(client, 1000)
    ready = await _ready(client, matches=2, busyForMs=1500)
    assert (ready["came_back"], ready["refused_setups"], ready["setup_errors"]) == (0, 2, 0)
    assert ready["busy"] >= 4  # each came back at least once before giving up
    assert ready["setup_seconds"] >= 1.5


def _player(client, session: aiohttp.ClientSession) -> Player:
    url = str(client.server.make_url("")).rstrip("/")
    return Player(0, session, url, Control(1.0), difficulty="easy", keep_messages=False, seed=1)


async def test_a_python_load_player_comes_back_and_opens_its_socket_once_let_in(make_client):
    client = await make_client(bot_delay=0)
    refused = _refuse_first(client, 1)
    async with aiohttp.ClientSession() as session:
        player = _player(client, session)
        await asyncio.wait_for(player.setup(), 20)
        assert refused == ["match"] and player.match_id and player.ws is not None
        first = await asyncio.wait_for(player.ws.receive_json(), 10)
        assert first["type"] == "state" and first["view"]["match_id"] == player.match_id
        await player.ws.close()


async def test_a_python_load_player_the_server_keeps_refusing_is_turned_away_without_a_socket(
    make_client, monkeypatch
):
    client = await make_client(bot_delay=0)
    monkeypatch.setattr(python_load, "BUSY_FOR", 0.5)
    refused = _refuse_first(client, 1000)
    async with aiohttp.ClientSession() as session:
        player = _player(client, session)
        with pytest.raises(Refused, match="stayed busy"):
            await asyncio.wait_for(player.setup(), 20)
        assert len(refused) >= 2 and player.ws is None  # no socket left for the server to close
