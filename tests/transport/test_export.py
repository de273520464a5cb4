"""Exports: one match as JSON or the text notation, all of a player's finished matches as NDJSON
(paged from the store), the history filters, and every bad parameter's error. What an export of
a match in progress shows: the asking seat's own cards and the public actions, nothing else."""

from __future__ import annotations

import datetime as dt
import json

import msgspec

from server.rules import RULES, Action, deal_named, new_hand
from server.service import exports
from server.transport.keys import SERVICE
from server.wire.export import ExportedMatch
from server.wire.notation import format_match, parse_match

from .helpers import CARD_CODE, Socket, auth, choose, new_match, new_player, play_match
from .test_rest import error_of


async def _export(client, player, match_id, fmt="json"):
    r = await client.get(f"/api/matches/{match_id}/export?format={fmt}", headers=auth(player))
    assert r.status == 200, await r.text()
    return (await r.json()) if fmt == "json" else (r, await r.text())


async def test_a_finished_match_exports_as_json_and_text_that_round_trip_and_replay(make_client):
    client = await make_client()
    ada = await new_player(client)
    m = await new_match(client, ada, difficulty="easy", rules="oklahoma")
    sock = await Socket.connect(client)
    await sock.hello(m["match_id"], ada["token"])
    (final,) = await play_match(client, [sock], seed=5)
    body = await _export(client, ada, m["match_id"])
    r, text = await _export(client, ada, m["match_id"], "text")
    assert r.content_type == "text/plain" and "attachment" in r.headers["Content-Disposition"]
    export = msgspec.convert(body, ExportedMatch)
    assert parse_match(text) == export and format_match(parse_match(text)) == text
    assert text.startswith('[game "Gin Rummy"]\n') and "\n1. " in text

    record = await (await client.get(f"/api/matches/{m['match_id']}/record", headers=auth(ada))).json()
    assert export.outcome is not None and body["outcome"] == final["view"]["outcome"]
    scores = [0, 0]
    for hand, deal in zip(parse_match(text).hands, record["hands"], strict=True):
        assert hand.seed == deal["seed"] and hand.stock == deal["stock"] and hand.hands == deal["hands"]
        # The parsed notation replays through the rules to the very results it states.
        assert hand.hands[0] is not None and hand.hands[1] is not None and hand.stock is not None
        state = new_hand(RULES[export.rules], hand.starter, hand.hands, hand.upcard, hand.stock)
        for a in hand.actions:
            state.apply(Action.from_wire(msgspec.to_builtins(a.action)), a.seat)
            if a.drawn is not None:
                assert a.drawn in [c.code for c in state.hand(a.seat)]
        assert state.result is not None and hand.result is not None
        assert (state.result.kind.value, state.result.winner, state.result.points) == (
            hand.result.kind.value,
            hand.result.winner,
            hand.result.points,
        )
        if state.result.winner is not None:
            scores[state.result.winner] += state.result.points
    assert scores == final["view"]["scores"]


async def _a_few_moves_into_the_first_hand(client, ada):
    """A match against the computer with a few moves of each seat played, our turn again and the
    first hand still on (the computer may knock first on a random deal: then a new match)."""
    import random

    rng = random.Random(1)
    for _ in range(10):
        m = await new_match(client, ada, difficulty="easy")
        sock = await Socket.connect(client)
        state = await sock.hello(m["match_id"], ada["token"])
        acted = 0
        while state["view"]["hand_number"] == 1:
            legal = state["view"]["hand"]["legal_actions"]
            if legal and (acted >= 6 or any(a["kind"] == "knock" for a in legal)):
                return m, sock
            if legal:
                await sock.act(choose(state["view"], rng))
                acted += 1
            state = await sock.recv_until("state")
        await sock.ws.close()
    raise AssertionError("ten deals in a row ended before a few moves")


async def test_an_export_in_play_shows_only_the_seats_own_cards_and_public_actions(make_client):
    client = await make_client()
    ada, eve = await new_player(client), await new_player(client, "Eve")
    m, _sock = await _a_few_moves_into_the_first_hand(client, ada)  # (the socket kept open)
    body = await _export(client, ada, m["match_id"])
    _, text = await _export(client, ada, m["match_id"], "text")
    assert body["status"] == "active" and body["seed"] is None and body["outcome"] is None
    (hand,) = body["hands"]
    assert hand["hands"][1] is None and hand["stock"] is None and hand["seed"] is None
    assert hand["hands"][0] and hand["deal_commitment"]
    assert all(a["drawn"] is None for a in hand["actions"] if a["action"].get("source") == "stock")
    # Every card named anywhere is the seat's own, the upcard, or one shown face up since.
    public = {hand["upcard"], *(a["action"]["card"] for a in hand["actions"] if "card" in a["action"])}
    allowed = set(hand["hands"][0]) | public
    assert set(CARD_CODE.findall(text)) <= allowed
    assert set(CARD_CODE.findall(json.dumps(body))) <= allowed
    # Nor the match's seed or the hand's, in either form, nor the stock in its order.
    meta = await client.app[SERVICE].store.load_meta(m["match_id"])
    scheme = deal_named(meta.deal)
    secrets = [meta.seed, scheme.hand_seed(meta.seed, 1)]
    assert scheme.commitment(secrets[1]) == hand["deal_commitment"]  # (the very seed of this hand)
    assert not [s for s in secrets if s in text or s in json.dumps(body)]
    # Resigned, the match is over but its unfinished hand still hides the other hand and stock.
    await client.post(f"/api/matches/{m['match_id']}/resign", headers=auth(ada))
    after = await _export(client, ada, m["match_id"])
    assert after["status"] == "finished" and after["hands"][-1]["hands"][1] is None
    assert after["hands"][-1]["stock"] is None and after["hands"][-1]["seed"] is None
    # So does the record (the replay): no card of it but the seat's own and the public ones.
    record = await (await client.get(f"/api/matches/{m['match_id']}/record", headers=auth(ada))).json()
    (kept,) = record["hands"]
    assert kept["hands"][1] is None and kept["stock"] is None and kept["seed"] is None
    assert all(step[1] == [] for step in kept["melds_by_step"])
    live = await client.app[SERVICE].cache.get(m["match_id"])
    theirs = {c.code for c in live.state.log[0].hands[1]} - public  # (seat 1's, never shown)
    assert theirs and not theirs & set(CARD_CODE.findall(json.dumps(record["hands"])))
    await error_of(
        await client.get(f"/api/matches/{m['match_id']}/export", headers=auth(eve)), 403, "forbidden"
    )


async def test_export_errors_for_bad_parameters(make_client):
    client = await make_client()
    ada, eve = await new_player(client), await new_player(client, "Eve")
    m = await new_match(client, ada)
    url = f"/api/matches/{m['match_id']}/export"
    await error_of(await client.get(url + "?format=xml", headers=auth(ada)), 400, "bad_request")
    await error_of(await client.get(url + "?page=2", headers=auth(ada)), 400, "bad_request")
    await error_of(await client.get(url), 401, "unauthorized")
    await error_of(await client.get("/api/matches/m_nope/export", headers=auth(ada)), 404, "not_found")
    r = await client.get(f"/api/players/{eve['player_id']}/export", headers=auth(ada))
    await error_of(r, 403, "forbidden")
    await error_of(await client.get("/api/players/me/export?x=1", headers=auth(ada)), 400, "bad_request")


async def test_all_finished_matches_stream_as_ndjson_page_by_page(make_client, monkeypatch):
    monkeypatch.setattr(exports, "EXPORT_PAGE", 2)
    client = await make_client()
    ada = await new_player(client)
    ids = []
    for rules in ("house", "classic", "oklahoma", "house", "classic"):
        m = await new_match(client, ada, rules=rules)
        await client.post(f"/api/matches/{m['match_id']}/resign", headers=auth(ada))
        ids.append(m["match_id"])
    await new_match(client, ada)  # in play: not exported
    r = await client.get(f"/api/players/{ada['player_id']}/export", headers=auth(ada))
    assert r.status == 200 and r.content_type == "application/x-ndjson"
    text = await r.text()
    assert text.endswith("\n")
    lines = [msgspec.json.decode(line, type=ExportedMatch) for line in text.splitlines()]
    assert sorted(e.match_id for e in lines) == sorted(ids) and len(lines) == 5
    assert all(e.status == "finished" and e.outcome is not None for e in lines)
    assert [e.created_at for e in lines] == sorted((e.created_at for e in lines), reverse=True)
    me = await (await client.get("/api/players/me/export", headers=auth(ada))).text()
    assert me == text
    bob = await new_player(client, "Bob")
    empty = await client.get("/api/players/me/export", headers=auth(bob))
    assert empty.status == 200 and await empty.text() == ""


async def test_history_filters_by_rules_opponent_result_and_date(make_client):
    client = await make_client()
    ada, bob = await new_player(client), await new_player(client, "Bob")
    lost = await new_match(client, ada, rules="classic")
    await client.post(f"/api/matches/{lost['match_id']}/resign", headers=auth(ada))
    won = await new_match(client, ada, opponent="human")
    await client.post(
        f"/api/matches/{won['match_id']}/join", json={"invite": won["invite"]["code"]}, headers=auth(bob)
    )
    await client.post(f"/api/matches/{won['match_id']}/resign", headers=auth(bob))
    await new_match(client, ada)  # in play: neither won nor lost

    async def ids(query: str) -> list[str]:
        r = await client.get(f"/api/matches?{query}", headers=auth(ada))
        assert r.status == 200, await r.text()
        return [m["match_id"] for m in (await r.json())["matches"]]

    assert await ids("result=won") == [won["match_id"]]
    assert await ids("result=lost") == [lost["match_id"]]
    assert await ids("result=lost&rules=house") == []
    assert await ids("status=finished&opponent=human") == [won["match_id"]]
    today = dt.datetime.now(dt.UTC).date()
    assert len(await ids(f"since={today}&until={today}")) == 3
    assert await ids(f"until={today - dt.timedelta(days=1)}") == []
    assert await ids(f"since={today + dt.timedelta(days=1)}") == []
    for bad in (
        "result=draw",
        "since=yesterday",
        "until=2026-13-01",
        "since=2026-1-1",
        "since=2026-12-02&until=2026-12-01",
    ):
        await error_of(await client.get(f"/api/matches?{bad}", headers=auth(ada)), 400, "bad_request")
