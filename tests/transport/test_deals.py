"""Verifiable deals through the server: a real match between two humans with a watcher. Every
hand's commitment is shown to both seats and the watcher from the deal and never changes; no
message, endpoint or record shows a hand's seed before that hand is over, nor ever the match
seed; the record's seeds re-derive every deal in the Python client and in a second, JavaScript
implementation under Node (the browser's own module, tests/js/deals.mjs)."""

from __future__ import annotations

import copy
import json
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from ginrummy_client import verify

from server.transport.keys import SERVICE
from tests.rules.test_deals import doc_vectors

from .helpers import auth, play_match
from .node import JS, need_node
from .test_play import drain_until_finished, human_vs_human


def node_deals(payload: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    node = need_node()
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(payload, f)
        path = f.name
    try:
        done = subprocess.run(
            [node, str(JS / "deals.mjs"), path], capture_output=True, text=True, timeout=120
        )
    finally:
        Path(path).unlink()
    assert done.stdout, done.stderr[-3000:]
    return done.returncode, json.loads(done.stdout.splitlines()[-1])


async def test_a_played_match_commits_to_every_deal_and_the_record_proves_them(make_client):
    client = await make_client()
    m, ada, a, b, w = await human_vs_human(client, rules="house")
    match_id = m["match_id"]
    meta = await client.app[SERVICE].store.load_meta(match_id)
    assert meta is not None and meta.deal == "sha256"

    # Before the match is over: the record is refused, the details carry no seed.
    r = await client.get(f"/api/matches/{match_id}/record", headers=auth(ada))
    assert r.status == 409 and (await r.json())["error"]["code"] == "match_not_over"
    during = await (await client.get(f"/api/matches/{match_id}", headers=auth(ada))).text()

    await play_match(client, [a, b], seed=7)
    await drain_until_finished(w)
    after = await (await client.get(f"/api/matches/{match_id}", headers=auth(ada))).text()
    record = await (await client.get(f"/api/matches/{match_id}/record", headers=auth(ada))).json()
    assert record["deal"] == "sha256" and record["seed"] is None
    hands = {h["number"]: h for h in record["hands"]}
    assert len(hands) > 1 and all(h["seed"] for h in hands.values())

    # Each hand's commitment, as every seat and the watcher saw it from its first state on.
    for sock in (a, b, w):
        seen: dict[int, set[str]] = {}
        for msg in sock.messages:
            if msg["type"] == "state":
                view = msg["view"]
                seen.setdefault(view["hand_number"], set()).add(view["hand"]["deal_commitment"])
        assert seen == {n: {h["deal_commitment"]} for n, h in hands.items()}

    # Hidden information: no message to anyone, and no REST answer, names a hand's seed while
    # it is played (a hand's seed is in no message at all: only the record reveals it), nor the
    # match seed.
    secrets = [meta.seed, *(h["seed"] for h in hands.values())]
    texts = [json.dumps(msg) for s in (a, b, w) for msg in s.messages] + [during, after]
    assert not [s for s in secrets for t in texts if s in t]
    assert meta.seed not in json.dumps(record)

    # Verified by the Python client, and by the JavaScript implementation.
    commitments = {n: h["deal_commitment"] for n, h in hands.items()}
    assert verify(record, commitments).ok
    tampered = copy.deepcopy(record)
    stock = tampered["hands"][0]["stock"]
    stock[0], stock[1] = stock[1], stock[0]
    assert not verify(tampered).ok
    changed = {match_id: {**commitments, 1: "0" * 64}}
    code, report = node_deals(
        {
            "vectors": doc_vectors(),
            "records": [record],
            "seen": {match_id: commitments},
            "tampered": [tampered],
            "changed": changed,
        }
    )
    assert code == 0 and report["failures"] == [], report
    assert report == {"vectors": 2, "hands": len(hands), "failures": []}


def test_the_javascript_implementation_fails_a_wrong_deal():
    wrong = [dict(v, deck=" ".join(reversed(v["deck"].split()))) for v in doc_vectors()]
    code, report = node_deals({"vectors": wrong, "records": []})
    assert code == 1 and [f["what"] for f in report["failures"]] == ["deck", "deck"]
