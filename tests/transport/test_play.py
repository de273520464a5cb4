"""Whole matches through the WebSocket, choosing only from ``legal_actions``."""

from __future__ import annotations

import pytest

from .helpers import CARD_CODE, Socket, auth, check_no_leaks, new_match, new_player, play_match


@pytest.mark.parametrize("difficulty", ["easy", "normal", "hard"])
async def test_a_match_against_each_computer_level_plays_to_the_end(make_client, difficulty):
    client = await make_client()
    ada = await new_player(client)
    match = await new_match(client, ada, difficulty=difficulty)
    assert match["status"] == "active" and match["seat"] == 0
    sock = await Socket.connect(client)
    first = await sock.hello(match["match_id"], ada["token"])
    assert first["type"] == "state" and first["view"]["seat"] == 0
    (final,) = await play_match(client, [sock], seed=hash(difficulty) % 1000)
    view = final["view"]
    assert view["outcome"]["reason"] == "target"
    assert max(view["scores"]) >= 100
    r = await client.get(f"/api/matches/{match['match_id']}/record", headers=auth(ada))
    assert r.status == 200
    record = await r.json()
    assert check_no_leaks(record, sock.messages, 0) > 10


async def human_vs_human(client, rules="house"):
    ada, bob = await new_player(client, "Ada"), await new_player(client, "Bob")
    m = await new_match(client, ada, opponent="human", rules=rules)
    r = await client.post(
        f"/api/matches/{m['match_id']}/join", json={"invite": m["invite"]["code"]}, headers=auth(bob)
    )
    assert r.status == 200
    a, b, w = await Socket.connect(client), await Socket.connect(client), await Socket.connect(client)
    await a.hello(m["match_id"], ada["token"])
    await b.hello(m["match_id"], bob["token"])
    await w.hello(m["match_id"], m["watch_token"])
    return m, ada, a, b, w


async def drain_until_finished(sock: Socket) -> None:
    while not (sock.state and sock.state["view"]["status"] == "finished"):
        await sock.recv_until("state")


async def test_two_humans_play_a_whole_match_while_a_watcher_follows(make_client):
    client = await make_client()
    m, ada, a, b, w = await human_vs_human(client, rules="classic")
    finals = await play_match(client, [a, b], seed=11)
    await drain_until_finished(w)
    assert finals[0]["version"] == finals[1]["version"] == w.state["version"]
    outcome = finals[0]["view"]["outcome"]
    assert outcome == finals[1]["view"]["outcome"] == w.state["view"]["outcome"]
    assert outcome["reason"] == "target"
    # Classic adds the box and game bonuses at the end.
    winner = outcome["totals"][outcome["winner"]]
    assert (
        winner["game_bonus"] in (100, 200)
        and winner["box_bonus"] == 25 * finals[0]["view"]["hands_won"][outcome["winner"]]
    )
    assert finals[0]["view"]["status_line"] != finals[1]["view"]["status_line"]
    record = await (await client.get(f"/api/matches/{m['match_id']}/record", headers=auth(ada))).json()
    assert check_no_leaks(record, a.messages, 0) and check_no_leaks(record, b.messages, 1)
    assert check_no_leaks(record, w.messages, None)


async def test_no_message_of_many_matches_shows_a_hidden_card(make_client):
    """Every state sent to every seat and watcher over many matches, checked against the truth
    replayed from the records: no card of the other hand or of the stock before a result
    reveals it, and never a hand card to a watcher."""
    client = await make_client()
    checked = 0
    for i in range(3):
        m, ada, a, b, w = await human_vs_human(client, rules=("house", "classic")[i % 2])
        await play_match(client, [a, b], seed=100 + i)
        await drain_until_finished(w)
        record = await (await client.get(f"/api/matches/{m['match_id']}/record", headers=auth(ada))).json()
        checked += check_no_leaks(record, a.messages, 0) + check_no_leaks(record, b.messages, 1)
        checked += check_no_leaks(record, w.messages, None)
    for i, level in enumerate(("easy", "normal")):
        ada = await new_player(client)
        m = await new_match(client, ada, difficulty=level)
        a, w = await Socket.connect(client), await Socket.connect(client)
        await a.hello(m["match_id"], ada["token"])
        await w.hello(m["match_id"], m["watch_token"])
        await play_match(client, [a], seed=200 + i)
        await drain_until_finished(w)
        record = await (await client.get(f"/api/matches/{m['match_id']}/record", headers=auth(ada))).json()
        checked += check_no_leaks(record, a.messages, 0) + check_no_leaks(record, w.messages, None)
    assert checked > 1000


async def test_log_lines_never_name_a_card(make_client, caplog):
    import logging

    caplog.set_level(logging.DEBUG, logger="server")
    client = await make_client()
    ada = await new_player(client)
    m = await new_match(client, ada)
    sock = await Socket.connect(client)
    await sock.hello(m["match_id"], ada["token"])
    await play_match(client, [sock], seed=5)
    records = [r for r in caplog.records if r.name.startswith("server")]
    assert any(getattr(r, "match_id", None) == m["match_id"] for r in records)
    for r in records:
        fields = {
            k: v
            for k, v in vars(r).items()
            if k not in logging.makeLogRecord({}).__dict__ and not k.endswith("_id")
        }
        assert not CARD_CODE.search(r.getMessage()), r.getMessage()
        assert not CARD_CODE.search(repr(fields)), fields
        assert not {"hand", "hands", "stock", "seed", "card", "cards"} & set(fields)
