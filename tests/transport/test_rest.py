"""The REST API: identities, creating, joining, listing and resigning matches, details, records,
stats, documents, and every error with its status and code."""

from __future__ import annotations

import pytest

from server.config import Limits

from .helpers import Socket, auth, new_match, new_player, play_match


async def error_of(response, status: int, code: str) -> dict:
    assert response.status == status, await response.text()
    body = await response.json()
    assert set(body) == {"error"}
    assert body["error"]["code"] == code
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    return body["error"]


# --- identity -----------------------------------------------------------------------------------


async def test_creating_a_player_returns_a_token_that_authenticates(make_client):
    client = await make_client()
    ada = await new_player(client, "  Ada  ")
    assert ada["name"] == "Ada" and ada["player_id"].startswith("p_") and len(ada["token"]) >= 32
    r = await client.get("/api/players/me", headers=auth(ada))
    assert (await r.json()) == {"player_id": ada["player_id"], "name": "Ada", "bot": None}


async def test_tokens_are_stored_only_as_sha256_hashes(make_client, settings):
    import hashlib
    import sqlite3

    client = await make_client()
    ada = await new_player(client)
    path = settings.database_url.split("///", 1)[1]
    with sqlite3.connect(path) as db:
        (stored,) = db.execute("SELECT token_hash FROM sessions").fetchone()
        dump = "\n".join(db.iterdump())
    assert stored == hashlib.sha256(ada["token"].encode()).hexdigest()
    assert ada["token"] not in dump


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"name": ""},
        {"name": "   "},
        {"name": "x" * 41},
        {"name": 7},
        {"name": "Ada", "admin": True},
        {"name": "a\x00b"},
    ],
)
async def test_a_bad_player_name_is_a_bad_request(make_client, body):
    client = await make_client()
    await error_of(await client.post("/api/players", json=body), 400, "bad_request")


async def test_malformed_json_is_a_bad_request(make_client):
    client = await make_client()
    r = await client.post("/api/players", data=b"{not json", headers={"Content-Type": "application/json"})
    await error_of(r, 400, "bad_request")


async def test_a_body_over_4_kib_is_too_large(make_client):
    client = await make_client()
    r = await client.post("/api/players", data=b'{"name": "' + b"x" * 5000 + b'"}')
    await error_of(r, 413, "too_large")


@pytest.mark.parametrize("header", [None, "Bearer", "Bearer nope", "Basic abc", "bearer  "])
async def test_a_missing_or_unknown_token_is_unauthorized(make_client, header):
    client = await make_client()
    headers = {"Authorization": header} if header is not None else {}
    r = await client.get("/api/matches", headers=headers)
    await error_of(r, 401, "unauthorized")
    assert r.headers["WWW-Authenticate"].startswith("Bearer")


# --- matches ------------------------------------------------------------------------------------


async def test_a_new_match_defaults_to_the_computer_at_normal_with_house_rules(make_client):
    client = await make_client()
    ada = await new_player(client)
    r = await client.post("/api/matches", headers=auth(ada))  # no body at all
    assert r.status == 201
    m = await r.json()
    assert (m["opponent"], m["difficulty"], m["rules"], m["status"]) == (
        "computer",
        "normal",
        "house",
        "active",
    )
    assert m["seat"] == 0 and m["invite"] is None and m["watch_token"]
    assert m["ws_url"].startswith("ws://") and m["ws_url"].endswith("/ws")
    assert m["players"] == [
        {"seat": 0, "name": "Ada", "kind": "human"},
        {"seat": 1, "name": "Computer (Normal)", "kind": "computer"},
    ]
    assert m["scores"] == [0, 0] and m["hand_number"] == 1 and m["winner"] is None
    assert m["created_at"].endswith("Z")


@pytest.mark.parametrize("rules", ["house", "classic", "oklahoma"])
async def test_a_match_can_be_created_with_every_preset_the_api_lists(make_client, rules):
    client = await make_client()
    ada = await new_player(client)
    listed = [r["name"] for r in (await (await client.get("/api/rules")).json())["rules"]]
    assert rules in listed
    r = await client.post("/api/matches", json={"rules": rules, "difficulty": "hard"}, headers=auth(ada))
    assert r.status == 201, await r.text()
    assert (await r.json())["rules"] == rules


@pytest.mark.parametrize(
    "body", [{"opponent": "robot"}, {"difficulty": "insane"}, {"rules": "gin-gin"}, {"colour": "red"}, []]
)
async def test_bad_match_options_are_a_bad_request(make_client, body):
    client = await make_client()
    ada = await new_player(client)
    await error_of(await client.post("/api/matches", json=body, headers=auth(ada)), 400, "bad_request")


async def test_a_human_match_waits_for_its_invite_to_be_redeemed(make_client):
    client = await make_client()
    ada, bob, eve = [await new_player(client, n) for n in ("Ada", "Bob", "Eve")]
    m = await new_match(client, ada, opponent="human", rules="classic")
    assert m["status"] == "waiting" and m["difficulty"] is None
    assert (
        m["invite"]["code"]
        and m["match_id"] in m["invite"]["url"]
        and m["invite"]["code"] in m["invite"]["url"]
    )
    url = f"/api/matches/{m['match_id']}/join"

    await error_of(await client.post(url, json={"invite": "wrong"}, headers=auth(bob)), 403, "forbidden")
    await error_of(
        await client.post(url, json={"invite": m["invite"]["code"]}, headers=auth(ada)), 409, "already_joined"
    )
    r = await client.post(url, json={"invite": m["invite"]["code"]}, headers=auth(bob))
    assert r.status == 200, await r.text()
    joined = await r.json()
    assert joined["seat"] == 1 and joined["status"] == "active" and joined["version"] == 1
    assert joined["players"][1] == {"seat": 1, "name": "Bob", "kind": "human"}
    await error_of(
        await client.post(url, json={"invite": m["invite"]["code"]}, headers=auth(eve)), 409, "match_full"
    )
    await error_of(
        await client.post(url, json={"invite": m["invite"]["code"]}, headers=auth(bob)), 409, "already_joined"
    )
    await error_of(await client.post(url, json={}, headers=auth(eve)), 400, "bad_request")


async def test_joining_a_computer_match_is_a_conflict(make_client):
    client = await make_client()
    ada, bob = await new_player(client, "Ada"), await new_player(client, "Bob")
    m = await new_match(client, ada)
    r = await client.post(f"/api/matches/{m['match_id']}/join", json={"invite": "x"}, headers=auth(bob))
    await error_of(r, 409, "conflict")


async def test_another_players_match_is_forbidden_and_an_unknown_one_not_found(make_client):
    client = await make_client()
    ada, eve = await new_player(client, "Ada"), await new_player(client, "Eve")
    m = await new_match(client, ada)
    for path in ("", "/record"):
        await error_of(
            await client.get(f"/api/matches/{m['match_id']}{path}", headers=auth(eve)), 403, "forbidden"
        )
        await error_of(await client.get(f"/api/matches/m_nope{path}", headers=auth(eve)), 404, "not_found")
    await error_of(
        await client.post(f"/api/matches/{m['match_id']}/resign", headers=auth(eve)), 403, "forbidden"
    )
    await error_of(await client.post("/api/matches/m_nope/resign", headers=auth(eve)), 404, "not_found")
    await error_of(
        await client.post("/api/matches/m_nope/join", json={"invite": "x"}, headers=auth(eve)),
        404,
        "not_found",
    )


async def test_unknown_routes_and_methods_answer_json_errors(make_client):
    client = await make_client()
    await error_of(await client.get("/api/nothing"), 404, "not_found")
    r = await client.delete("/api/players")
    assert r.status == 405
    assert (await r.json())["error"]["code"] == "bad_request"


async def test_the_match_list_is_the_callers_newest_first_filtered_and_paginated(make_client):
    client = await make_client()
    ada, bob = await new_player(client, "Ada"), await new_player(client, "Bob")
    made = [
        await new_match(client, ada, difficulty="easy"),
        await new_match(client, ada, rules="classic"),
        await new_match(client, ada, opponent="human"),
        await new_match(client, bob),
    ]
    r = await client.get("/api/matches", headers=auth(ada))
    page = await r.json()
    assert page["total"] == 3 and page["limit"] == 20 and page["offset"] == 0
    assert [m["match_id"] for m in page["matches"]] == [m["match_id"] for m in reversed(made[:3])]

    async def ids(query: str) -> list[str]:
        r = await client.get(f"/api/matches?{query}", headers=auth(ada))
        assert r.status == 200, await r.text()
        return [m["match_id"] for m in (await r.json())["matches"]]

    assert await ids("status=waiting") == [made[2]["match_id"]]
    assert await ids("rules=classic") == [made[1]["match_id"]]
    assert await ids("opponent=computer") == [made[1]["match_id"], made[0]["match_id"]]
    assert await ids("limit=1&offset=1") == [made[1]["match_id"]]
    assert await ids("offset=3") == []
    for bad in ("status=over", "limit=0", "limit=101", "limit=x", "offset=-1", "colour=red", "rules=x"):
        await error_of(await client.get(f"/api/matches?{bad}", headers=auth(ada)), 400, "bad_request")


@pytest.mark.parametrize(
    "path", ["/api/matches", "/api/leaderboard", "/api/challenges", "/api/players/me/rating/history"]
)
async def test_every_wrong_limit_gets_one_message_naming_the_true_range(make_client, path):
    client = await make_client()
    ada = await new_player(client)
    for bad in ("0", "101", "-1", "abc", "1e3"):
        r = await client.get(f"{path}?limit={bad}", headers=auth(ada))
        error = await error_of(r, 400, "bad_request")
        assert error["message"] == "limit must be a whole number between 1 and 100", (path, bad)
    error = await error_of(await client.get(f"{path}?offset=-1", headers=auth(ada)), 400, "bad_request")
    assert error["message"] == "offset must be a whole number between 0 and 2147483647"


async def test_the_record_is_a_conflict_until_the_match_is_over(make_client):
    client = await make_client()
    ada = await new_player(client)
    m = await new_match(client, ada)
    r = await client.get(f"/api/matches/{m['match_id']}/record", headers=auth(ada))
    await error_of(r, 409, "match_not_over")


async def test_resigning_ends_the_match_and_a_second_resign_is_match_over(make_client):
    client = await make_client()
    ada = await new_player(client)
    m = await new_match(client, ada)
    r = await client.post(f"/api/matches/{m['match_id']}/resign", headers=auth(ada))
    assert r.status == 200
    s = await r.json()
    assert s["status"] == "finished" and s["winner"] == 1 and s["outcome"]["reason"] == "resign"
    assert s["version"] > m["version"]
    await error_of(
        await client.post(f"/api/matches/{m['match_id']}/resign", headers=auth(ada)), 409, "match_over"
    )
    r = await client.get(f"/api/matches/{m['match_id']}/record", headers=auth(ada))
    record = await r.json()
    assert record["outcome"]["reason"] == "resign" and record["hands"][0]["result"] is None
    stats = await (await client.get("/api/players/me/stats", headers=auth(ada))).json()
    assert (stats["matches"], stats["wins"], stats["losses"]) == (1, 0, 1)


async def test_resigning_a_match_nobody_joined_is_a_conflict(make_client):
    client = await make_client()
    ada = await new_player(client)
    m = await new_match(client, ada, opponent="human")
    await error_of(
        await client.post(f"/api/matches/{m['match_id']}/resign", headers=auth(ada)), 409, "conflict"
    )


async def test_history_record_and_stats_after_a_whole_match(make_client):
    client = await make_client()
    ada = await new_player(client)
    m = await new_match(client, ada, difficulty="easy")
    sock = await Socket.connect(client)
    await sock.hello(m["match_id"], ada["token"])
    (final,) = await play_match(client, [sock], seed=3)
    view = final["view"]

    details = await (await client.get(f"/api/matches/{m['match_id']}", headers=auth(ada))).json()
    assert details["status"] == "finished" and details["scores"] == view["scores"]
    assert details["version"] == final["version"]
    hands = details["hands"]
    assert [h["number"] for h in hands] == list(range(1, len(hands) + 1))
    assert all(h["kind"] in ("gin", "knock", "undercut", "dead") and h["breakdown"] for h in hands)
    for seat in (0, 1):
        assert sum(h["points"] for h in hands if h["winner"] == seat) == view["scores"][seat]

    record = await (await client.get(f"/api/matches/{m['match_id']}/record", headers=auth(ada))).json()
    assert record["first_starter"] in (0, 1) and record["outcome"] == view["outcome"]
    assert record["deal"] == "sha256" and record["seed"] is None  # the match seed is never shown
    assert len(record["hands"]) == len(hands)
    for deal, result in zip(record["hands"], hands, strict=True):
        assert len(deal["stock"]) == 31 and all(len(h) == 10 for h in deal["hands"])
        assert deal["result"]["points"] == result["points"]
    # Each recorded deal and its actions replay to the same scores through the rules engine.
    from server.rules import RULES, Action, best_arrangement, new_hand

    scores = [0, 0]

    def melds(hand) -> list[list[list[str]]]:
        return [[[c.code for c in m.cards] for m in best_arrangement(hand.hand(s)).melds] for s in (0, 1)]

    for deal in record["hands"]:
        hand = new_hand(RULES[record["rules"]], deal["starter"], deal["hands"], deal["upcard"], deal["stock"])
        # The replay's melds at every step are both hands' best arrangements at that step.
        steps = deal["melds_by_step"]
        assert len(steps) == len(deal["actions"]) + 1 and steps[0] == melds(hand)
        for a, step in zip(deal["actions"], steps[1:], strict=True):
            hand.apply(Action.from_wire(a["action"]), a["seat"])
            assert step == melds(hand)
        assert hand.result is not None
        if hand.result.winner is not None:
            scores[hand.result.winner] += hand.result.points
    assert scores == view["scores"]

    stats = await (await client.get("/api/players/me/stats", headers=auth(ada))).json()
    won = view["outcome"]["winner"] == 0
    assert stats["matches"] == 1 and stats["wins"] == int(won) and stats["losses"] == int(not won)
    assert stats["hands"] == len(hands)
    assert stats["hands_won"] == sum(1 for h in hands if h["winner"] == 0)
    assert stats["gins"] == sum(1 for h in hands if h["winner"] == 0 and h["kind"] == "gin")
    assert stats["undercuts"] == sum(1 for h in hands if h["winner"] == 0 and h["kind"] == "undercut")
    assert stats["points"] == view["scores"][0]

    finished = await (await client.get("/api/matches?status=finished", headers=auth(ada))).json()
    assert [x["match_id"] for x in finished["matches"]] == [m["match_id"]]


# --- documents, health, metrics, limits ---------------------------------------------------------


async def test_rules_openapi_docs_health_and_metrics_are_served(make_client):
    client = await make_client()
    rules = await (await client.get("/api/rules")).json()
    assert {r["name"] for r in rules["rules"]} == {"house", "classic", "oklahoma"}
    assert {r["label"] for r in rules["rules"]} == {"House rules", "Classic rules", "Oklahoma"}
    difficulties = await (await client.get("/api/difficulties")).json()
    assert [d["name"] for d in difficulties["difficulties"]] == ["easy", "normal", "hard"]
    assert all(d["label"] and d["description"] for d in difficulties["difficulties"])
    doc = await (await client.get("/api/openapi.json")).json()
    assert doc["openapi"].startswith("3.")
    assert {"/api/players", "/api/matches", "/api/matches/{match_id}/join", "/api/players/me/stats"} <= set(
        doc["paths"]
    )
    assert "CreateMatch" in doc["components"]["schemas"]
    page = await client.get("/api/docs")
    assert page.status == 200 and "text/html" in page.headers["Content-Type"]
    assert "/api/matches/{match_id}/record" in await page.text()
    assert await (await client.get("/healthz")).json() == {"status": "ok"}
    await new_player(client)
    metrics = await client.get("/metrics")
    text = await metrics.text()
    assert metrics.status == 200 and "ginrummy_players_created_total 1.0" in text
    assert 'ginrummy_http_requests_total{method="POST",route="/api/players",status="201"} 1.0' in text


async def test_too_many_new_players_from_one_address_is_rate_limited(make_client):
    client = await make_client(limits=Limits(players_rate="3/minute"))
    for _ in range(3):
        await new_player(client)
    r = await client.post("/api/players", json={"name": "Ada"})
    error = await error_of(r, 429, "rate_limited")
    assert error["limit"] == "players" and 0 < error["reset_in"] <= 60
    assert 1 <= int(r.headers["Retry-After"]) <= 60


async def test_too_many_requests_with_one_token_is_rate_limited(make_client):
    client = await make_client(limits=Limits(requests_rate="5/minute"))
    ada = await new_player(client)
    for _ in range(5):
        assert (await client.get("/api/matches", headers=auth(ada))).status == 200
    error = await error_of(await client.get("/api/matches", headers=auth(ada)), 429, "rate_limited")
    assert error["limit"] == "requests"


async def test_every_summary_says_the_callers_seat(make_client):
    client = await make_client()
    ada, bob = await new_player(client, "Ada"), await new_player(client, "Ada")  # same name, two players
    m = await new_match(client, ada, opponent="human")
    assert m["seat"] == 0
    r = await client.post(
        f"/api/matches/{m['match_id']}/join", json={"invite": m["invite"]["code"]}, headers=auth(bob)
    )
    assert (await r.json())["seat"] == 1
    for player, seat in ((ada, 0), (bob, 1)):
        listed = await (await client.get("/api/matches", headers=auth(player))).json()
        assert [x["seat"] for x in listed["matches"]] == [seat]
        details = await (await client.get(f"/api/matches/{m['match_id']}", headers=auth(player))).json()
        assert details["seat"] == seat
    resigned = await (await client.post(f"/api/matches/{m['match_id']}/resign", headers=auth(bob))).json()
    assert resigned["seat"] == 1 and resigned["winner"] == 0
    for player, seat in ((ada, 0), (bob, 1)):
        record = await (await client.get(f"/api/matches/{m['match_id']}/record", headers=auth(player))).json()
        assert record["seat"] == seat
