"""The wire is what it was: every view of seeded matches (each seat and a watcher; active,
waiting and finished) and every hand of a match record, encoded through the wire Structs, equal
the golden copies in ``golden/wire.json.gz``. To keep that file small it holds the first
views of each match and the first hands of the record in full (a failure shows what changed),
and a digest of every other group of views (those of one state) and of every other hand.

Those copies were first written by the rules' own ``to_wire()`` dicts, before the Structs
replaced them (``tests/transport/golden/from_dicts.py``, in commit 59a8781 that added the fixture), so
this is the proof that the redesign changed nothing on the wire. A deliberate change to the wire
regenerates them from the Structs: ``python -m tests.transport.test_wire``.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec
import pytest

from server.rules import MatchState, new_match
from server.service.ports import MatchMeta, MatchRecord, SeatUpdate
from server.transport import present
from server.wire import convert

GOLDEN = Path(__file__).resolve().parent / "golden" / "wire.json.gz"
REGENERATE = "python -m tests.transport.test_wire"
STATE_SEEDS = range(3)
RECORD_SEED = 9
FULL_VIEWS = 120  # per seed
FULL_HANDS = 3


def _meta(state: MatchState, status: str = "active", opponent: str = "computer") -> MatchMeta:
    now = datetime(2026, 11, 29, 15, 0, tzinfo=UTC)
    outcome = msgspec.to_builtins(convert.outcome(state.outcome)) if state.outcome else None
    return MatchMeta(
        "m_wire", state.rules.name, opponent, "normal" if opponent == "computer" else None, state.seed, 0,
        status, 7, ["p_a", "p_b"], ["Ada", "Bob"], "", None, state.hand_number, list(state.scores),
        list(state.hands_won), None, None, outcome, now, now, deal=state.deal,
    )  # fmt: skip


def _states(seed: int, rules: str) -> Iterator[MatchState]:
    state = new_match(
        rules, f"wire-{seed}", seed % 2, deal="legacy"
    )  # the deals the golden views were made from
    rng = random.Random(seed)
    while state.outcome is None:
        yield state
        seat = state.to_act
        state.apply(rng.choice(state.view(seat).hand.legal_actions), seat)
    yield state


def updates(seed: int) -> Iterator[list[SeatUpdate]]:
    """The views checked for ``seed``, one list per state: the first hands in full, then a
    sample, and the end."""
    rules = ("house", "classic")[seed % 2]
    for i, state in enumerate(_states(seed, rules)):
        if i > 120 and i % 40 and state.outcome is None:
            continue
        group = []
        for status in ("active", "waiting") if state.outcome is None else ("finished",):
            meta = _meta(state, status, ("computer", "human")[seed % 2])
            for seat in (0, 1, None):
                group.append(SeatUpdate(meta, state.view(seat), (True, seed % 3 == 0)))
        yield group


def finished_match() -> tuple[MatchMeta, MatchState]:
    *_, state = _states(RECORD_SEED, "classic")
    return _meta(state, "finished"), state


def digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def golden_form(states: dict[int, list[list[Any]]], hands: list[Any], outcome: Any) -> dict[str, Any]:
    """The fixture from the plain JSON values of each seed's groups of state messages and of the
    record's hands and outcome."""
    out: dict[str, Any] = {"states": {}, "record": {}}
    for seed, groups in states.items():
        flat = [m for g in groups for m in g]
        out["states"][str(seed)] = {
            "full": flat[:FULL_VIEWS],
            "views": len(flat),
            "digests": [digest(g) for g in groups],
        }
    out["record"] = {
        "full": hands[:FULL_HANDS],
        "digests": [digest(h) for h in hands],
        "outcome": outcome,
    }
    return out


def _record(meta: MatchMeta, state: MatchState) -> dict[str, Any]:
    out: dict[str, Any] = msgspec.to_builtins(present.record(MatchRecord(meta, 0, state)))
    return out


def current() -> dict[str, Any]:
    """What the Structs put on the wire now, in the fixture's shape."""
    record = _record(*finished_match())
    states = {
        seed: [[json.loads(present.state_message(u)) for u in g] for g in updates(seed)]
        for seed in STATE_SEEDS
    }
    return golden_form(states, record["hands"], record["outcome"])


def write(data: dict[str, Any], path: Path = GOLDEN) -> None:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(text.encode(), compresslevel=9, mtime=0))


@pytest.fixture(scope="module")
def golden() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(gzip.decompress(GOLDEN.read_bytes()))
    return data


@pytest.mark.parametrize("seed", STATE_SEEDS)
def test_every_view_is_the_golden_one(golden, seed):
    expected = golden["states"][str(seed)]
    again = f"if the wire was meant to change, regenerate the golden copy: {REGENERATE}"
    n = 0
    groups = 0
    for i, group in enumerate(updates(seed)):
        got = [json.loads(present.state_message(u)) for u in group]
        for message in got:
            if n < len(expected["full"]):
                assert message == expected["full"][n], f"view {n} of seed {seed} changed; {again}"
            n += 1
        assert i < len(expected["digests"]), f"seed {seed} has more states than the golden copy; {again}"
        assert digest(got) == expected["digests"][i], (
            f"the views of state {i} of seed {seed} changed; {again}"
        )
        groups += 1
    assert (groups, n) == (len(expected["digests"]), expected["views"]), f"fewer views; {again}"
    assert n > 300 and len(expected["full"]) == FULL_VIEWS


def test_the_record_is_the_golden_one(golden):
    got = _record(*finished_match())
    expected = golden["record"]
    again = f"if the wire was meant to change, regenerate the golden copy: {REGENERATE}"
    assert got["hands"][:FULL_HANDS] == expected["full"], f"the record's first hands changed; {again}"
    assert [digest(h) for h in got["hands"]] == expected["digests"], f"a hand of the record changed; {again}"
    assert len(got["hands"]) > FULL_HANDS
    assert got["outcome"] == expected["outcome"], f"the record's outcome changed; {again}"


if __name__ == "__main__":
    write(current())
    print(f"wrote {GOLDEN} ({GOLDEN.stat().st_size} bytes)")
