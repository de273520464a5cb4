"""The Python client against the real server, started as a separate process: nothing but the
public protocol between them (REST and WebSocket), as for any program someone writes."""

from __future__ import annotations

import asyncio
import contextlib
import json

import pytest
from ginrummy_client import (
    Conflict,
    Forbidden,
    GinRummyClient,
    IllegalAction,
    MatchView,
    NotFound,
    ServerError,
    StaleVersion,
    Unauthorized,
    discard,
    knock,
)
from ginrummy_client.rest import ws_url_for
from ginrummy_client.strategies import quick
from websockets.asyncio.client import connect as ws_connect
from websockets.asyncio.server import serve as ws_serve

from tests.live_server import free_port, live_server

from .live import check_final, finish_hand, player, to_discard_phase

# A server that stops answering must fail a test, not hang the suite.
pytestmark = pytest.mark.timeout(120)

# --- whole matches ------------------------------------------------------------------------------


async def test_the_library_plays_complete_matches_against_every_computer_level_and_preset(base_url):
    async def one(level: str, rules: str) -> None:
        client = await player(base_url, f"Ada {level}")
        ticket = await client.create_match(opponent="computer", difficulty=level, rules=rules)
        assert ticket.summary.difficulty == level and ticket.invite is None
        seen: list[MatchView] = []

        def choose(view: MatchView):
            seen.append(view)
            return quick(view)

        async with client.connect(ticket) as conn:
            final = await conn.play(choose)
        check_final(final)
        # Every state acted on was this seat's turn, and versions only went up.
        assert all(v.my_turn and v.seat == ticket.seat for v in seen)
        assert [v.version for v in seen] == sorted({v.version for v in seen})
        summary = await client.get_match(ticket.match_id)
        assert summary.status == "finished" and summary.winner == final.outcome.winner
        assert len(summary.hands) == final.hand_number
        for seat in (0, 1):
            assert sum(h.points for h in summary.hands if h.winner == seat) == final.scores[seat]
        if rules == "oklahoma":  # each hand's own knock limit and multiplier reached the library
            record = await client.get_record(ticket.match_id)
            upcards = {h["number"]: h["upcard"] for h in record["hands"]}
            for v in seen:
                up = upcards[v.hand_number]
                limit = 0 if up[0] == "A" else min(10, int(up[0]) if up[0].isdigit() else 10)
                assert (v.hand.knock_limit, v.hand.multiplier) == (limit, 2 if up[1] == "s" else 1), up
        if rules in ("classic", "oklahoma"):  # box and game bonuses on top of the points
            totals = final.outcome.totals
            assert totals[final.outcome.winner].game_bonus in (100, 200)

    # One connection each: the per-connection message rate is what bounds a match's duration.
    await asyncio.gather(one("easy", "house"), one("normal", "classic"), one("hard", "oklahoma"))


async def test_two_library_clients_play_each_other_through_an_invite(base_url):
    ada = await player(base_url, "Ada")
    bob = await player(base_url, "Bob")
    ticket = await ada.create_match(opponent="human", rules="classic")
    assert ticket.invite is not None and ticket.invite.code
    joined = await bob.join_invite(ticket.invite.url or f"{ticket.match_id}:{ticket.invite.code}")
    assert joined.match_id == ticket.match_id and joined.seat == 1 - ticket.seat
    eve = await player(base_url, "Eve")
    with pytest.raises((Conflict, Forbidden)):  # the seat is taken
        await eve.join_match(ticket.match_id, ticket.invite.code)

    seen: list[MatchView] = []

    def watching(view: MatchView):
        seen.append(view)
        return quick(view)

    async with ada.connect(ticket) as a, bob.connect(joined) as b:
        final_a, final_b = await asyncio.gather(a.play(watching), b.play(watching))
    check_final(final_a)
    # Neither player ever learnt which card the other drew from the stock.
    stock_draws = [e for v in seen for e in v.hand.history if e.kind == "draw" and e.source == "stock"]
    assert stock_draws and all(e.card is None for e in stock_draws)
    assert final_a.outcome == final_b.outcome and final_a.scores == final_b.scores
    assert (final_a.seat, final_b.seat) == (ticket.seat, joined.seat)
    record = await ada.get_record(ticket.match_id)
    assert len(record["hands"]) == final_a.hand_number


# --- resuming -----------------------------------------------------------------------------------


async def test_a_dropped_connection_mid_hand_resumes_and_applies_nothing_twice(base_url):
    client = await player(base_url, "Ada")
    ticket = await client.create_match(difficulty="normal")
    async with client.connect(ticket, reconnect_delays=(0.05, 0.2)) as conn:
        view = await to_discard_phase(conn)
        action = quick(view)
        # Send, then lose the socket before the ack can arrive.
        task = asyncio.create_task(conn.act(action, version=view.version))
        await asyncio.sleep(0)
        conn.abort()
        acked = await asyncio.wait_for(task, 15)
        assert acked == view.version + 1
        assert conn.reconnects >= 1
        while conn.view.version < acked:
            await conn.next_state(10)
        after = conn.view
        if after.hand_number == view.hand_number:
            mine = [e for e in after.hand.history if e.seat == view.seat and e.card == action.card]
            assert len(mine) == 1, after.hand.history  # discarded once, not twice

        # A drop while the computer moves, then the hand carries on to its end.
        conn.abort()
        await finish_hand(conn, view.hand_number)
        # The hand may have ended before the drop (a knock), leaving nothing to send that would
        # wait for the reconnection: wait for the state answering the new hello instead.
        while conn.reconnects < 2:
            await conn.next_state(10)
    assert conn.reconnects >= 2


class _AckCutter:
    """A WebSocket relay between the client and the server that can lose an ``ack``: once armed,
    it cuts both sockets the moment the server sends one, so the action is applied on the server
    and the client never hears of it: the case a resend under the same id exists for."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.armed = False
        self.cuts = 0

    async def relay(self, client_side) -> None:
        async with ws_connect(self.upstream) as server_side:

            async def upward() -> None:
                async for message in client_side:
                    await server_side.send(message)

            async def downward() -> None:
                async for message in server_side:
                    if self.armed and json.loads(message).get("type") == "ack":
                        self.armed = False
                        self.cuts += 1
                        client_side.transport.abort()
                        return
                    await client_side.send(message)

            tasks = [asyncio.create_task(upward()), asyncio.create_task(downward())]
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)


async def test_an_ack_lost_with_the_connection_is_recovered_and_the_action_applied_once(base_url):
    cutter = _AckCutter(ws_url_for(base_url))
    async with ws_serve(cutter.relay, "127.0.0.1", 0) as relay:
        relay_url = f"ws://127.0.0.1:{relay.sockets[0].getsockname()[1]}/ws"
        client = await player(base_url, "Ada")
        ticket = await client.create_match(difficulty="easy")
        async with client.connect(ticket, ws_url=relay_url) as conn:
            view = await to_discard_phase(conn)
            left = view.hand.discard_deadwood
            action = min((a for a in view.legal_actions if a.kind == "discard"), key=lambda a: left[a.card])
            cutter.armed = True
            acked = await asyncio.wait_for(conn.act(action, version=view.version), 20)
            # Applied before the cut, answered again after the reconnect: a success, not an error.
            assert cutter.cuts == 1 and conn.reconnects == 1
            assert acked == view.version + 1
            while conn.view.version < acked:
                await conn.next_state(10)
            hand = conn.view.hand
            if conn.view.hand_number == view.hand_number:
                mine = [e for e in hand.history if e.seat == view.seat]
                assert sum(e.kind == "discard" and e.card == action.card for e in mine) == 1
                assert action.card not in hand.hand


async def test_a_match_carries_on_where_it_stopped_after_the_server_restarts(tmp_path):
    port = free_port()
    stack = contextlib.ExitStack()
    # The helper blocks while the server starts or stops: keep it off the event loop.
    base = await asyncio.to_thread(stack.enter_context, live_server(tmp_path, port=port))
    try:
        client = await player(base, "Ada")
        ticket = await client.create_match(difficulty="normal")
        options = {"reconnect_delays": (0.1, 0.25, 0.5), "max_reconnect_attempts": 60}
        async with client.connect(ticket, **options) as conn:
            before = await to_discard_phase(conn)
            while conn.queued_states:
                await conn.next_state()
            await asyncio.to_thread(stack.close)  # a graceful stop: the socket closes with 1001
            stack = contextlib.ExitStack()
            await asyncio.to_thread(stack.enter_context, live_server(tmp_path, port=port))
            after = await asyncio.wait_for(conn.next_state(), 30)  # the new server's answer to hello
            assert conn.reconnects >= 1
            assert (after.version, after.hand_number, after.hand.hand) == (
                before.version,
                before.hand_number,
                before.hand.hand,
            )
            await finish_hand(conn, before.hand_number)
    finally:
        await asyncio.to_thread(stack.close)


async def test_an_action_sent_again_under_its_id_is_applied_once(base_url):
    client = await player(base_url, "Ada")
    ticket = await client.create_match(difficulty="easy")
    async with client.connect(ticket) as conn:
        view = await to_discard_phase(conn)
        action = quick(view)
        first = await conn.act(action, version=view.version, action_id="resend-me")
        # As if the ack had been lost: the same id, the same (now old) version.
        again = await conn.act(action, version=view.version, action_id="resend-me")
        assert again == first
        await conn.turn()  # the computer has replied: the match stands still while we look
        history = conn.view.hand.history if conn.view.hand_number == view.hand_number else ()
        assert sum(e.seat == view.seat and e.card == action.card for e in history) <= 1
        summary = await client.get_match(ticket.match_id)
        assert summary.version == conn.view.version


# --- errors -------------------------------------------------------------------------------------


async def test_refusals_arrive_as_typed_errors_with_the_servers_codes(base_url):
    client = await player(base_url, "Ada")
    ticket = await client.create_match(difficulty="easy")
    async with client.connect(ticket) as conn:
        for _ in range(5):  # (a state that goes stale under us is looked at again)
            view = await conn.turn()
            not_held = next(c for c in ("As", "2d", "3h", "4s", "5c", "6d") if c not in view.hand.hand)
            try:
                await conn.act(discard(not_held) if view.hand.phase == "discard" else knock(not_held))
            except StaleVersion:
                continue
            except IllegalAction as err:
                assert err.code == "illegal_action" and err.message
                break
        else:
            pytest.fail("the illegal action was never refused as illegal")
        with pytest.raises(StaleVersion):
            await conn.act(view.legal_actions[0], version=view.version + 1)
        assert conn.view.version == view.version  # refusals changed nothing
    with pytest.raises(Conflict) as info:
        await client.get_record(ticket.match_id)
    assert info.value.code == "match_not_over" and info.value.status == 409

    with pytest.raises(Unauthorized):
        await GinRummyClient(base_url, "not-a-token").connect(ticket, reconnect=False).open()
    with pytest.raises(NotFound):
        await client.connect("m_does_not_exist", reconnect=False).open()
    with pytest.raises(ServerError) as info:
        await client.join_match(ticket.match_id, "wrong")
    assert info.value.status in (403, 409)


async def test_a_watcher_sees_the_public_view_and_cannot_act(base_url):
    client = await player(base_url, "Ada")
    ticket = await client.create_match(difficulty="easy")
    assert ticket.watch_token
    async with client.connect(ticket, token=ticket.watch_token) as watch:
        view = watch.view
        assert view.seat is None and view.hand.hand == () and view.legal_actions == ()
        with pytest.raises(Unauthorized):
            await watch.act({"kind": "pass"})


# --- the terminal client, the example bot, the arena ------------------------------------------------


async def test_the_creator_cancels_a_match_nobody_joined_and_the_invite_stops_working(base_url):
    ada = await player(base_url, "Ada")
    bob = await player(base_url, "Bob")
    ticket = await ada.create_match(opponent="human")
    assert ticket.invite is not None
    with pytest.raises(Forbidden):
        await bob.cancel(ticket.match_id)
    assert await ada.cancel(ticket.match_id) is None
    with pytest.raises(NotFound):
        await bob.join_match(ticket.match_id, ticket.invite.code)
    with pytest.raises(NotFound):
        await ada.cancel(ticket.match_id)
    # Once someone has joined, cancelling is refused: resign instead.
    again = await ada.create_match(opponent="human")
    assert again.invite is not None
    await bob.join_match(again.match_id, again.invite.code)
    with pytest.raises(Conflict):
        await ada.cancel(again.match_id)


async def test_the_library_and_the_command_line_give_the_analysis_of_a_match(base_url, capsys):
    from ginrummy_client import __main__ as cli
    from ginrummy_client.analysis import format_analysis

    client = await player(base_url, "Ada explained")
    ticket = await client.create_match(opponent="computer", difficulty="easy")
    async with client.connect(ticket) as conn:
        view = await conn.turn()
        assert view is not None
        hint = await client.hint(ticket.match_id)  # on its turn: Hard's suggestion, from its view
        assert hint["best"] in [c["action"] for c in hint["choices"]] and hint["explanation"]
        final = await conn.play(quick)
    analysis = await client.analysis(ticket.match_id)
    assert analysis["seat"] == ticket.seat and len(analysis["hands"]) == final.hand_number
    text = format_analysis(analysis, every=True)
    assert text.startswith("Deals: ") and "Hand 1: deal worth " in text
    first = analysis["hands"][0]
    assert f"opponent lost {first['opponent_lost']:.1f}" in text.splitlines()[1]
    await asyncio.to_thread(
        cli.main, ["analysis", ticket.match_id, "--server", base_url, f"--token={client.token}"]
    )
    out = capsys.readouterr().out
    assert out.startswith("Deals: ") and f"Hand {final.hand_number}: " in out
