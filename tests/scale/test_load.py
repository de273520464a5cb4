"""The load generator, run small: it plays real matches against a real server process, and its
checks (lost actions, hidden cards) can see a fault when there is one."""

from __future__ import annotations

import copy
import random

import msgspec
import pytest

from server.bench import load
from server.rules import new_match
from server.wire import convert
from tests.wire_forms import wire

pytestmark = pytest.mark.slow


def small(**changes) -> load.Options:
    opts = load.Options(
        matches=8,
        duration=3.0,
        saturate=2.0,
        think=0.05,
        echo_duration=1.0,
        check_hidden=True,
        memory_matches=10,
    )
    for k, v in changes.items():
        setattr(opts, k, v)
    return opts


def assert_clean(report: dict) -> None:
    game = report["game"]
    assert game["setup_failures"] == 0, game.get("setup_failure_example")
    assert game["paced"]["error_count"] == 0, game["paced"]["errors"]
    assert game["saturated"]["error_count"] == 0, game["saturated"]["errors"]
    assert game["stuck_players"] == 0 and not game["failures"], game["failures"]
    assert game["acked_total"] > 50
    assert game["lost"] == 0, game["lost_examples"]
    assert game["hidden"]["states_checked"] >= game["acked_total"]
    assert game["hidden"]["leaks"] == 0, game["hidden"]["examples"]
    assert report["server_tracebacks"] == 0
    # A match may end on points during the paced phase and then leave the live set.
    finished = game["paced"]["matches_finished"]
    assert 8 - finished <= game["live_matches"] <= 8
    assert 8 - finished <= game["connections"] <= 8
    assert game["paced"]["ack_latency"]["p99_ms"] is not None
    assert game["paced"]["reply_latency"]["count"] > 0
    assert report["echo"]["round_trips_per_second"] > 0
    assert 0 < report["tracemalloc"]["bytes_per_match"] < 10 * 2**20


async def test_a_small_load_run_on_sqlite_loses_no_acknowledged_action_and_leaks_no_hidden_card():
    report = await load.run(small())
    assert_clean(report)
    text = load.format_report(report)
    for figure in (
        "actions/s",
        "action -> ack",
        "computer reply",
        "echo floor",
        "lost actions: 0",
        "KB per live match",
        "throughput / echo floor",
        "the game work alone",
    ):
        assert figure in text
    assert report["game_work"]["player_actions"] > 0


def test_the_game_work_figure_plays_whole_matches_with_the_scripted_policy():
    first = load.measure_game_work("normal", matches=3, seed=7)
    again = load.measure_game_work("normal", matches=3, seed=7)
    # Whole matches to 100 points: dozens of player actions each, the same ones for a seed.
    assert first["player_actions"] == again["player_actions"] > 3 * 20
    assert 0 < first["cpu_ms_per_action"] < 50


@pytest.mark.postgres
async def test_a_small_load_run_on_postgres_with_two_servers_is_clean(postgres_admin):
    report = await load.run(small(database="postgres", servers=2, postgres_admin=postgres_admin))
    assert_clean(report)
    assert len(report["servers"]) == 2


def _played(seed: str, actions: int):
    state = new_match("house", seed)
    rng = random.Random(seed)
    for _ in range(actions):
        seat = state.to_act
        state.apply(rng.choice(state.legal_actions(seat)), seat)
    return state


def _state_message(state, seat: int) -> dict:
    view = wire(state.view(seat))
    return {"type": "state", "version": 1, "view": {"status": "active", "seat": seat, **view}}


def test_the_hidden_card_check_finds_a_stock_card_or_the_other_hand_shown_to_a_seat():
    state = _played("leak-check", 5)
    # The shape of GET /api/matches/{id}/record for seat 0: the hand in play is left unfinished,
    # so its stock and seat 1's hand are hidden (null), and a copy with every card shown.
    served = {
        "rules": "house",
        "hands": [msgspec.to_builtins(convert.hand_record(log, None, seat=0)) for log in state.log],
    }
    assert served["hands"][-1]["stock"] is None and served["hands"][-1]["hands"][1] is None
    whole = copy.deepcopy(served)
    for h, log in zip(whole["hands"], state.log, strict=True):
        h["hands"] = [[c.code for c in hand] for hand in log.hands]
        h["stock"] = [c.code for c in log.stock]
    honest = _state_message(state, 0)
    top_of_stock = state.hand.stock_order()[0].code
    leaky = copy.deepcopy(honest)
    leaky["view"]["hand"]["discard_pile"].append(top_of_stock)
    other = [c.code for c in state.hand.hand(1)]
    peeking = copy.deepcopy(honest)
    peeking["view"]["status_line"] = f"The computer holds {other[0]}"
    for record in (whole, served):
        assert load.hidden_card_leaks(record, [honest], 0) == []
        assert any(top_of_stock in p for p in load.hidden_card_leaks(record, [leaky], 0))
        assert any(other[0] in p for p in load.hidden_card_leaks(record, [peeking], 0))


def test_percentiles_are_nearest_rank():
    values = [float(v) for v in range(1, 1001)]
    assert load.percentile(values, 50) == 500.0
    assert load.percentile(values, 99) == 990.0
    assert load.percentile([], 99) is None


async def test_the_memory_measure_holds_more_matches_than_one_player_may_have_in_play():
    from server.bench.load.measure import measure_service_memory

    figures = await measure_service_memory(25, actions_each=2)  # one player, 25 > the cap of 20
    assert figures["matches"] == 25 and figures["bytes_per_match"] > 0
