"""The example bot joins the bot ladder with one command, over a live server and only the
public protocol: it registers as a bot, enrolls, and plays both matches of its first pair (the
same deals twice, seats swapped) against the Easy reference, which the server plays within its
CPU budget; the pair is then counted in both ladder ratings."""

from __future__ import annotations

import asyncio

from ginrummy_client import GinRummyClient

from ..live_server import live_server
from .live import example_bot


async def test_the_example_bot_plays_a_ladder_pair_against_a_reference(tmp_path):
    env = {"GINRUMMY_LADDER_CPU": "1", "GINRUMMY_LADDER_REFERENCES": "easy", "GINRUMMY_BOT_WORKERS": "0"}
    with live_server(tmp_path, extra_env=env) as base_url:
        args = ("--server", base_url, "--ladder", "--owner", "tests", "--matches", "2")
        async with example_bot(*args) as bot:
            stdout, stderr = await asyncio.wait_for(bot.communicate(), 120)
        assert bot.returncode == 0, stderr.decode()
        lines = stdout.decode().splitlines()
        assert "enrolled in the ladder" in lines[0]
        bot_id = lines[0].split("(")[1].split(")")[0]
        assert sum(line.startswith("ladder match ") for line in lines) == 2

        client = GinRummyClient(base_url)
        for _ in range(100):  # the pair is counted just after its second match ends
            pairs = await client.ladder_pairs(bot_id)
            if pairs["pairs"] and pairs["pairs"][0]["status"] == "finished":
                break
            await asyncio.sleep(0.1)
        [pair] = [p for p in pairs["pairs"] if p["status"] == "finished"]
        assert {pair["a"], pair["b"]} == {bot_id, "ladder-easy"}
        first, second = pair["match_ids"]
        viewer = GinRummyClient(base_url)
        await viewer.create_player("Viewer")
        standings = {s.player_id: s for s in await client.ladder()}
        assert standings[bot_id].kind == "bot" and standings[bot_id].games == 1
        assert standings["ladder-easy"].kind == "reference" and standings["ladder-easy"].games == 1
        assert standings[bot_id].deviation < 350
        [pairing] = pairs["pairings"]
        assert pairing["opponent_id"] == "ladder-easy" and pairing["pairs"] == 1
        assert first != second
