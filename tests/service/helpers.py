"""Helpers of the match service tests on a real SQLite store (the ``engine`` fixture is in
``conftest.py``): a subscriber that records what it is sent, a store whose commits are slow,
a match between two people, and playing until the computer has moved."""

from __future__ import annotations

import asyncio
import json

from server.service import MatchService, SeatUpdate
from server.storage import SqlStore
from server.transport.present import state_message


class Recorder:
    """A subscriber that keeps what it is sent."""

    def __init__(self, seat):
        self.seat = seat
        self.messages: list[dict] = []

    def deliver(self, update: SeatUpdate) -> None:
        self.messages.append(json.loads(state_message(update)))


class SlowStore(SqlStore):
    """Commits take a while, to catch anything that runs between an apply and its commit."""

    delay = 0.2

    async def commit(self, change):
        await asyncio.sleep(self.delay)
        return await super().commit(change)


async def human_match(service: MatchService):
    ada, _ = await service.create_player("Ada")
    bob, _ = await service.create_player("Bob")
    created = await service.create_match(ada, opponent="human")
    await service.join(bob, created.meta.match_id, created.invite)
    live = await service.cache.get(created.meta.match_id)
    return live, ada, bob


async def play_until_the_computer_moved(service: MatchService, live, store: SqlStore) -> None:
    """Play seat 0's first legal action at each of its turns until the computer has moved."""
    for _ in range(1000):
        _, actions = await store.load_match(live.match_id)
        if any(a.seat == 1 for a in actions):
            return
        async with live.lock:
            version, legal = live.meta.version, live.state.legal_actions(0)
        if legal:
            await service.act(live, 0, None, version, legal[0].to_wire())
        else:
            await asyncio.sleep(0.01)
    raise AssertionError("the computer never moved")
