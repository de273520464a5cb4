"""The computer's pace: the player's choice (``hello.pace``) scales the server's pause before
each computer move, slow to fast, never below the server's floor; a bad pace changes nothing."""

from __future__ import annotations

import pytest

from server.bots.pace import PACES
from server.service import MatchService
from server.service.clock import FakeClock
from server.service.computer import PACE_FLOOR, pause_for
from server.service.errors import BadRequest
from server.service.ids import SequentialIds
from server.storage.memory import MemoryStore
from server.wire.pace import PaceName


def test_the_paces_scale_the_servers_pause_and_fast_stops_at_the_floor():
    assert [pause_for(0.6, p) for p in PACES] == [1.2, 0.6, 0.3]
    assert pause_for(0.4, "fast") == PACE_FLOOR  # half would be 0.2: below the floor
    assert pause_for(0.1, "fast") == 0.1  # a server configured faster than the floor keeps its own
    assert pause_for(0, "slow") == 0
    assert set(PaceName.__args__) == set(PACES)  # type: ignore[attr-defined]


async def moves_after(service, clock, live, seconds: float) -> int:
    """Versions the computer wrote within ``seconds`` of its turn starting."""
    version = live.meta.version
    await clock.advance(seconds)
    return live.meta.version - version


@pytest.mark.parametrize(("pace", "pause"), [("slow", 1.2), ("normal", 0.6), ("fast", 0.3)])
async def test_the_computer_waits_the_pause_of_the_pace_the_player_chose(pace, pause):
    clock = FakeClock()
    service = MatchService(MemoryStore(), bot_delay=0.6, clock=clock, ids=SequentialIds())
    ada, token = await service.create_player("Ada")
    created = await service.create_match(ada, difficulty="easy")
    live, seat = await service.open(created.meta.match_id, token, pace)
    assert seat == 0 and live.pace == pace
    while live.state.to_act == 0:
        await service.act(live, 0, None, live.meta.version, live.state.legal_actions(0)[0].to_wire())
    await clock.settle()
    assert await moves_after(service, clock, live, pause - 0.01) == 0  # still pausing
    assert await moves_after(service, clock, live, 0.01) == 1
    await service.close()


async def test_a_pace_outside_the_registry_is_refused_and_changes_nothing():
    service = MatchService(MemoryStore(), bot_delay=0.6, clock=FakeClock(), ids=SequentialIds())
    ada, token = await service.create_player("Ada")
    created = await service.create_match(ada, difficulty="easy")
    live, _ = await service.open(created.meta.match_id, token, "slow")
    with pytest.raises(BadRequest, match="pace must be one of slow, normal, fast"):
        await service.open(created.meta.match_id, token, "warp")
    assert live.pace == "slow"
    live, _ = await service.open(created.meta.match_id, token)  # no pace: unchanged
    assert live.pace == "slow"
    await service.close()
