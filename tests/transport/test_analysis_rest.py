"""Explained play over REST: GET /api/matches/{id}/analysis and /hint, who may ask, the rate
limits, and hints refused outside unrated matches against the computer."""

from __future__ import annotations

import dataclasses

import msgspec

from server.config import Limits
from server.transport.keys import SERVICE
from server.wire import analysis as wa

from .helpers import Socket, auth, new_match, new_player, play_match
from .test_rest import error_of

LIMITS = Limits(analysis_worlds=2, analysis_rate="3/minute", hint_rate="3/minute")


async def test_the_analysis_of_a_finished_match_for_its_player_only(make_client):
    client = await make_client(bot_workers=0, limits=LIMITS)
    ada, eve = await new_player(client, "Ada"), await new_player(client, "Eve")
    m = await new_match(client, ada, difficulty="easy")
    url = f"/api/matches/{m['match_id']}/analysis"

    early = await client.get(url, headers=auth(ada))  # nothing is finished yet: no hand shown
    assert early.status == 200, await early.text()
    assert (await early.json())["hands"] == [] and (await early.json())["status"] == "active"

    sock = await Socket.connect(client)
    await sock.hello(m["match_id"], ada["token"])
    await play_match(client, [sock], seed=5)
    r = await client.get(url, headers=auth(ada))
    assert r.status == 200, await r.text()
    body = await r.read()
    analysis = msgspec.json.decode(body, type=wa.MatchAnalysis)  # the documented shape, strictly
    details = await (await client.get(f"/api/matches/{m['match_id']}", headers=auth(ada))).json()
    assert analysis.status == "finished" and [h.number for h in analysis.hands] == [
        h["number"] for h in details["hands"]
    ]
    # each hand's points, as its result scored them for the player, add up to the match's
    assert [h.points for h in analysis.hands] == [
        0 if h["winner"] is None else h["points"] if h["winner"] == 0 else -h["points"]
        for h in details["hands"]
    ]
    assert sum(h.points for h in analysis.hands) == analysis.points and any(h.points for h in analysis.hands)
    assert analysis.budget.worlds == 2 and analysis.summary.startswith("Deals: ")
    # a decision for each of the player's own actions, none in a hand the other seat ended
    # before the player's first move (it took the upcard and knocked)
    record = await (await client.get(f"/api/matches/{m['match_id']}/record", headers=auth(ada))).json()
    own = {h["number"]: [i for i, a in enumerate(h["actions"]) if a["seat"] == 0] for h in record["hands"]}
    assert any(own.values())
    for hand in analysis.hands:
        assert [d.step for d in hand.decisions] == own[hand.number]
        for d in hand.decisions:
            assert d.choices[0].action == d.best and d.explanation
            assert d.played in [c.action for c in d.choices] and d.best in [c.action for c in d.choices]
        steps = {d.step: d for d in hand.decisions}
        assert all(steps[s].mistake for s in hand.mistakes)
        assert [steps[s].loss for s in hand.mistakes] == sorted(
            (steps[s].loss for s in hand.mistakes), reverse=True
        )
    assert round(sum(h.lost for h in analysis.hands), 1) == round(analysis.lost, 1)
    assert round(sum(h.opponent_lost for h in analysis.hands), 1) == round(analysis.opponent_lost, 1)
    assert f"your opponent lost {analysis.opponent_lost:.1f} the same way" in analysis.summary
    # each hand cached once for each seat (the computer's play is analysed for what it lost)
    assert len(client.app[SERVICE].analyses) == 2 * len(analysis.hands)

    await error_of(await client.get(url, headers=auth(eve)), 403, "forbidden")
    await error_of(await client.get(url), 401, "unauthorized")
    await error_of(await client.get("/api/matches/nosuchmatch/analysis", headers=auth(ada)), 404, "not_found")
    # Ada asked twice (the limit is 3 a minute), and the unknown match counted too
    error = await error_of(await client.get(url, headers=auth(ada)), 429, "rate_limited")
    assert error["limit"] == "analysis"


async def test_between_two_people_each_one_s_losses_are_the_other_s_opponent_losses(make_client):
    """What one player lost comes back to the other: each analysis carries the other's losses
    hand by hand, worked out once for both (the second to ask waits on nothing new)."""
    client = await make_client(bot_workers=0, limits=LIMITS)
    ada, eve = await new_player(client, "Ada"), await new_player(client, "Eve")
    m = await new_match(client, ada, opponent="human")
    joined = await client.post(
        f"/api/matches/{m['match_id']}/join", headers=auth(eve), json={"invite": m["invite"]["code"]}
    )
    assert joined.status == 200, await joined.text()
    socks = [await Socket.connect(client), await Socket.connect(client)]
    await socks[0].hello(m["match_id"], ada["token"])
    await socks[1].hello(m["match_id"], eve["token"])
    await play_match(client, socks, seed=3)
    url = f"/api/matches/{m['match_id']}/analysis"
    mine = msgspec.json.decode(await (await client.get(url, headers=auth(ada))).read(), type=wa.MatchAnalysis)
    worked_out = len(client.app[SERVICE].analyses)
    theirs = msgspec.json.decode(
        await (await client.get(url, headers=auth(eve))).read(), type=wa.MatchAnalysis
    )
    assert len(client.app[SERVICE].analyses) == worked_out == 2 * len(mine.hands) > 0
    assert (mine.seat, theirs.seat) == (0, 1) and theirs.points == -mine.points
    assert [h.points for h in theirs.hands] == [-h.points for h in mine.hands]
    assert [h.opponent_lost for h in mine.hands] == [h.lost for h in theirs.hands]
    assert [h.opponent_lost for h in theirs.hands] == [h.lost for h in mine.hands]
    assert (mine.opponent_lost, theirs.opponent_lost) == (theirs.lost, mine.lost)
    for a, b in ((mine, theirs), (theirs, mine)):  # each sees the other's mistakes, biggest first
        for hand, other in zip(a.hands, b.hands, strict=True):
            steps = {d.step: d for d in other.decisions}
            assert hand.opponent_mistakes == [steps[s] for s in other.mistakes]
    assert any(h.opponent_mistakes for h in mine.hands + theirs.hands)
    assert any(h.lost > 0 for h in mine.hands + theirs.hands)  # random play loses somewhere


async def test_a_hand_s_two_seats_are_worked_out_at_once(make_client, monkeypatch):
    """The player's and the opponent's play in a hand are two jobs asked for together, so with
    two workers (here two threads) a first analysis waits for the longer, not the sum: each job
    waits at a barrier for its twin, which a job worked out alone would never meet."""
    import threading

    import server.service.analysis as analysis

    twins = threading.Barrier(2, timeout=10)
    compute = analysis.compute_hand

    def paired(rules, log, seat, scores, worlds):
        twins.wait()
        return compute(rules, log, seat, scores, worlds)

    monkeypatch.setattr(analysis, "compute_hand", paired)
    client = await make_client(bot_workers=0, limits=LIMITS)
    ada = await new_player(client, "Ada")
    m = await new_match(client, ada, difficulty="easy")
    sock = await Socket.connect(client)
    await sock.hello(m["match_id"], ada["token"])
    await play_match(client, [sock], seed=7)
    r = await client.get(f"/api/matches/{m['match_id']}/analysis", headers=auth(ada))
    assert r.status == 200, await r.text()
    hands = msgspec.json.decode(await r.read(), type=wa.MatchAnalysis).hands
    assert hands and len(client.app[SERVICE].analyses) == 2 * len(hands)


async def test_a_hint_on_your_turn_against_the_computer_only(make_client, monkeypatch):
    import server.service.analysis as analysis

    thought: list[int] = []
    compute = analysis.compute_hint

    def counted(view, worlds):
        thought.append(1)
        return compute(view, worlds)

    monkeypatch.setattr(analysis, "compute_hint", counted)
    # Four hints a minute: this test asks for four, and the fifth is refused.
    client = await make_client(bot_workers=0, limits=dataclasses.replace(LIMITS, hint_rate="4/minute"))
    ada, eve = await new_player(client, "Ada"), await new_player(client, "Eve")
    m = await new_match(client, ada, difficulty="easy")
    sock = await Socket.connect(client)
    state = await sock.hello(m["match_id"], ada["token"])
    while not state["view"]["hand"]["legal_actions"]:
        state = await sock.recv_until("state")
    url = f"/api/matches/{m['match_id']}/hint"
    r = await client.get(url, headers=auth(ada))
    assert r.status == 200, await r.text()
    hint = msgspec.json.decode(await r.read(), type=wa.Hint)
    assert msgspec.to_builtins(hint.best) in state["view"]["hand"]["legal_actions"]
    assert hint.version == state["version"] and hint.explanation
    assert {msgspec.json.encode(c.action) for c in hint.choices} == {
        msgspec.json.encode(a) for a in state["view"]["hand"]["legal_actions"]
    }
    await error_of(await client.get(url, headers=auth(eve)), 403, "forbidden")
    # Asked again for the same position, the hint is not thought out again.
    again = await client.get(url, headers=auth(ada))
    assert again.status == 200 and msgspec.json.decode(await again.read(), type=wa.Hint) == hint
    assert len(thought) == 1

    # Against a human, rated or not: never.
    for rated in (False, True):
        h = await new_match(client, ada, opponent="human", rated=rated)
        joined = await client.post(
            f"/api/matches/{h['match_id']}/join", headers=auth(eve), json={"invite": h["invite"]["code"]}
        )
        assert joined.status == 200, await joined.text()
        await error_of(
            await client.get(f"/api/matches/{h['match_id']}/hint", headers=auth(ada)), 403, "forbidden"
        )
    error = await error_of(await client.get(url, headers=auth(ada)), 429, "rate_limited")
    assert error["limit"] == "hint"


async def test_one_address_has_only_a_few_analyses_and_hints_under_way(make_client, monkeypatch):
    """Many players from one address cannot take every worker: past ``analysis_per_address``
    under way at once, the next is refused until one is answered."""
    import asyncio
    import threading

    import server.service.analysis as analysis
    from server.transport.keys import ANALYSING

    release = threading.Event()
    compute = analysis.compute_hint

    def held(view, worlds):
        release.wait(10)
        return compute(view, worlds)

    monkeypatch.setattr(analysis, "compute_hint", held)
    client = await make_client(bot_workers=0, limits=dataclasses.replace(LIMITS, analysis_per_address=2))
    urls, tokens = [], []
    for name in ("Ada", "Bob", "Cy"):
        player = await new_player(client, name)
        m = await new_match(client, player, difficulty="easy")
        sock = await Socket.connect(client)
        state = await sock.hello(m["match_id"], player["token"])
        while not state["view"]["hand"]["legal_actions"]:
            state = await sock.recv_until("state")
        urls.append(f"/api/matches/{m['match_id']}/hint")
        tokens.append(player)
    asked = [asyncio.ensure_future(client.get(urls[i], headers=auth(tokens[i]))) for i in range(2)]
    busy = client.app[ANALYSING]
    for _ in range(200):
        if sum(busy.values()) == 2:
            break
        await asyncio.sleep(0.01)
    assert sum(busy.values()) == 2
    error = await error_of(await client.get(urls[2], headers=auth(tokens[2])), 429, "rate_limited")
    assert error["limit"] == "analysis_busy" and error["reset_in"] > 0
    release.set()
    assert [r.status for r in await asyncio.gather(*asked)] == [200, 200]
    assert busy == {}
    assert (await client.get(urls[2], headers=auth(tokens[2]))).status == 200


def test_the_summary_says_point_for_one_and_points_for_the_rest():
    from types import SimpleNamespace

    from server.transport.analysis_rest import summary

    hand = SimpleNamespace(mistakes=[])
    for points, words in ((1, "+1 point."), (-1, "-1 point."), (0, "+0 points."), (-43, "-43 points.")):
        line = summary(SimpleNamespace(hands=[hand], luck=0.5, lost=0.0, opponent_lost=0.0, points=points))  # type: ignore[arg-type]
        assert line.endswith(f"Result: {words}"), line
