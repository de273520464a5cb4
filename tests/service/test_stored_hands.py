"""What the store keeps of a finished hand and of a match's end (the shape existing databases
hold), and the details that read them: only the hands their match row knows of."""

from __future__ import annotations

import json
import random

from server.service import MatchService
from server.storage import SqlStore

from .helpers import human_match

# The guide's worked example (docs/rules.md): seat 0 knocks with 8 after drawing the 8d, seat 1
# lays off Tc and 5c and undercuts. As the rules' old HandResult.to_wire() stored it: existing
# databases hold exactly this, so it may not change.
STORED_UNDERCUT = {
    "kind": "undercut",
    "winner": 1,
    "points": 28,
    "knocker": 0,
    "deadwood": [8, 5],
    "hands": [
        ["2c", "3c", "4c", "7c", "8c", "9c", "5d", "8d", "5h", "5s"],
        ["5c", "Tc", "Qc", "Qd", "9h", "Th", "Jh", "As", "4s", "Qs"],
    ],
    "melds": [
        [["2c", "3c", "4c"], ["7c", "8c", "9c"], ["5d", "5h", "5s"]],
        [["9h", "Th", "Jh"], ["Qc", "Qd", "Qs"]],
    ],
    "unmatched": [["8d"], ["As", "4s"]],
    "layoffs": [{"card": "Tc", "meld": 1}, {"card": "5c", "meld": 2}],
    "breakdown": "25 + 8 - 5 = 28",
}


STORED_OUTCOME = {
    "winner": 0,
    "reason": "target",
    "totals": [
        {"points": 104, "box_bonus": 50, "game_bonus": 100, "total": 254},
        {"points": 40, "box_bonus": 25, "game_bonus": 0, "total": 65},
    ],
}


def test_a_finished_hand_and_an_outcome_are_stored_in_the_shape_databases_hold():
    from server.rules import RULES, Draw, Knock, MatchOutcome, Pass, SeatTotal, Source, new_hand
    from server.service.writer import stored_outcome, stored_result

    h = new_hand(
        RULES["house"],
        starter=0,
        hands=("2c 3c 4c 5h 5d 5s 7c 8c 9c Kh", "Qs Qd Qc Jh Th 9h 4s As 5c Tc"),
        upcard="Kd",
        stock="8d 2h 3h",
    )
    h.apply(Pass()).apply(Pass()).apply(Draw(Source.STOCK)).apply(Knock("Kh"))
    stored = stored_result(h.result)
    assert stored == STORED_UNDERCUT
    assert json.dumps(stored) == json.dumps(STORED_UNDERCUT)  # the keys in the same order too
    outcome = MatchOutcome(0, "target", (SeatTotal(104, 50, 100), SeatTotal(40, 25, 0)))
    assert json.dumps(stored_outcome(outcome)) == json.dumps(STORED_OUTCOME)


async def test_the_store_keeps_each_finished_hand_and_the_outcome_in_their_stored_form(engine):
    from server.service.writer import stored_outcome, stored_result

    store = SqlStore(engine)
    service = MatchService(store, bot_delay=0)
    live, ada, _ = await human_match(service)
    rng = random.Random(7)
    while len(live.state.results) < 2:  # two hands to their end
        seat = live.state.to_act
        await service.act(
            live, seat, None, live.meta.version, rng.choice(live.state.legal_actions(seat)).to_wire()
        )
    await service.resign(ada, live.match_id)
    hands = await store.finished_hands(live.match_id)
    assert [h.result for h in hands] == [stored_result(r) for r in live.state.results]
    assert {h.result["kind"] for h in hands} <= {"gin", "knock", "undercut", "dead"}
    meta = await store.load_meta(live.match_id)
    assert meta.outcome == stored_outcome(live.state.outcome) and meta.outcome["reason"] == "resign"
    assert list(meta.outcome) == ["winner", "reason", "totals"]
    await service.close()


async def test_details_show_only_the_hands_their_match_row_knows_of(engine):
    service = MatchService(SqlStore(engine), bot_delay=0)
    live, ada, _ = await human_match(service)
    rng = random.Random(4)
    while not live.state.results:  # play hand 1 to its end
        seat = live.state.to_act
        await service.act(
            live, seat, None, live.meta.version, rng.choice(live.state.legal_actions(seat)).to_wire()
        )
    meta, hands = await service.details(ada, live.match_id)
    assert meta.hand_number == 2 and [h.number for h in hands] == [1]
    # The row as read just before hand 1 ended, and the hands read after: hand 1 is not shown.
    before = meta.copy()
    before.version, before.hand_number = meta.version - 1, 1

    async def row_read_earlier(match_id):
        return before

    service.queries.read_meta = row_read_earlier
    assert await service.details(ada, live.match_id) == (before, [])
    await service.close()
