"""Bot accounts and the bot ladder over REST: a bot declared at creation and shown as one on
/api/players/me and its public page (a person shown as none); a bot refused an open challenge;
only a bot enrolls; the standings, an entrant's pairs and a bot's matches to play; every refusal
with its status and code, changing nothing. Bodies are decoded strictly with their Structs."""

from __future__ import annotations

import msgspec

from server.wire import ladder as lw
from server.wire import messages as w

from .helpers import Socket, auth, new_match, new_player
from .test_rest import error_of


async def get(client, path: str, struct, **kwargs):
    r = await client.get(path, **kwargs)
    assert r.status == 200, await r.text()
    return msgspec.json.decode(await r.read(), type=struct)


async def test_a_bot_account_is_declared_shown_kept_from_open_challenges_and_enrolls(make_client):
    client = await make_client()
    ada = await new_player(client, "Ada")
    r = await client.post(
        "/api/players", json={"name": "Robo", "bot": {"owner": "ada@example.org", "description": "greedy"}}
    )
    assert r.status == 201, await r.text()
    robo = msgspec.json.decode(await r.read(), type=w.NewPlayer)
    assert robo.bot == lw.BotInfo("ada@example.org", "greedy")
    robo_auth = {"Authorization": f"Bearer {robo.token}"}
    assert (await get(client, "/api/players/me", w.Me, headers=robo_auth)).bot == robo.bot
    assert (await get(client, "/api/players/me", w.Me, headers=auth(ada))).bot is None
    assert (await get(client, f"/api/players/{robo.player_id}/profile", w.PlayerPage)).bot == robo.bot
    assert (await get(client, f"/api/players/{ada['player_id']}/profile", w.PlayerPage)).bot is None
    # A bot needs an owner; unknown fields are refused.
    await error_of(
        await client.post("/api/players", json={"name": "X", "bot": {"owner": ""}}), 400, "bad_request"
    )
    await error_of(
        await client.post("/api/players", json={"name": "X", "bot": {"owner": "o", "colour": 1}}),
        400,
        "bad_request",
    )

    # An open challenge is for people.
    challenge = await new_match(client, ada, opponent="human", public=True)
    r = await client.post(f"/api/challenges/{challenge['match_id']}/accept", headers=robo_auth)
    await error_of(r, 403, "not_for_bots")
    assert (await get(client, "/api/challenges", w.ChallengeList)).total == 1  # still open

    # Only a bot enrolls; a bot not enrolled has no ladder matches and no pairs.
    await error_of(await client.post("/api/ladder/entries", headers=auth(ada)), 403, "forbidden")
    await error_of(await client.get("/api/ladder/matches", headers=robo_auth), 404, "not_found")
    await error_of(await client.get(f"/api/ladder/pairs?player={robo.player_id}"), 404, "not_found")
    await error_of(await client.post("/api/ladder/entries"), 401, "unauthorized")
    r = await client.post("/api/ladder/entries", headers=robo_auth)
    assert r.status == 200, await r.text()
    enrolled = msgspec.json.decode(await r.read(), type=lw.LadderEnrolled).entrant
    assert (enrolled.player_id, enrolled.kind, enrolled.rating, enrolled.games) == (
        robo.player_id,
        "bot",
        1500.0,
        0,
    )

    ladder = await get(client, "/api/ladder", lw.Ladder)
    assert ladder.on is False  # GINRUMMY_LADDER_CPU is 0 here: nothing is scheduled
    assert [(e.rank, e.player_id, e.kind) for e in ladder.entrants] == [(1, robo.player_id, "bot")]
    assert (await get(client, "/api/ladder/matches", lw.LadderMatches, headers=robo_auth)).matches == []
    pairs = await get(client, f"/api/ladder/pairs?player={robo.player_id}", lw.LadderPairs)
    assert (pairs.player_id, pairs.pairs, pairs.pairings) == (robo.player_id, [], [])
    await error_of(await client.get("/api/ladder/pairs"), 400, "bad_request")
    await error_of(await client.get(f"/api/ladder/pairs?player={robo.player_id}&limit=0"), 400, "bad_request")
    openapi = await (await client.get("/api/openapi.json")).json()
    assert {"/api/ladder", "/api/ladder/pairs", "/api/ladder/entries", "/api/ladder/matches"} <= set(
        openapi["paths"]
    )


async def test_a_bot_a_person_invited_is_shown_as_a_bot_at_the_table(make_client):
    client = await make_client()
    ada = await new_player(client, "Ada")
    r = await client.post("/api/players", json={"name": "Robo", "bot": {"owner": "ada@example.org"}})
    robo = await r.json()
    created = await new_match(client, ada, opponent="human")
    r = await client.post(
        f"/api/matches/{created['match_id']}/join",
        json={"invite": created["invite"]["code"]},
        headers=auth(robo),
    )
    assert r.status == 200, await r.text()  # an invite is a person choosing the bot: allowed
    bot_socket, ada_socket = await Socket.connect(client), await Socket.connect(client)
    seen_by_bot = await bot_socket.hello(created["match_id"], robo["token"])
    seen_by_ada = await ada_socket.hello(created["match_id"], ada["token"])
    for state in (seen_by_bot, seen_by_ada):
        players = {p["seat"]: p for p in state["view"]["players"]}
        assert (players[0]["name"], players[0]["bot"]) == ("Ada", False)
        assert (players[1]["name"], players[1]["bot"]) == ("Robo", True)
    await bot_socket.ws.close()
    await ada_socket.ws.close()
