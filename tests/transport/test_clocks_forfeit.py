"""The third timeout in a row forfeits the match, and the final view the seats are sent counts
it: that seat's ``clock.seats[n].timeouts`` is 3 (a later write to the finished match, a
rematch offer, counts nothing more)."""

from __future__ import annotations

import json

from server.service import FakeClock, MatchService, SequentialIds, TimeControl
from server.storage import MemoryStore
from server.transport.present import state_message


def _view(service: MatchService, live, seat: int) -> dict:
    return json.loads(state_message(service.update(live, seat)))["view"]


async def _play_in_time(service: MatchService, live) -> None:
    seat = live.state.to_act
    legal = [a for a in live.state.legal_actions(seat) if a.kind not in ("knock", "take_upcard")]
    action = next((a for a in legal if a.kind in ("pass", "discard")), legal[0])
    await service.act(live, seat, None, live.meta.version, action.to_wire())


async def test_the_final_view_of_a_forfeit_on_time_counts_the_third_timeout():
    clock = FakeClock()
    service = MatchService(MemoryStore(), bot_delay=0, clock=clock, ids=SequentialIds())
    ada, _ = await service.create_player("Ada")
    bob, _ = await service.create_player("Bob")
    created = await service.create_match(ada, opponent="human", time_control=TimeControl.realtime(10, 0))
    await service.join(bob, created.meta.match_id, created.invite)
    live = await service.cache.get(created.meta.match_id)
    slow = live.state.to_act
    seen = []
    while live.meta.status == "active":
        await clock.advance(10)
        assert await service.clocks.tick() == 1
        seen.append(_view(service, live, 1 - slow)["clock"]["seats"][slow]["timeouts"])
        while live.meta.status == "active" and live.state.to_act != slow:
            await _play_in_time(service, live)
    assert seen == [1, 2, 3]
    assert live.meta.outcome["reason"] == "timeout" and live.meta.winner == 1 - slow
    for seat in (0, 1):
        final = _view(service, live, seat)["clock"]
        assert final["running"] is None
        assert final["seats"][slow]["timeouts"] == 3 and final["seats"][1 - slow]["timeouts"] == 0
        assert final["last_timeout"] == slow
    await service.offer_rematch(ada, live.match_id)
    assert _view(service, live, slow)["clock"]["seats"][slow]["timeouts"] == 3
