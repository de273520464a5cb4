"""Encoding through the wire Structs changed nothing on the wire: every view of seeded matches
(each seat and a watcher, active, waiting and finished) and every record are what the rules'
own ``to_wire()`` dicts made before, bar the new ``hand.multiplier``; and building and encoding a
state message is no slower than the dicts were."""

from __future__ import annotations

import json
import random
import timeit
from datetime import UTC, datetime
from typing import Any

import msgspec
import pytest

from server.rules import new_match
from server.service.ports import MatchMeta, MatchRecord, SeatUpdate
from server.transport import present


def _meta(state: Any, status: str = "active", opponent: str = "computer") -> MatchMeta:
    now = datetime(2026, 11, 29, 15, 0, tzinfo=UTC)
    return MatchMeta(
        "m_wire", state.rules.name, opponent, "normal" if opponent == "computer" else None, state.seed, 0,
        status, 7, ["p_a", "p_b"], ["Ada", "Bob"], "", None, state.hand_number, list(state.scores),
        list(state.hands_won), None, None, state.outcome.to_wire() if state.outcome else None, now, now,
    )  # fmt: skip


def _dict_view(update: SeatUpdate) -> dict[str, Any]:
    """The view as present.py built it from the rules' dicts before the Structs."""
    meta, seat = update.meta, update.seat
    match_view = update.view.to_wire()
    if meta.status != "active":
        match_view["hand"]["legal_actions"] = []
        match_view["hand"]["discard_deadwood"] = {}
    players = [
        {
            "seat": s,
            "name": present.computer_name(meta.difficulty)
            if meta.opponent == "computer" and s == 1
            else meta.seat_names[s],
            "kind": "computer" if meta.opponent == "computer" and s == 1 else "human",
            "connected": True if meta.opponent == "computer" and s == 1 else update.connected[s],
        }
        for s in (0, 1)
    ]
    return {
        "match_id": meta.match_id,
        "status": meta.status,
        "seat": seat,
        "version": meta.version,
        "players": players,
        **{k: v for k, v in match_view.items() if k != "seat"},
        "status_line": present.status_line(meta, update.view),
    }


def _dict_state(update: SeatUpdate) -> str:
    return msgspec.json.encode(
        {"type": "state", "version": update.meta.version, "view": _dict_view(update)}
    ).decode()


def _states(seed: int, rules: str):
    state = new_match(rules, f"wire-{seed}", seed % 2)
    rng = random.Random(seed)
    while state.outcome is None:
        yield state
        seat = state.to_act
        state.apply(rng.choice(state.view(seat).hand.legal_actions), seat)
    yield state


@pytest.mark.parametrize("seed", range(3))
def test_every_view_is_what_the_dicts_made(seed):
    rules = ("house", "classic")[seed % 2]
    checked = 0
    for i, state in enumerate(_states(seed, rules)):
        if i > 120 and i % 40 and state.outcome is None:
            continue  # the first hands in full, then a sample, and the end
        for status in ("active", "waiting") if state.outcome is None else ("finished",):
            meta = _meta(state, status, ("computer", "human")[seed % 2])
            for seat in (0, 1, None):
                update = SeatUpdate(meta, state.view(seat), (True, seed % 3 == 0))
                got = json.loads(present.state_message(update))
                assert got == json.loads(_dict_state(update))
                checked += 1
    assert checked > 300


def test_the_record_is_what_the_dicts_made():
    *_, state = _states(9, "classic")
    meta = _meta(state, "finished")
    got = msgspec.to_builtins(present.record(MatchRecord(meta, 0, state)))
    hands = []
    for i, log in enumerate(state.log):
        entry = log.to_wire()
        entry["result"] = state.results[i].to_wire() if i < len(state.results) else None
        hands.append(entry)
    assert got["hands"] == hands and got["outcome"] == state.outcome.to_wire()


def test_building_and_encoding_a_state_is_no_slower_than_the_dicts():
    for state in _states(5, "house"):
        view = state.view(0)
        if len(view.hand.history) >= 20 and view.hand.legal_actions:
            break
    meta = _meta(state)

    def structs() -> None:
        present.state_message(SeatUpdate(meta, view, (True, True)))

    def dicts() -> None:
        _dict_state(SeatUpdate(meta, view, (True, True)))

    structs(), dicts()
    best = {f.__name__: min(timeit.repeat(f, number=500, repeat=7)) for f in (structs, dicts)}
    # The dicts are the old code path; generous slack, as timings on a busy machine vary.
    assert best["structs"] <= best["dicts"] * 1.25, best
