"""The browser's notation parser (clients/web/js/notation.js, under Node: tests/js/notation.mjs)
reads exactly what the Python formatter wrote: recorded matches (whole, in play, resigned) and
a name with quotes, a backslash and a newline; and it refuses malformed text at the same line."""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

import msgspec

from server.wire import messages as w
from server.wire.notation import EXAMPLE, format_match

from .helpers import Socket, auth, new_match, new_player, play_match
from .node import JS, need_node


async def test_the_javascript_parser_reads_what_the_python_formatter_writes(make_client):
    node = need_node()
    client = await make_client()
    ada = await new_player(client, 'Ada "the" \\ café')
    whole = await new_match(client, ada, difficulty="easy", rules="classic")
    sock = await Socket.connect(client)
    await sock.hello(whole["match_id"], ada["token"])
    await play_match(client, [sock], seed=11)
    resigned = await new_match(client, ada)
    await client.post(f"/api/matches/{resigned['match_id']}/resign", headers=auth(ada))
    playing = await new_match(client, ada)

    cases = []
    for m in (whole, resigned, playing):
        url = f"/api/matches/{m['match_id']}/export"
        text = await (await client.get(url + "?format=text", headers=auth(ada))).text()
        body = await (await client.get(url, headers=auth(ada))).json()
        cases.append({"text": text, "export": body})
    odd = msgspec.structs.replace(
        EXAMPLE, players=[w.SeatPlayer(0, 'line\nbreak "q" \\', "human"), w.SeatPlayer(1, None, "computer")]
    )
    cases.append({"text": format_match(odd), "export": msgspec.to_builtins(odd)})
    example = format_match(EXAMPLE)
    bad = [
        {"text": example.replace('[game "Gin Rummy"]', '[game "Chess"]'), "line": 1},
        {"text": example.replace("2. 1 pass", "3. 1 pass"), "line": 23},
        {"text": example.replace("4. 0 knock Kh", "4. 0 knock"), "line": 25},
        {"text": example.replace('[upcard "Kd"]', '[upcard "Kd"]\n[upcard "Kd"]'), "line": 21},
        {"text": example.replace('[scores "0 28"]', '[scores "0 +28"]'), "line": 14},
        {"text": example.replace("1. 0 pass", "1. 0 hop"), "line": 22},
    ]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"cases": cases, "bad": bad}, f)
        path = f.name
    try:
        done = subprocess.run(
            [node, str(JS / "notation.mjs"), path], capture_output=True, text=True, timeout=60
        )
    finally:
        Path(path).unlink()
    assert done.stdout, done.stderr[-3000:]
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["failures"] == [] and done.returncode == 0, report["failures"][:3]
    assert report["cases"] == 4 and report["hands"] >= 2
