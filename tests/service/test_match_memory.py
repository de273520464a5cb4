"""What a live match keeps per action: every client id it answered stays until the match ends
(docs/protocol.md, ``act``), so each one costs one small tuple, not a key tuple and a wire dict
per id."""

from __future__ import annotations

import sys

from server.rules import Action
from server.service import MatchService
from server.storage import SqlStore

from .helpers import human_match

ANSWER_BYTES = 120
"""At most this many bytes (beyond the id itself) per remembered id: its table slot and one
(version, action) tuple; a key tuple with a wire dict beside it took over 400."""


async def test_each_answered_id_costs_one_small_tuple_and_a_shared_action(engine):
    service = MatchService(SqlStore(engine), bot_delay=0)
    live, *_ = await human_match(service)
    ids = 0
    while ids < 40 and live.meta.status == "active":
        seat = live.state.to_act
        action = live.state.legal_actions(seat)[0]
        await service.act(live, seat, f"id-{ids}", live.meta.version, action.to_wire())
        ids += 1
    answers = live.answers
    assert sum(map(len, answers)) == ids
    for by_id in answers:
        for client_id, (version, action) in by_id.items():
            assert type(client_id) is str and type(version) is int
            assert action is Action.from_wire(action.to_wire())  # the rules' own value, shared
    kept = sum(map(sys.getsizeof, answers)) + sum(
        sys.getsizeof(answer) + sys.getsizeof(answer[0]) for by_id in answers for answer in by_id.values()
    )
    assert kept / ids <= ANSWER_BYTES
    await service.close()
