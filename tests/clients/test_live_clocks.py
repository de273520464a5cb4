"""The Python client against the real server (a separate process) for clocks, claims and
rematches: the clock in the view, a claim once the opponent is gone (the grace period set to 0
so the test waits on the server's own state messages, never on a timer), and rematches both
ways and against the computer."""

from __future__ import annotations

import pytest
from ginrummy_client import Conflict, GinRummyClient, MatchView, TimeControl

from tests.live_server import live_server

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def base_url(tmp_path_factory):
    with live_server(tmp_path_factory.mktemp("server"), extra_env={"GINRUMMY_CLAIM_SECONDS": "0"}) as url:
        yield url


async def _player(base_url: str, name: str) -> GinRummyClient:
    client = GinRummyClient(base_url)
    await client.create_player(name)
    return client


async def _until(conn, check) -> MatchView:
    view = conn.view
    while view is None or not check(view):
        view = await conn.next_state(timeout=30)
    return view


async def test_a_timed_match_shows_both_clocks_and_a_gone_opponent_can_be_claimed(base_url):
    ada, bob = await _player(base_url, "Ada"), await _player(base_url, "Bob")
    ticket = await ada.create_match(opponent="human", time_control=TimeControl.preset("realtime 20+120"))
    assert ticket.summary.time_control == TimeControl("realtime", 20, 120)
    joined = await bob.join_match(ticket.match_id, ticket.invite.code)
    async with ada.connect(ticket) as mine:
        bobs = bob.connect(joined)
        await bobs.open()
        view = await _until(mine, lambda v: v.status == "active" and all(p.connected for p in v.players))
        assert view.clock is not None and view.clock.running in (0, 1)
        assert 0 < view.clock.remaining_ms <= 140_000
        assert [s.bank_ms for s in view.clock.seats] == [120_000, 120_000]
        assert view.claim_at is None
        with pytest.raises(Conflict):
            await ada.claim(ticket.match_id)  # Bob is here
        await bobs.close()
        view = await _until(mine, lambda v: v.claim_at is not None)
        assert view.claim_in_ms == 0
        summary = await ada.claim(ticket.match_id)
        assert summary.outcome.reason == "abandoned" and summary.winner == 0
        final = await _until(mine, lambda v: v.is_over)
        assert final.rematch is not None and final.rematch.match_id is None

        # Rematch: Bob offers, Ada accepts; Ada's socket learns the new match.
        offered = await bob.offer_rematch(ticket.match_id)
        assert offered.rematch.offered_by == 1 and offered.rematch.match_id is None
        accepted = await ada.offer_rematch(ticket.match_id)
        new_id = accepted.rematch.match_id
        assert new_id
        told = await _until(mine, lambda v: v.rematch is not None and v.rematch.match_id is not None)
        assert told.rematch.match_id == new_id
    rematch = await bob.get_match(new_id)
    assert rematch.status == "active" and rematch.time_control == TimeControl("realtime", 20, 120)
    assert [p.name for p in rematch.players] == ["Bob", "Ada"]  # seats swapped
    async with bob.connect(new_id) as conn:
        view = await _until(conn, lambda v: True)
        assert view.seat == 0 and view.clock is not None


async def test_a_rematch_can_be_declined_and_against_the_computer_is_one_click(base_url):
    ada, bob = await _player(base_url, "Ada"), await _player(base_url, "Bob")
    ticket = await ada.create_match(opponent="human")
    await bob.join_match(ticket.match_id, ticket.invite.code)
    await bob.resign(ticket.match_id)
    await ada.offer_rematch(ticket.match_id)
    declined = await bob.decline_rematch(ticket.match_id)
    assert declined.rematch.declined_by == 1 and declined.rematch.match_id is None

    solo = await ada.create_match(opponent="computer", difficulty="easy")
    await ada.resign(solo.match_id)
    again = await ada.offer_rematch(solo.match_id)
    new = await ada.get_match(again.rematch.match_id)
    assert new.status == "active" and new.opponent == "computer" and new.difficulty == "easy"
