"""An ``oklahoma`` match against each computer difficulty, played through the match service on a
real SQLite store to its end: every state message carries the hand's own knock limit and
multiplier, as the first upcard of that hand (from the match record) says."""

from __future__ import annotations

import asyncio
import random

import pytest

from server.bots import DIFFICULTIES
from server.service import MatchService
from server.service.ids import SequentialIds
from server.storage import SqlStore, create_engine, upgrade

from .helpers import Recorder


@pytest.fixture
async def engine(tmp_path):
    eng = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'oklahoma.db'}")
    await upgrade(eng)
    yield eng
    await eng.dispose()


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
async def test_an_oklahoma_match_against_the_computer_is_played_to_its_end(engine, difficulty):
    # Sequential ids make the seed, so the deals (and the knock limits met) are the same every run.
    service = MatchService(SqlStore(engine), bot_delay=0, ids=SequentialIds(prefix=f"oklahoma-{difficulty}-"))
    ada, _ = await service.create_player("Ada")
    created = await service.create_match(ada, difficulty=difficulty, rules="oklahoma")
    assert created.meta.rules == "oklahoma"
    live = await service.cache.get(created.meta.match_id)
    seen = Recorder(0)
    await service.subscribe(live, seen)
    rng = random.Random(difficulty)
    for _ in range(20_000):
        if live.meta.status == "finished":
            break
        async with live.lock:
            mine = live.state.to_act == 0
            legal = live.state.legal_actions(0) if mine else []
            version = live.meta.version
        if not mine:
            await asyncio.sleep(0.001)
            continue
        # Knock whenever the hand's limit allows (so hands end), else any legal move.
        knocks = [a for a in legal if a.to_wire()["kind"] == "knock"]
        await service.act(live, 0, None, version, rng.choice(knocks or legal).to_wire())
    assert live.meta.status == "finished" and live.meta.outcome["reason"] == "target"

    record = await service.record(ada, live.match_id)
    upcards = [log.upcard for log in record.state.log]
    limits = set()
    for message in seen.messages:
        view = message["view"]
        assert view["rules"]["name"] == "oklahoma"
        up = upcards[view["hand_number"] - 1]
        hand = view["hand"]
        assert hand["knock_limit"] == (0 if up.rank == 1 else up.value), (up, hand["knock_limit"])
        assert hand["multiplier"] == (2 if up.suit == 3 else 1)
        limits.add(hand["knock_limit"])
    assert limits  # (each upcard rank's limit is tested card by card in tests/rules/test_oklahoma.py)
    totals = live.meta.outcome["totals"]
    assert [t["box_bonus"] for t in totals] == [25 * won for won in record.state.hands_won]
    await service.close()
