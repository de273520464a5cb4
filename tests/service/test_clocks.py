"""Clocks, abandonment and expiry, driven by a FakeClock (no sleeps): the per-move allowance,
the bank, the safe move on a timeout, three timeouts to forfeit, the warning, a claim after a
disconnect, waiting matches expiring, a deadline that passed while no server ran (enforced at
startup), and two replicas on Postgres racing to enforce one deadline (exactly one wins)."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta

import pytest

from server.service import FakeClock, MatchService, SequentialIds, TimeControl
from server.service.clocks import EXPIRY_EVERY, TIMEOUT_ID
from server.service.errors import BadRequest, Conflict
from server.storage import MemoryStore, SqlStore
from server.transport.present import encode, record, state_message

from ..storage.databases import database
from .helpers import Recorder

REALTIME = TimeControl.realtime(20, 120)


def make_service(store=None, clock=None, ids=None, **kwargs) -> MatchService:
    return MatchService(
        store or MemoryStore(), bot_delay=0, clock=clock or FakeClock(), ids=ids or SequentialIds(), **kwargs
    )


def present_record(rec) -> dict:
    return json.loads(encode(record(rec)))


async def timed_match(service: MatchService, tc: TimeControl = REALTIME, rated: bool = False):
    ada, _ = await service.create_player("Ada")
    bob, _ = await service.create_player("Bob")
    created = await service.create_match(ada, opponent="human", time_control=tc, rated=rated)
    await service.join(bob, created.meta.match_id, created.invite)
    live = await service.cache.get(created.meta.match_id)
    return live, ada, bob


def seats(service: MatchService, live, seat=0) -> dict:
    """The clock of ``seat``'s view, as sent."""
    return json.loads(state_message(service.update(live, seat)))["view"]["clock"]


async def play_safe(service: MatchService, live) -> int:
    """The seat to act plays its first legal non-knock action; returns that seat."""
    seat = live.state.to_act
    legal = [a for a in live.state.legal_actions(seat) if a.kind != "knock"]
    action = next((a for a in legal if a.kind in ("pass", "discard")), legal[0])
    if action.kind == "take_upcard":
        action = next(a for a in legal if a.kind != "take_upcard")
    await service.act(live, seat, None, live.meta.version, action.to_wire())
    return seat


async def test_a_timed_match_starts_its_clock_when_the_second_player_joins():
    clock = FakeClock()
    service = make_service(clock=clock)
    live, *_ = await timed_match(service)
    view = seats(service, live)
    assert view["time_control"] == {"kind": "realtime", "move_seconds": 20, "bank_seconds": 120}
    assert view["running"] == live.state.to_act
    assert view["remaining_ms"] == 140_000
    assert view["deadline_at"] == "2026-01-01T00:02:20.000Z"
    assert view["seats"] == [{"move_ms": 20_000, "bank_ms": 120_000, "timeouts": 0}] * 2
    assert live.meta.deadline_at == clock.now() + timedelta(seconds=140)


async def test_a_move_within_the_allowance_leaves_the_bank_whole_and_a_slow_one_draws_on_it():
    clock = FakeClock()
    service = make_service(clock=clock)
    live, *_ = await timed_match(service)
    await clock.advance(15)
    first = await play_safe(service, live)
    assert seats(service, live)["seats"][first]["bank_ms"] == 120_000
    await clock.advance(30)
    second = await play_safe(service, live)
    assert second == 1 - first
    clock_view = seats(service, live)
    assert clock_view["seats"][second]["bank_ms"] == 110_000  # 30 s: 20 allowed, 10 from the bank
    assert clock_view["running"] == live.state.to_act
    # While a seat thinks its allowance counts down first, then its bank.
    await clock.advance(25)
    running = clock_view["running"]
    now_view = seats(service, live)
    assert now_view["seats"][running]["move_ms"] == 0
    assert now_view["seats"][running]["bank_ms"] == (120_000 if running == first else 110_000) - 5_000


async def test_when_allowance_and_bank_run_out_the_server_plays_a_safe_move_for_the_seat():
    clock = FakeClock()
    service = make_service(clock=clock)
    live, *_ = await timed_match(service)
    seat, version = live.state.to_act, live.meta.version
    await clock.advance(139)
    assert await service.clocks.tick() == 0  # one second early: nothing
    await clock.advance(1)
    assert await service.clocks.tick() == 1
    assert live.meta.version == version + 1
    _, actions = await service.store.load_match(live.match_id)
    assert [(a.seat, a.action, a.client_id) for a in actions] == [(seat, {"kind": "pass"}, f"{TIMEOUT_ID}1")]
    view = seats(service, live)
    assert view["seats"][seat] == {"move_ms": 20_000, "bank_ms": 0, "timeouts": 1}
    assert view["last_timeout"] == seat
    # Its bank is spent: next time it has the allowance alone.
    assert await service.clocks.tick() == 0


async def test_a_timed_out_discard_is_the_highest_deadwood_and_never_a_knock():
    clock = FakeClock()
    service = make_service(clock=clock)
    live, *_ = await timed_match(service, TimeControl.realtime(5, 0))
    for _ in range(40):
        if live.meta.status != "active":
            break
        if live.state.hand.phase.value == "discard":
            view = live.state.view(live.state.to_act).hand
            best = min(dict(view.discard_deadwood).values())
            await clock.advance(5)
            await service.clocks.tick()
            _, actions = await service.store.load_match(live.match_id)
            played = actions[-1].action
            assert played["kind"] == "discard"
            assert dict((c.code, d) for c, d in view.discard_deadwood)[played["card"]] == best
            return
        await play_safe(service, live)
    pytest.fail("no discard phase reached")


async def test_three_timeouts_in_a_row_forfeit_the_match_and_a_move_of_ones_own_resets_the_count():
    clock = FakeClock()
    service = make_service(clock=clock)
    live, *_ = await timed_match(service, TimeControl.realtime(10, 0))
    slow = live.state.to_act
    for _ in range(2):  # slow times out twice; the other seat plays in time (resetting nothing of slow's)
        await clock.advance(10)
        assert await service.clocks.tick() == 1
        if live.state.to_act != slow:
            await play_safe(service, live)
    assert seats(service, live)["seats"][slow]["timeouts"] == 2
    # A move of its own resets the count...
    await play_safe(service, live)
    assert seats(service, live)["seats"][slow]["timeouts"] == 0
    while live.state.to_act != slow:
        await play_safe(service, live)
    # ... and three in a row from there forfeit.
    timeouts = 0
    while live.meta.status == "active":
        await clock.advance(10)
        assert await service.clocks.tick() == 1
        timeouts += 1
        while live.meta.status == "active" and live.state.to_act != slow:
            await play_safe(service, live)
    assert timeouts == 3
    assert live.meta.status == "finished"
    assert live.meta.outcome["reason"] == "timeout" and live.meta.winner == 1 - slow
    assert live.meta.deadline_at is None
    assert "ran out of time" in json.loads(state_message(service.update(live, slow)))["view"]["status_line"]


async def test_the_seat_to_act_is_warned_once_when_its_time_is_nearly_out():
    clock = FakeClock()
    service = make_service(clock=clock)
    live, *_ = await timed_match(service, TimeControl.realtime(30, 0))
    seat = live.state.to_act
    rec = Recorder(seat)
    await service.subscribe(live, rec)
    assert rec.messages[-1]["view"]["clock"]["warning"] is False
    await clock.advance(19)
    await service.clocks.tick()
    assert len(rec.messages) == 1
    await clock.advance(1)
    await service.clocks.tick()
    await service.clocks.tick()
    assert len(rec.messages) == 2
    assert rec.messages[-1]["view"]["clock"]["warning"] is True
    assert rec.messages[-1]["view"]["clock"]["remaining_ms"] == 10_000


async def test_matches_against_the_computer_have_no_clock_and_a_bad_time_control_is_refused():
    service = make_service()
    ada, _ = await service.create_player("Ada")
    with pytest.raises(BadRequest, match="no clock"):
        await service.create_match(ada, opponent="computer", time_control=REALTIME)
    created = await service.create_match(ada, opponent="computer")
    live = await service.cache.get(created.meta.match_id)
    view = json.loads(state_message(service.update(live, 0)))["view"]
    assert view["clock"] is None and view["time_control"]["kind"] == "none"
    from server.service.clocks import parse_time_control

    for bad in (("blitz", 1, 1), ("none", 5, 0), ("realtime", 0, 10), ("realtime", 10, -1)):
        with pytest.raises(BadRequest):
            parse_time_control(*bad)


async def test_client_action_ids_may_not_pose_as_the_server():
    service = make_service()
    live, *_ = await timed_match(service)
    with pytest.raises(BadRequest, match="server"):
        await service.act(live, live.state.to_act, "server:timeout:1", live.meta.version, {"kind": "pass"})


async def test_a_seat_gone_longer_than_the_grace_period_can_be_claimed_by_the_other():
    clock = FakeClock()
    service = make_service(clock=clock)
    live, ada, _ = await timed_match(service, TimeControl.none())
    here, gone = Recorder(0), Recorder(1)
    await service.subscribe(live, here)
    await service.subscribe(live, gone)
    assert here.messages[-1]["view"]["claim_at"] is None
    with pytest.raises(Conflict, match="connected"):
        await service.claim(ada, live.match_id)
    await service.unsubscribe(live, gone)
    view = here.messages[-1]["view"]
    assert view["claim_at"] == "2026-01-01T00:01:00.000Z" and view["claim_in_ms"] == 60_000
    await clock.advance(59)
    with pytest.raises(Conflict, match="claim in 1 s"):
        await service.claim(ada, live.match_id)
    assert live.meta.status == "active"
    await clock.advance(1)
    meta = await service.claim(ada, live.match_id)
    assert meta.status == "finished" and meta.winner == 0 and meta.outcome["reason"] == "abandoned"
    assert "left the match" in here.messages[-1]["view"]["status_line"]


async def test_coming_back_within_the_grace_period_resets_it():
    clock = FakeClock()
    service = make_service(clock=clock)
    live, ada, _ = await timed_match(service, TimeControl.none())
    here = Recorder(0)
    await service.subscribe(live, here)
    gone = Recorder(1)
    await service.subscribe(live, gone)
    await service.unsubscribe(live, gone)
    await clock.advance(50)
    back = Recorder(1)
    await service.subscribe(live, back)
    await service.unsubscribe(live, back)
    await clock.advance(50)
    with pytest.raises(Conflict):
        await service.claim(ada, live.match_id)


async def test_waiting_matches_expire():
    clock = FakeClock()
    service = make_service(clock=clock)
    service.clocks.waiting_seconds = 3600
    ada, _ = await service.create_player("Ada")
    created = await service.create_match(ada, opponent="human")
    await clock.advance(3599)
    await service.clocks.tick()
    assert await service.store.load_meta(created.meta.match_id) is not None
    # Past its time, it goes at the next look, at most EXPIRY_EVERY seconds after the last.
    await clock.advance(2)
    await service.clocks.tick()
    assert await service.store.load_meta(created.meta.match_id) is not None
    await clock.advance(EXPIRY_EVERY - 2)
    await service.clocks.tick()
    assert await service.store.load_meta(created.meta.match_id) is None
    assert created.meta.match_id not in service.cache


async def test_a_deadline_that_passed_while_no_server_ran_is_enforced_at_startup(tmp_path):
    async with database("sqlite", tmp_path) as engine:
        first = make_service(SqlStore(engine), FakeClock())
        live, *_ = await timed_match(first)
        match_id, seat, version = live.match_id, live.state.to_act, live.meta.version
        await first.close()
        # The next server starts 10 minutes later (the clock is the database's deadline).
        later = FakeClock(start=first.clock.now() + timedelta(minutes=10))
        second = make_service(SqlStore(engine), later)
        second.start_clocks()
        await asyncio.wait_for(second.clocks.ticked.wait(), 10)
        meta, actions = await second.store.load_match(match_id)
        assert meta.version == version + 1
        assert [(a.seat, a.client_id) for a in actions] == [(seat, f"{TIMEOUT_ID}1")]
        await second.close()


@pytest.mark.postgres
async def test_two_replicas_racing_to_enforce_one_deadline_forfeit_the_match_exactly_once(tmp_path):
    async with database("postgres", tmp_path) as engine:
        clock_a, clock_b = FakeClock(), FakeClock()
        a = make_service(SqlStore(engine), clock_a)
        b = make_service(SqlStore(engine), clock_b, SequentialIds("b"))
        live, *_ = await timed_match(a, TimeControl.realtime(10, 0))
        match_id, slow = live.match_id, live.state.to_act
        # slow has timed out twice (the other seat plays in time in between).
        while True:
            await clock_a.advance(10)
            await clock_b.advance(10)
            assert await a.clocks.tick() == 1
            if live.state.to_act != slow:
                await play_safe(a, live)
            if seats(a, live)["seats"][slow]["timeouts"] == 2:
                break
        while live.state.to_act != slow:
            await play_safe(a, live)
        await b.cache.get(match_id)  # the second replica holds the match too
        await clock_a.advance(10)
        await clock_b.advance(10)
        results = await asyncio.gather(a.clocks.enforce(match_id), b.clocks.enforce(match_id))
        assert sorted(results) == [False, True]
        meta = await SqlStore(engine).load_meta(match_id)
        assert meta.status == "finished" and meta.outcome["reason"] == "timeout" and meta.winner == 1 - slow
        # Neither replica sees anything left to do.
        assert await a.clocks.tick() == 0 and await b.clocks.tick() == 0
        await a.close()
        await b.close()


# --- rematches ------------------------------------------------------------------------------------


async def finish_by_resigning(service: MatchService, live, player) -> None:
    await service.resign(player, live.match_id)
    assert live.meta.status == "finished"


async def test_a_rematch_offered_and_accepted_swaps_the_seats_and_keeps_rules_clock_and_rating():
    service = make_service()
    live, ada, bob = await timed_match(service, rated=True)
    watching = [Recorder(0), Recorder(1)]
    for rec in watching:
        await service.subscribe(live, rec)
    await finish_by_resigning(service, live, bob)
    with pytest.raises(Conflict, match="not offered"):
        await service.decline_rematch(ada, live.match_id)
    offered = await service.offer_rematch(ada, live.match_id)
    assert offered.rematch == {"offered_by": 0, "declined_by": None, "match_id": None}
    assert watching[1].messages[-1]["view"]["rematch"] == {
        "offered_by": 0,
        "declined_by": None,
        "match_id": None,
    }
    accepted = await service.offer_rematch(bob, live.match_id)
    new_id = accepted.rematch["match_id"]
    assert new_id is not None
    for rec in watching:  # both sockets learn the new match
        assert rec.messages[-1]["view"]["rematch"]["match_id"] == new_id
    new = await service.cache.get(new_id)
    assert new.meta.status == "active"
    assert new.meta.seat_ids == [bob.player_id, ada.player_id]
    assert new.meta.rules == live.meta.rules and new.meta.time_control == live.meta.time_control
    assert new.meta.rated and not new.meta.public
    assert new.meta.deadline_at is not None  # its clock runs
    # Asking again answers with the same rematch; nothing new is created.
    assert (await service.offer_rematch(ada, live.match_id)).rematch["match_id"] == new_id


async def test_a_rematch_can_be_declined_and_only_once_a_match_is_over():
    service = make_service()
    live, ada, bob = await timed_match(service)
    from server.service.errors import MatchNotOver

    with pytest.raises(MatchNotOver):
        await service.offer_rematch(ada, live.match_id)
    await finish_by_resigning(service, live, ada)
    await service.offer_rematch(bob, live.match_id)
    declined = await service.decline_rematch(ada, live.match_id)
    assert declined.rematch == {"offered_by": None, "declined_by": 0, "match_id": None}


async def test_a_rematch_against_the_computer_is_one_click():
    service = make_service()
    ada, _ = await service.create_player("Ada")
    created = await service.create_match(ada, opponent="computer", difficulty="easy", rules="classic")
    await service.resign(ada, created.meta.match_id)
    meta = await service.offer_rematch(ada, created.meta.match_id)
    new = await service.cache.get(meta.rematch["match_id"])
    assert new.meta.status == "active" and new.meta.opponent == "computer"
    assert new.meta.difficulty == "easy" and new.meta.rules == "classic"
    assert new.meta.seat_ids[0] == ada.player_id


class UnreachableStore(MemoryStore):
    """A store that cannot be reached for due deadlines (a dropped database connection)."""

    async def due_matches(self, now, limit):
        raise ConnectionResetError("the database dropped this connection")

    def unreachable(self, error: BaseException) -> bool:
        return isinstance(error, ConnectionResetError)


async def test_a_tick_that_cannot_reach_the_store_is_one_warning_without_a_traceback(caplog):
    service = make_service(UnreachableStore())
    service.start_clocks()
    await asyncio.wait_for(service.clocks.ticked.wait(), 10)
    await service.close()
    failed = [r for r in caplog.records if r.getMessage().startswith("clock tick failed")]
    assert [(r.levelname, r.getMessage(), r.exc_info) for r in failed] == [
        ("WARNING", "clock tick failed: the database is unreachable", None)
    ]


async def test_the_history_and_the_record_mark_the_moves_the_server_played_on_a_timeout():
    clock = FakeClock()
    service = make_service(clock=clock)
    live, ada, _ = await timed_match(service, TimeControl.realtime(5, 0))
    await clock.advance(5)
    assert await service.clocks.tick() == 1  # the first seat passes for want of time
    await play_safe(service, live)  # the other seat moves itself
    history = json.loads(state_message(service.update(live, 0)))["view"]["hand"]["history"]
    assert [e.get("timed_out", False) for e in history] == [True, False]
    # After a restart (the match loaded from the store), the same.
    reloaded = await make_service(service.store, clock).cache.get(live.match_id)
    again = json.loads(state_message(service.update(reloaded, 1)))["view"]["hand"]["history"]
    assert again == history
    await service.resign(ada, live.match_id)
    record = present_record(await service.record(ada, live.match_id))
    actions = record["hands"][0]["actions"]
    assert [a.get("timed_out", False) for a in actions] == [True, False]
