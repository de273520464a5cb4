"""The Python client's ratings and lobby calls against the real server in its own process: a
rated public challenge created, listed, accepted (and refused to a second taker), resigned; the
ratings, history, leaderboard and lobby counts read back through the typed models."""

from __future__ import annotations

import pytest
from ginrummy_client import Conflict, GinRummyClient, NotFound

pytestmark = pytest.mark.timeout(120)


async def _player(base_url: str, name: str) -> GinRummyClient:
    client = GinRummyClient(base_url)
    await client.create_player(name)
    return client


async def test_a_rated_challenge_through_the_client(base_url):
    ada, bob, cy = (
        await _player(base_url, "Ada"),
        await _player(base_url, "Bob"),
        await _player(base_url, "Cy"),
    )
    before = await ada.lobby()
    ticket = await ada.create_match(opponent="human", rated=True, public=True)
    assert ticket.summary.rated and ticket.summary.public and ticket.invite is not None
    challenges, total = await bob.challenges(limit=100)
    mine = [c for c in challenges if c.match_id == ticket.match_id]
    assert total >= 1 and len(mine) == 1
    assert (mine[0].creator, mine[0].rated, mine[0].rating) == ("Ada", True, None)
    assert (await ada.lobby()).waiting == before.waiting + 1

    joined = await bob.accept_challenge(ticket.match_id)
    assert joined.seat == 1 and joined.summary.status == "active"
    with pytest.raises(Conflict) as taken:
        await cy.accept_challenge(ticket.match_id)
    assert taken.value.code == "challenge_taken"

    await bob.resign(ticket.match_id)  # answered once the ratings are updated
    me = await ada.rating()
    assert me.name == "Ada" and me.rating is not None
    assert (me.rating.rating, me.rating.deviation, me.rating.games) == (1662.3, 290.3, 1)
    bob_id = (await bob.me())["player_id"]
    history, n = await ada.rating_history(bob_id)
    assert n == 1 and history[0].match_id == ticket.match_id and history[0].rating == 1337.7
    assert (await cy.rating()).rating is None
    board, listed = await cy.leaderboard()
    assert listed == 0 and board == []  # one rated match is not enough (5 are)
    with pytest.raises(NotFound):
        await cy.rating("p_nobody")
    levels = {d["name"]: d["rating"] for d in await cy.difficulties()}
    assert levels["normal"] == 1500


async def test_a_match_against_the_computer_cannot_be_rated(base_url):
    from ginrummy_client import BadRequest

    ada = await _player(base_url, "Ada")
    with pytest.raises(BadRequest):
        await ada.create_match(opponent="computer", rated=True)
