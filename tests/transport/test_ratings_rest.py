"""Ratings and the lobby over REST: a rated match created, listed as an open challenge, accepted
and resigned; the ratings, history, player page, leaderboard and lobby counts that follow; the
computer levels' published ratings; and every refusal with its status and code. Every body is
decoded strictly with its wire Struct (an undocumented field fails)."""

from __future__ import annotations

import msgspec
import pytest

from server.wire import messages as w

from .helpers import auth, new_match, new_player
from .test_rest import error_of


async def get(client, path: str, struct, **kwargs):
    r = await client.get(path, **kwargs)
    assert r.status == 200, await r.text()
    return msgspec.json.decode(await r.read(), type=struct)


async def test_a_public_rated_challenge_from_creation_to_ratings(make_client):
    client = await make_client()
    ada, bob = await new_player(client, "Ada"), await new_player(client, "Bob")
    created = await new_match(client, ada, opponent="human", rated=True, public=True)
    assert created["rated"] is True and created["public"] is True and created["status"] == "waiting"

    listed = await get(client, "/api/challenges", w.ChallengeList)
    assert listed.total == 1
    c = listed.challenges[0]
    assert (c.match_id, c.creator, c.creator_id, c.rated, c.rules) == (
        created["match_id"],
        "Ada",
        ada["player_id"],
        True,
        "house",
    )
    assert c.rating is None and c.provisional  # not rated yet
    assert (await get(client, "/api/lobby", w.Lobby)) == w.Lobby(waiting=1, playing=0)

    r = await client.post(f"/api/challenges/{created['match_id']}/accept", headers=auth(bob))
    assert r.status == 200, await r.text()
    joined = msgspec.json.decode(await r.read(), type=w.JoinedMatch)
    assert joined.seat == 1 and joined.status == "active" and joined.rated
    assert (await get(client, "/api/challenges", w.ChallengeList)).total == 0
    assert (await get(client, "/api/lobby", w.Lobby)) == w.Lobby(waiting=0, playing=2)
    # Someone else, too late:
    cy = await new_player(client, "Cy")
    await error_of(
        await client.post(f"/api/challenges/{created['match_id']}/accept", headers=auth(cy)),
        409,
        "challenge_taken",
    )

    r = await client.post(f"/api/matches/{created['match_id']}/resign", headers=auth(bob))
    assert r.status == 200
    from server.transport.keys import SERVICE

    await client.app[SERVICE].ratings.drain()

    mine = await get(client, f"/api/players/{ada['player_id']}/rating", w.PlayerRating)
    assert mine.name == "Ada" and mine.rating is not None
    assert (mine.rating.rating, mine.rating.deviation, mine.rating.games) == (1662.3, 290.3, 1)
    assert mine.rating.provisional  # one match, deviation 290.3
    history = await get(client, f"/api/players/{bob['player_id']}/rating/history", w.RatingHistory)
    assert history.total == 1 and history.history[0].rating == 1337.7
    assert history.history[0].match_id == created["match_id"]

    page = await get(client, f"/api/players/{ada['player_id']}/profile", w.PlayerPage)
    assert page.stats.matches == 1 and page.stats.wins == 1
    assert [m.match_id for m in page.recent] == [created["match_id"]] and page.recent[0].rated
    assert page.rating is not None and page.rating.rating == 1662.3

    board = await get(client, "/api/leaderboard", w.Leaderboard)
    assert (board.min_games, board.max_deviation, board.total) == (5, 110.0, 0)  # one match: not listed
    view = await get(client, f"/api/matches/{created['match_id']}", w.MatchDetails, headers=auth(ada))
    assert view.rated and view.public


async def test_the_leaderboard_lists_players_with_enough_games_ranked_and_paged(make_client):
    from server.transport.keys import SERVICE

    client = await make_client(leaderboard_deviation=350.0)  # five matches between two: deviations near 200
    ada, bob = await new_player(client, "Ada"), await new_player(client, "Bob")
    for _ in range(5):
        created = await new_match(client, ada, opponent="human", rated=True, public=True)
        r = await client.post(f"/api/challenges/{created['match_id']}/accept", headers=auth(bob))
        assert r.status == 200
        await client.post(f"/api/matches/{created['match_id']}/resign", headers=auth(bob))
        await client.app[SERVICE].ratings.drain()
    board = await get(client, "/api/leaderboard?limit=1", w.Leaderboard)
    assert board.total == 2 and board.limit == 1
    assert [(e.rank, e.name, e.games) for e in board.players] == [(1, "Ada", 5)]
    second = await get(client, "/api/leaderboard?limit=1&offset=1", w.Leaderboard)
    assert [(e.rank, e.name) for e in second.players] == [(2, "Bob")]
    assert board.players[0].rating > 1700 > 1300 > second.players[0].rating
    history = await get(client, f"/api/players/{ada['player_id']}/rating/history?limit=2", w.RatingHistory)
    assert history.total == 5 and [p.games for p in history.history] == [5, 4]
    # Established (5 matches, deviation under this server's 350): her challenge says so.
    await new_match(client, ada, opponent="human", rated=True, public=True)
    (challenge,) = (await get(client, "/api/challenges", w.ChallengeList)).challenges
    assert challenge.rating is not None and not challenge.provisional


async def test_the_computer_levels_have_published_ratings(make_client):
    client = await make_client()
    levels = (await get(client, "/api/difficulties", w.Difficulties)).difficulties
    ratings = {d.name: d.rating for d in levels}
    assert ratings["normal"] == 1500
    assert all(r is not None for r in ratings.values())
    assert ratings["easy"] < ratings["normal"]


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"opponent": "computer", "rated": True}, "bad_request"),
        ({"public": True}, "bad_request"),  # opponent defaults to the computer
        ({"opponent": "human", "rated": "yes"}, "bad_request"),
    ],
)
async def test_a_computer_match_is_never_rated_or_public(make_client, body, code):
    client = await make_client()
    ada = await new_player(client)
    await error_of(await client.post("/api/matches", json=body, headers=auth(ada)), 400, code)
    r = await client.get("/api/matches", headers=auth(ada))
    assert (await r.json())["total"] == 0


async def test_refusals_have_their_documented_codes(make_client):
    client = await make_client()
    ada, bob = await new_player(client, "Ada"), await new_player(client, "Bob")
    private = await new_match(client, ada, opponent="human")
    await error_of(
        await client.post(f"/api/challenges/{private['match_id']}/accept", headers=auth(bob)),
        403,
        "forbidden",
    )
    await error_of(await client.post(f"/api/challenges/{private['match_id']}/accept"), 401, "unauthorized")
    await error_of(await client.post("/api/challenges/m_nope/accept", headers=auth(bob)), 404, "not_found")
    await error_of(await client.get("/api/players/p_nobody/rating"), 404, "not_found")
    await error_of(await client.get("/api/players/p_nobody/profile"), 404, "not_found")
    await error_of(await client.get("/api/players/%00/rating/history"), 404, "not_found")
    await error_of(await client.get("/api/leaderboard?limit=0"), 400, "bad_request")
    await error_of(await client.get("/api/leaderboard?limit=101"), 400, "bad_request")
    await error_of(await client.get("/api/challenges?offset=-1"), 400, "bad_request")
    fresh = await get(client, f"/api/players/{bob['player_id']}/rating", w.PlayerRating)
    assert fresh.rating is None
    # Nothing changed: the private match still waits for its invite.
    r = await client.get(f"/api/matches/{private['match_id']}", headers=auth(ada))
    assert (await r.json())["status"] == "waiting"


async def test_a_bot_a_person_invited_to_rated_matches_is_marked_a_bot_on_the_leaderboard(make_client):
    from server.transport.keys import SERVICE

    client = await make_client(leaderboard_deviation=350.0)
    ada = await new_player(client, "Ada")
    r = await client.post("/api/players", json={"name": "Robo", "bot": {"owner": "ada@example.org"}})
    robo = await r.json()
    for _ in range(5):
        created = await new_match(client, ada, opponent="human", rated=True)
        joined = await client.post(
            f"/api/matches/{created['match_id']}/join",
            json={"invite": created["invite"]["code"]},
            headers=auth(robo),
        )
        assert joined.status == 200
        await client.post(f"/api/matches/{created['match_id']}/resign", headers=auth(robo))
        await client.app[SERVICE].ratings.drain()
    board = await get(client, "/api/leaderboard", w.Leaderboard)
    marks = {e.name: e.bot for e in board.players}
    assert marks["Ada"] is None
    assert marks["Robo"] is not None and marks["Robo"].owner == "ada@example.org"
