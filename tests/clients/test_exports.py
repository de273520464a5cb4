"""The Python client's exports against a real server: one match as JSON and text, every finished
match from the NDJSON stream, the history filters, and the CLI writing files."""

from __future__ import annotations

import asyncio
import json

import pytest
from ginrummy_client import Forbidden, GinRummyClient
from ginrummy_client.__main__ import main
from ginrummy_client.arena import run_arena
from ginrummy_client.strategies import quick

pytestmark = pytest.mark.timeout(120)


async def test_the_client_exports_a_match_and_streams_all_finished_ones(base_url, tmp_path):
    client = GinRummyClient(base_url)
    me = await client.create_player("Ada")
    await run_arena(base_url, quick, difficulty="easy", matches=1, token=me.token, write=lambda _: None)
    resigned = await client.create_match(rules="classic")
    await client.resign(resigned.match_id)
    playing = await client.create_match()

    exported = [e async for e in client.export_all()]
    assert len(exported) == 2 and {e["status"] for e in exported} == {"finished"}
    assert exported[0]["match_id"] == resigned.match_id  # newest first
    whole = exported[1]
    assert whole["outcome"]["reason"] == "target" and all(h["seed"] for h in whole["hands"])
    assert await client.export(whole["match_id"]) == whole
    text = await client.export(whole["match_id"], "text")
    assert text.startswith('[game "Gin Rummy"]\n') and f'[match_id "{whole["match_id"]}"]' in text
    in_play = await client.export(playing.match_id)
    assert in_play["status"] == "active" and in_play["hands"][0]["hands"][1] is None
    with pytest.raises(ValueError):
        await client.export(playing.match_id, "xml")

    lost, _ = await client.list_matches(result="lost")
    assert resigned.match_id in [m.match_id for m in lost]
    classic, _ = await client.list_matches(rules="classic", status="finished")
    assert [m.match_id for m in classic] == [resigned.match_id]

    other = GinRummyClient(base_url)
    await other.create_player("Eve")
    with pytest.raises(Forbidden):
        [e async for e in other.export_all(me.player_id)]
    assert [e async for e in other.export_all()] == []

    # The CLI writes one file per match, and every finished match into one NDJSON file.
    args = ["--server", base_url, "--token", me.token, "--dir", str(tmp_path)]
    code = await asyncio.to_thread(main, ["export", whole["match_id"], "--format", "text", *args])
    assert code == 0 and (tmp_path / f"{whole['match_id']}.txt").read_text(encoding="utf-8") == text
    code = await asyncio.to_thread(main, ["export", "--all", *args])
    lines = (tmp_path / "matches.ndjson").read_text(encoding="utf-8").splitlines()
    assert code == 0 and [json.loads(line) for line in lines] == exported
    assert await asyncio.to_thread(main, ["export", "--server", base_url, "--token", me.token]) == 1
